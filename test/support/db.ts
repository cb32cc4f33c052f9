import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { type Db, openDb, openMemoryDb } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';

/** Set by .ci/run for the second pass: the same suite against the machine's PostgreSQL. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const SEED_SNAPSHOT = new URL('../../var/test-seed.tar.gz', import.meta.url);
/** Named after the database under test, so two runs on one server (CI, a developer) never share it. */
export const SEED_TEMPLATE = `${(TEST_DATABASE_URL ? new URL(TEST_DATABASE_URL).pathname.slice(1) : 'test').replace(/\W/g, '_')}_seed`;

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL ?? undefined });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A scratch PostgreSQL database, dropped when the returned Db closes. */
async function scratchPostgres(template: string | null): Promise<Db> {
  const base = TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `market_intel_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  const db = await openDb({ databaseUrl: withDatabase(base, name), dataDir: '' });
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
  const db = TEST_DATABASE_URL ? await scratchPostgres(null) : await openMemoryDb();
  await migrate(db);
  return db;
}

/** A database holding the seeded demo data, copied from what scripts/test-setup.ts prepared. */
export async function seededDb(): Promise<Db> {
  if (TEST_DATABASE_URL) return scratchPostgres(SEED_TEMPLATE);
  const snapshot = await readFile(SEED_SNAPSHOT).catch(() => {
    throw new Error(
      'no seeded snapshot: run the suite with `npm test` (it runs scripts/test-setup.ts first)',
    );
  });
  return openMemoryDb(new Blob([snapshot]));
}

export { admin, withDatabase };
