-- A large import (one that defers the list indexes: src/store/deferred-indexes.ts) also turns off the
-- statement triggers that keep the contracts' totals (migration 029) and sums the contracts once at its
-- end: the triggers cost the server 6–8 µs of CPU per award written (a delta row per cell and batch,
-- then compactions), one sum over the table about 1 µs per contract (docs/EVALUATION.md, §5, "Ingest at
-- 50,000 awards/s").
--
-- The deferral is recorded here in the transaction that turns the triggers off, so an import that stops
-- mid-way leaves the record, and the next start turns them on and sums again. While a record stands, the
-- summary is not kept: the company page and company API sum the ticker's contracts themselves
-- (src/store/market.ts), so no reader sees totals missing the import's rows.
CREATE TABLE deferred_contract_totals (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  deferred_at timestamptz NOT NULL DEFAULT now()
);

-- (Function bodies put a statement's semicolon at the start of the next line: see migration 029.)
--
-- Turns the totals' triggers off and records it (nothing when already recorded). TRUNCATE's trigger
-- stays on: it only empties the summary, which the sum at the end fills again.
CREATE FUNCTION defer_contract_totals() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO deferred_contract_totals DEFAULT VALUES ON CONFLICT DO NOTHING
  ; ALTER TABLE contracts DISABLE TRIGGER contracts_totals_inserted, DISABLE TRIGGER contracts_totals_updated,
      DISABLE TRIGGER contracts_totals_deleted
; END $$;

-- Ends a recorded deferral: the triggers on again and the summary summed from the contracts, in one
-- transaction (rebuild_contract_totals locks the contracts against writers until it commits, so every
-- write is either in the sum or made after it, through the triggers). Returns false when nothing was
-- deferred; a concurrent caller waits on the record's row lock and then finds it gone.
CREATE FUNCTION restore_contract_totals() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM deferred_contract_totals
  ; IF NOT FOUND THEN RETURN false; END IF
  ; ALTER TABLE contracts ENABLE TRIGGER contracts_totals_inserted, ENABLE TRIGGER contracts_totals_updated,
      ENABLE TRIGGER contracts_totals_deleted
  ; PERFORM rebuild_contract_totals()
  ; RETURN true
; END $$;
