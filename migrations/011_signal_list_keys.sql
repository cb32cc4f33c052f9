-- The signals list's two indexes led with the engine name and version, two text columns equal in
-- nearly every comparison an insertion makes, and every column after them had to be found by walking
-- past both. A 4-byte hash of the pair leads instead (server-side COPY of 358,690 signal rows into the
-- signals table: 8.5–9.7 s against 9.1–11.8 s, alternating; docs/EVALUATION.md §5). Two engine
-- versions whose hashes collide would share index entries, which the list query's own comparison of
-- the name and version then skips: a collision can cost time, never a wrong row or order.
DROP INDEX signals_ranked;
DROP INDEX signals_by_ticker;
CREATE INDEX signals_ranked ON signals ((hashtext(engine_name || '@' || engine_version)), signal_score DESC,
  computed_at DESC, id);
CREATE INDEX signals_by_ticker ON signals ((hashtext(engine_name || '@' || engine_version)), ticker,
  signal_score DESC, computed_at DESC, id);
