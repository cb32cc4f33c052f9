-- Cheaper signal rows; docs/EVALUATION.md §5 has the measurements.

-- Signals are written only by the pipeline, for contracts it has just stored or read back, so the
-- foreign key's per-row check (a lookup and a row lock on the contract, ≈ 7 µs of server CPU and 280
-- bytes of WAL per signal) guarded nothing the writer does not already guarantee. Its ON DELETE
-- CASCADE is kept by a statement-level trigger: deleting contracts deletes their signals in one pass,
-- and truncating contracts truncates signals.
ALTER TABLE signals DROP CONSTRAINT signals_contract_id_fkey;

CREATE FUNCTION delete_signals_of_deleted_contracts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM signals s USING gone g WHERE s.contract_id = g.id; RETURN NULL; END $$;

CREATE TRIGGER contracts_delete_signals AFTER DELETE ON contracts
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delete_signals_of_deleted_contracts();

CREATE FUNCTION truncate_signals_of_truncated_contracts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN TRUNCATE signals; RETURN NULL; END $$;

CREATE TRIGGER contracts_truncate_signals AFTER TRUNCATE ON contracts
  FOR EACH STATEMENT EXECUTE FUNCTION truncate_signals_of_truncated_contracts();

-- The rationale is stored as compact JSON text, one array per rule: [rule, weight, value, contribution,
-- detail] (src/store/rows.ts turns it back into the API's objects). The keys were a third of its
-- bytes, and as `text` the server stores it without re-parsing what node has just serialized.
CREATE FUNCTION pg_temp.compact_rationale(items json) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(json_agg(json_build_array(e -> 'rule', e -> 'weight', e -> 'value', e -> 'contribution', e -> 'detail') ORDER BY n)::text, '[]') FROM json_array_elements(items) WITH ORDINALITY AS t(e, n) $$;

ALTER TABLE signals ALTER COLUMN rationale TYPE text USING pg_temp.compact_rationale(rationale);

DROP FUNCTION pg_temp.compact_rationale(json);
