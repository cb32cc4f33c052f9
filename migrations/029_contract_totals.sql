-- A company's contracts summed by (awarding agency, classification), kept by the database as contracts
-- are written, so the dashboard's company page reads a few hundred cells instead of every contract of
-- the ticker (1.77 M index entries, 0.8 s, for the busiest ticker at 10 M: docs/EVALUATION.md).
--
-- Two tables. `contract_total_deltas` is append-only: each statement that writes contracts appends one
-- row per (ticker, agency, classification) cell it changed, with the change in count and value. No
-- statement updates a shared row, so concurrent imports never wait on each other over the busiest
-- tickers. `contract_totals` holds one row per cell; compaction moves the deltas into it. A ticker's
-- totals are the sum of its rows in both. Contracts without a ticker are not counted.
CREATE TABLE contract_totals (
  ticker text NOT NULL,
  awarding_agency text NOT NULL,
  nlp_classification text NOT NULL,
  count bigint NOT NULL,
  total_value bigint NOT NULL,
  PRIMARY KEY (ticker, awarding_agency, nlp_classification)
);
-- The cells compaction has emptied (a ticker's last contract of an agency re-resolved elsewhere).
CREATE INDEX contract_totals_empty ON contract_totals (ticker) WHERE count = 0;

-- Few rows (compaction keeps them under about COMPACT_EVERY below): read whole, so no index to write.
CREATE TABLE contract_total_deltas (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  ticker text NOT NULL,
  awarding_agency text NOT NULL,
  nlp_classification text NOT NULL,
  count bigint NOT NULL,
  total_value bigint NOT NULL
);

-- (Function bodies put a statement's semicolon at the start of the next line: `migrate` ends a
-- statement at a semicolon that closes a line.)
--
-- Moves every delta visible now into `contract_totals`. One compaction at a time (a transaction-scoped
-- advisory lock, tried, not waited for: a writer that finds one running goes on). Deltas of
-- transactions not committed yet are not visible and stay for the next one. Under REPEATABLE READ or
-- SERIALIZABLE a compaction could meet deltas a newer one had moved (a serialization failure): those
-- transactions leave it to a later statement. Returns the number of deltas moved, or null when it
-- did not run.
CREATE FUNCTION compact_contract_totals() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE moved bigint
; BEGIN
  IF current_setting('transaction_isolation') <> 'read committed'
     OR NOT pg_try_advisory_xact_lock(hashtext('contract_totals compaction')) THEN
    RETURN NULL
  ; END IF
  ; WITH gone AS (DELETE FROM contract_total_deltas RETURNING ticker, awarding_agency, nlp_classification, count, total_value),
  cells AS (
    SELECT ticker, awarding_agency, nlp_classification, count(*) AS deltas, sum(count)::bigint AS count,
      sum(total_value)::bigint AS total_value
    FROM gone GROUP BY ticker, awarding_agency, nlp_classification),
  merged AS (
    INSERT INTO contract_totals AS t (ticker, awarding_agency, nlp_classification, count, total_value)
    SELECT ticker, awarding_agency, nlp_classification, count, total_value FROM cells
    ON CONFLICT (ticker, awarding_agency, nlp_classification)
      DO UPDATE SET count = t.count + EXCLUDED.count, total_value = t.total_value + EXCLUDED.total_value
    RETURNING 1)
  SELECT coalesce(sum(deltas), 0) INTO moved FROM cells
  ; DELETE FROM contract_totals WHERE count = 0
  ; RETURN moved
; END $$;

-- After a statement appended deltas: compacts when the deltas' sequence crossed a multiple of 10,000
-- (cheap to test: no count of the table). A compaction that did not run (another one was running)
-- leaves it to the next crossing.
CREATE FUNCTION compact_contract_totals_when_due(appended bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE last bigint
; BEGIN
  IF appended = 0 THEN RETURN; END IF
  ; last := currval(pg_get_serial_sequence('contract_total_deltas', 'seq'))
  ; IF last / 10000 <> (last - appended) / 10000 THEN PERFORM compact_contract_totals(); END IF
; END $$;

CREATE FUNCTION contract_totals_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE appended bigint
; BEGIN
  INSERT INTO contract_total_deltas (ticker, awarding_agency, nlp_classification, count, total_value)
  SELECT ticker, awarding_agency, nlp_classification, count(*), sum(contract_value)::bigint
  FROM inserted_rows WHERE ticker IS NOT NULL GROUP BY ticker, awarding_agency, nlp_classification
  ; GET DIAGNOSTICS appended = ROW_COUNT
  ; PERFORM compact_contract_totals_when_due(appended)
  ; RETURN NULL
; END $$;

-- An update counts its rows' new cells and takes back their old ones; cells where the two cancel (the
-- update changed none of ticker, agency, classification or value) get no delta.
CREATE FUNCTION contract_totals_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE appended bigint
; BEGIN
  INSERT INTO contract_total_deltas (ticker, awarding_agency, nlp_classification, count, total_value)
  SELECT ticker, awarding_agency, nlp_classification, sum(n), sum(v)::bigint
  FROM (SELECT ticker, awarding_agency, nlp_classification, 1 AS n, contract_value AS v
        FROM new_rows WHERE ticker IS NOT NULL
        UNION ALL
        SELECT ticker, awarding_agency, nlp_classification, -1, -contract_value
        FROM old_rows WHERE ticker IS NOT NULL) d
  GROUP BY ticker, awarding_agency, nlp_classification
  HAVING sum(n) <> 0 OR sum(v) <> 0
  ; GET DIAGNOSTICS appended = ROW_COUNT
  ; PERFORM compact_contract_totals_when_due(appended)
  ; RETURN NULL
; END $$;

CREATE FUNCTION contract_totals_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE appended bigint
; BEGIN
  INSERT INTO contract_total_deltas (ticker, awarding_agency, nlp_classification, count, total_value)
  SELECT ticker, awarding_agency, nlp_classification, -count(*), -sum(contract_value)::bigint
  FROM deleted_rows WHERE ticker IS NOT NULL GROUP BY ticker, awarding_agency, nlp_classification
  ; GET DIAGNOSTICS appended = ROW_COUNT
  ; PERFORM compact_contract_totals_when_due(appended)
  ; RETURN NULL
; END $$;

CREATE FUNCTION contract_totals_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN TRUNCATE contract_totals, contract_total_deltas; RETURN NULL; END $$;

CREATE TRIGGER contracts_totals_inserted AFTER INSERT ON contracts
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION contract_totals_inserted();
CREATE TRIGGER contracts_totals_updated AFTER UPDATE ON contracts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contract_totals_updated();
CREATE TRIGGER contracts_totals_deleted AFTER DELETE ON contracts
  REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION contract_totals_deleted();
CREATE TRIGGER contracts_totals_truncated AFTER TRUNCATE ON contracts
  FOR EACH STATEMENT EXECUTE FUNCTION contract_totals_truncated();

-- The summary of the contracts stored now, in one pass: for this migration, and for bulk loads that
-- write contracts with triggers off (bench/synthetic.ts loads as a replica). Takes a lock that keeps
-- writers of contracts out until the end of the caller's transaction, so none is missed or counted
-- twice.
CREATE FUNCTION rebuild_contract_totals() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  LOCK TABLE contracts IN SHARE MODE
  ; TRUNCATE contract_totals, contract_total_deltas
  ; INSERT INTO contract_totals (ticker, awarding_agency, nlp_classification, count, total_value)
  SELECT ticker, awarding_agency, nlp_classification, count(*), sum(contract_value)::bigint
  FROM contracts WHERE ticker IS NOT NULL GROUP BY ticker, awarding_agency, nlp_classification
; END $$;

SELECT rebuild_contract_totals();
