-- Found by `npm run bench:queries` on 10 M synthetic contracts (docs/EVALUATION.md, "Ten million
-- contracts (issue 35)").

-- The signals list filtered by when its contracts became available (`available_from`, `available_to`)
-- walks signals in score order and tested each one's contract: a primary-key lookup and a random heap
-- page of contracts per signal walked, 0.2–3 s at 10 M whenever few signals near the top match. The
-- signal now carries its contract's `available_at` — written with the signal, moved with the contract's
-- when an announcement links it (src/store/writes.ts, src/store/announcements.ts) — and both list
-- indexes carry it after their order's unique id: a key column there changes no order, but a condition
-- on it is tested on the index entry (as migration 027 did for the events list). Null only for a signal
-- whose contract is not stored, which no availability filter lists (nor did it before).
ALTER TABLE signals ADD COLUMN available_at timestamptz;

-- Without its indexes while every row is rewritten: built once afterwards, not entry by entry.
DROP INDEX signals_ranked;
DROP INDEX signals_by_ticker;
UPDATE signals s SET available_at = c.available_at FROM contracts c WHERE c.id = s.contract_id;
CREATE INDEX signals_ranked ON signals ((hashtext(engine_name || '@' || engine_version)), signal_score DESC,
  computed_at DESC, id, available_at);
CREATE INDEX signals_by_ticker ON signals ((hashtext(engine_name || '@' || engine_version)), ticker,
  signal_score DESC, computed_at DESC, id, available_at);
