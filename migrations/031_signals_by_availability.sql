-- Found by `npm run bench:queries` on 10 M synthetic contracts (docs/EVALUATION.md, "Sparse filters and
-- export cursors (session 5 of issue 35)").

-- The signals list filtered by a window — computed since one moment, of contracts available by another —
-- walked the list's index in score order, testing both on each entry; a window that matches almost
-- nothing (recent signals of contracts available long ago) read all of an engine's entries, up to 1.3 s
-- at 10 M. When the list's first entries do not hold the page, src/store/signals.ts (windowPage) reads
-- the matches from this index month of availability by month: within a month the signals computed since
-- the moment are one range, so a month whose signals were all computed before it costs one descent. The
-- score, ticker and availability are keys (tested on the entry, not a heap page); the id completes the
-- list's key, by which each signal of the page is then read from signals_ranked.
CREATE INDEX signals_by_availability ON signals ((hashtext(engine_name || '@' || engine_version)),
  (date_trunc('month', available_at AT TIME ZONE 'UTC')), computed_at, available_at, signal_score, ticker)
  INCLUDE (id);
