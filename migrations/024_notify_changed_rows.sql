-- A write that changes nothing notifies nothing. Signals and market regimes are what a write-scope API
-- key can write (POST /api/v1/contracts/{id}/score); migration 015's statement triggers notified
-- `mi_data` for every statement, so a recompute that gave the same answer emptied the response cache
-- of every process. These tables now notify only when a statement inserted, updated or deleted rows
-- (the upserts skip rows whose values are unchanged: src/store/writes.ts). Truncation still always
-- notifies. The other tables keep 015's triggers: only admin ingests and imports write them.
DROP TRIGGER signals_data_changed ON signals;
DROP TRIGGER market_regimes_data_changed ON market_regimes;

CREATE FUNCTION notify_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF EXISTS (SELECT 1 FROM changed_rows) THEN PERFORM pg_notify('mi_data', TG_TABLE_NAME); END IF; RETURN NULL; END $$;

CREATE TRIGGER signals_rows_inserted AFTER INSERT ON signals REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed();
CREATE TRIGGER signals_rows_updated AFTER UPDATE ON signals REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed();
CREATE TRIGGER signals_rows_deleted AFTER DELETE ON signals REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed();
CREATE TRIGGER signals_truncated_data AFTER TRUNCATE ON signals FOR EACH STATEMENT EXECUTE FUNCTION notify_data_change();

CREATE TRIGGER market_regimes_rows_inserted AFTER INSERT ON market_regimes REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed();
CREATE TRIGGER market_regimes_rows_updated AFTER UPDATE ON market_regimes REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed();
CREATE TRIGGER market_regimes_rows_deleted AFTER DELETE ON market_regimes REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed();
CREATE TRIGGER market_regimes_truncated_data AFTER TRUNCATE ON market_regimes FOR EACH STATEMENT EXECUTE FUNCTION notify_data_change();
