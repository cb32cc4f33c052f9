/**
 * The roles of the embedded cluster. initdb makes one role, the superuser `postgres`; the service never
 * uses it past this setup. The app (serve, workers, one-off commands, migrations) connects as
 * `market_intel`: no superuser, no CREATEDB/CREATEROLE/REPLICATION/BYPASSRLS, no membership of the
 * file-reading roles, owner of the `public` schema of the `postgres` database and of everything in it,
 * and nothing else. So an injected query cannot read or write the host's files
 * (`pg_read_file`, `COPY … TO/FROM PROGRAM`, server-side `COPY … FROM '/file'`, `lo_import`) nor make
 * roles or databases. See docs/EMBEDDED-POSTGRES.md ("Roles").
 */
import pg from 'pg';

/** The role the app connects as. */
export const APP_ROLE = 'market_intel';
/** initdb's superuser: creates the app role and hands it the schema. */
export const ADMIN_ROLE = 'postgres';
/** The app's database (earlier versions kept their tables in it: it stays). */
export const APP_DATABASE = 'postgres';

/**
 * Run at every start, as the superuser: idempotent, and it also migrates a cluster made by an earlier
 * version, whose tables the superuser owned. Sequences of serial and identity columns follow their
 * tables; indexes and triggers too.
 */
const SETUP = `
DO $setup$
DECLARE
  o record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN
    CREATE ROLE ${APP_ROLE} LOGIN;
  END IF;
  ALTER ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
  FOR o IN
    SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
    WHERE m.member = '${APP_ROLE}'::regrole
  LOOP
    EXECUTE format('REVOKE %I FROM ${APP_ROLE}', o.rolname);
  END LOOP;
  FOR o IN
    SELECT c.oid::regclass AS name,
      CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
        WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'c' THEN 'TYPE' ELSE 'TABLE' END AS kind
    FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relowner <> '${APP_ROLE}'::regrole
      AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c')
      AND NOT (c.relkind = 'S' AND EXISTS (
        SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${APP_ROLE}', o.kind, o.name);
  END LOOP;
  FOR o IN
    SELECT p.oid::regprocedure AS name FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> '${APP_ROLE}'::regrole
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO ${APP_ROLE}', o.name);
  END LOOP;
  FOR o IN
    SELECT t.oid::regtype AS name, CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END AS kind FROM pg_type t
    WHERE t.typnamespace = 'public'::regnamespace AND t.typowner <> '${APP_ROLE}'::regrole
      AND t.typtype IN ('e', 'd', 'r', 'm')
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${APP_ROLE}', o.kind, o.name);
  END LOOP;
END
$setup$;
ALTER SCHEMA public OWNER TO ${APP_ROLE};
REVOKE ALL ON DATABASE ${APP_DATABASE} FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE ${APP_DATABASE} TO ${APP_ROLE};
REVOKE CONNECT ON DATABASE template1 FROM PUBLIC;
`;

/** Creates (or re-restricts) the app role and hands it the app's schema, over `adminUrl`. */
export async function setUpRoles(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(SETUP);
  } finally {
    await client.end();
  }
}
