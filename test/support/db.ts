import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Db, openDb } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';

function databaseUnderTest(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error(
      'TEST_DATABASE_URL is not set: run the suite with `npm test` (it starts an embedded PostgreSQL), ' +
        'or point TEST_DATABASE_URL at a PostgreSQL server',
    );
  }
  return url;
}

/**
 * The server the suite runs on: an embedded PostgreSQL that `npm test` started, or (the second pass of
 * .ci/run) the machine's PostgreSQL. Each test database is a scratch database created on it.
 */
export const TEST_DATABASE_URL = databaseUnderTest();
/** Named after the database under test, so two runs on one server (CI, a developer) never share it. */
export const SEED_TEMPLATE = `${new URL(TEST_DATABASE_URL).pathname.slice(1).replace(/\W/g, '_')}_seed`;
/** True when the suite runs on the machine's PostgreSQL (and Redis) rather than the embedded server. */
export const EXTERNAL_DATABASE = !new URL(TEST_DATABASE_URL).searchParams.get('host')?.startsWith('/');

/**
 * The role the app under test connects as, when it is not TEST_DATABASE_URL's: the embedded server's
 * restricted role (scripts/run-tests.ts names it), which owns the `public` schema of every test
 * database (`grantTemplateSchema`) but is no superuser. Unset on an external server.
 */
const APP_ROLE = process.env.TEST_APP_ROLE || null;

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Database `name` as the app under test connects to it. */
function appUrl(name: string): string {
  const parsed = new URL(withDatabase(TEST_DATABASE_URL, name));
  if (APP_ROLE) {
    parsed.username = APP_ROLE;
    parsed.password = '';
  }
  return parsed.toString();
}

/**
 * Gives the app's role the `public` schema of template1, so every database created from it (fresh
 * ones; the seed template, and through it every seeded copy) is the app's to migrate. Once per run.
 */
async function grantTemplateSchema(): Promise<void> {
  if (!APP_ROLE) return;
  const client = new pg.Client({ connectionString: withDatabase(TEST_DATABASE_URL, 'template1') });
  await client.connect();
  try {
    await client.query(`ALTER SCHEMA public OWNER TO ${APP_ROLE}`);
  } finally {
    await client.end();
  }
}

/**
 * CREATE and DROP DATABASE ask for a checkpoint, which fails for the whole server while the fault suite
 * holds a tablespace full (test/faults/disk.test.ts, a few seconds): wait that out instead of failing
 * an unrelated test file.
 */
async function whileCheckpointsFail<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= 30 || !/checkpoint request failed/.test(String((error as Error).message))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** Runs `fn` on a connection to the server's maintenance database (creating and dropping databases). */
function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return whileCheckpointsFail(async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  });
}

/** A scratch PostgreSQL database, dropped when the returned Db closes. */
async function scratchPostgres(template: string | null): Promise<Db> {
  const name = `market_intel_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  const db = await openDb({ databaseUrl: appUrl(name), dataDir: '' });
  return {
    ...db,
    close: async () => {
      await db.close();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** An empty, migrated database of the kind under test. */
export async function freshDb(): Promise<Db> {
  const db = await scratchPostgres(null);
  await migrate(db);
  return db;
}

/** A database holding the seeded demo data, copied from the template scripts/test-setup.ts prepared. */
export function seededDb(): Promise<Db> {
  return scratchPostgres(SEED_TEMPLATE);
}

export { admin, appUrl, grantTemplateSchema, withDatabase };
