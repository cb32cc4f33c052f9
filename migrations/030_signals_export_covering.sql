-- Found by `npm run bench:export -- --database` on 10 M synthetic contracts (docs/EVALUATION.md, "The
-- signals export's rate").

-- The signals export reads an engine's signals in the list's order (score, then time) from
-- signals_ranked and fetched each one's heap row: a random page of the signals table (14 GB at 10 M,
-- its rows wide with their rationales) per signal, since the table is in the order signals were
-- written, not in score order — ≈ 13,000 rows/s from disk, ≈ 26,000 from the page cache. The index now
-- also carries (INCLUDE) every column the export, the list and their filters read of a signal besides
-- its rationale, so they read it from the index alone (an index-only scan) and never touch the table's
-- pages; only NDJSON with rationales (the intelligence tier) still reads the row. Same keys, same
-- order, same name: built beside the old one, which it then replaces.
CREATE INDEX signals_ranked_covering ON signals ((hashtext(engine_name || '@' || engine_version)),
  signal_score DESC, computed_at DESC, id, available_at)
  INCLUDE (engine_name, engine_version, engine_tier, importance_score, confidence_score, risk_score, contract_id,
    ticker);
DROP INDEX signals_ranked;
ALTER INDEX signals_ranked_covering RENAME TO signals_ranked;
