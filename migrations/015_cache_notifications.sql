-- The caches of each process (src/infra/key-cache.ts, response-cache.ts) learn of writes from
-- notifications sent by triggers inside the writing transaction, so every writer is covered: the API,
-- the CLI, an import, a psql session. A notification is delivered when, and only if, its transaction
-- commits. Channels: src/store/notifications.ts.

-- Keys as authentication sees them: the key's row, its owner's plan and admin flag. Row triggers send
-- `key:<id>` or `user:<id>`, truncation `all`. New keys need none (lookups that find nothing are not
-- cached), nor the usage flush's last_used_at. A column added to api_keys belongs in the list below.
CREATE FUNCTION notify_account_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_LEVEL = 'STATEMENT' THEN PERFORM pg_notify('mi_keys', 'all'); ELSE PERFORM pg_notify('mi_keys', TG_ARGV[0] || ':' || OLD.id); END IF; RETURN NULL; END $$;

CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys FOR EACH ROW
  WHEN ((OLD.id, OLD.user_id, OLD.name, OLD.mode, OLD.scopes, OLD.hash, OLD.display_prefix, OLD.created_at, OLD.revoked_at)
    IS DISTINCT FROM (NEW.id, NEW.user_id, NEW.name, NEW.mode, NEW.scopes, NEW.hash, NEW.display_prefix, NEW.created_at, NEW.revoked_at))
  EXECUTE FUNCTION notify_account_change('key');
CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_account_change('key');
CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_account_change();

CREATE TRIGGER users_changed AFTER UPDATE ON users FOR EACH ROW
  WHEN ((OLD.id, OLD.plan, OLD.is_admin) IS DISTINCT FROM (NEW.id, NEW.plan, NEW.is_admin))
  EXECUTE FUNCTION notify_account_change('user');
CREATE TRIGGER users_deleted AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION notify_account_change('user');
CREATE TRIGGER users_truncated AFTER TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION notify_account_change();

-- The tables the read endpoints answer from (the regimes view reads contracts and market_regimes):
-- one notification per statement, naming the table. Identical notifications of one transaction are
-- delivered once, so a large import sends a handful. Each starts a new data version in every process.
CREATE FUNCTION notify_data_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('mi_data', TG_TABLE_NAME); RETURN NULL; END $$;

CREATE TRIGGER contracts_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON contracts FOR EACH STATEMENT EXECUTE FUNCTION notify_data_change();
CREATE TRIGGER signals_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON signals FOR EACH STATEMENT EXECUTE FUNCTION notify_data_change();
CREATE TRIGGER candles_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON candles FOR EACH STATEMENT EXECUTE FUNCTION notify_data_change();
CREATE TRIGGER market_regimes_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON market_regimes FOR EACH STATEMENT EXECUTE FUNCTION notify_data_change();
CREATE TRIGGER companies_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON companies FOR EACH STATEMENT EXECUTE FUNCTION notify_data_change();
CREATE TRIGGER company_aliases_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON company_aliases FOR EACH STATEMENT EXECUTE FUNCTION notify_data_change();
