-- Truncating contracts truncates signals (migration 009), but `TRUNCATE contracts, signals` failed: the
-- trigger's own TRUNCATE found signals in use by the statement that had just emptied it. The table is
-- locked first (a writer in flight is waited for, as TRUNCATE would) and truncated only if rows are left.
CREATE OR REPLACE FUNCTION truncate_signals_of_truncated_contracts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN LOCK TABLE signals IN ACCESS EXCLUSIVE MODE; IF EXISTS (SELECT 1 FROM signals) THEN TRUNCATE signals; END IF; RETURN NULL; END $$;
