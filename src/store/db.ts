import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { lockDataDir } from './dir-lock.ts';

/** What queries need: the same SQL runs on PGlite and on PostgreSQL. */
export interface Queryable {
  query<T>(text: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs several statements separated by semicolons, no parameters. */
  exec(sql: string): Promise<void>;
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** PGlite only: the whole data directory as a gzipped tarball (test fixtures). */
  dump?: () => Promise<Blob>;
}

const OID = { int8: 20, numeric: 1700, date: 1082, timestamp: 1114, timestamptz: 1184 } as const;

/** Dates stay YYYY-MM-DD strings, timestamps become ISO strings, int8/numeric become numbers. */
const PARSERS: Record<number, (value: string) => unknown> = {
  [OID.int8]: Number,
  [OID.numeric]: Number,
  [OID.date]: (value) => value,
  [OID.timestamp]: (value) => new Date(`${value.replace(' ', 'T')}Z`).toISOString(),
  [OID.timestamptz]: (value) =>
    new Date(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString(),
};

export async function openDb(options: { databaseUrl: string | null; dataDir: string }): Promise<Db> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  const dir = path.join(options.dataDir, 'pglite');
  await mkdir(dir, { recursive: true });
  const unlock = await lockDataDir(dir);
  try {
    const db = await openPglite(dir);
    return { ...db, close: () => db.close().finally(unlock) };
  } catch (error) {
    await unlock();
    throw error;
  }
}

/** An in-memory PGlite, for tests and benchmarks; optionally started from a `dump()` snapshot. */
export function openMemoryDb(snapshot?: Blob): Promise<Db> {
  return openPglite(undefined, snapshot);
}

async function openPglite(dir: string | undefined, snapshot?: Blob): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db: PGlite = await PGlite.create({ dataDir: dir, parsers: PARSERS, loadDataDir: snapshot });
  await db.exec("SET TIME ZONE 'UTC'");
  const run = async <T>(q: Pick<PGlite, 'query'>, text: string, params?: readonly unknown[]) =>
    (await q.query<T>(text, params ? [...params] : undefined)).rows;
  return {
    kind: 'pglite',
    query: (text, params) => run(db, text, params),
    exec: async (sql) => {
      await db.exec(sql);
    },
    transaction: (fn) => db.transaction((tx) => fn({ query: (text, params) => run(tx, text, params) })),
    close: () => db.close(),
    dump: () => db.dumpDataDir('gzip'),
  };
}

async function openPostgres(url: string): Promise<Db> {
  const { default: pgModule } = await import('pg');
  for (const [oid, parse] of Object.entries(PARSERS)) pgModule.types.setTypeParser(Number(oid), parse);
  const pool: pg.Pool = new pgModule.Pool({ connectionString: url, max: 10, options: '-c TimeZone=UTC' });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  const run = async <T>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]) =>
    (await client.query(text, params ? [...params] : undefined)).rows as T[];
  return {
    kind: 'postgres',
    query: (text, params) => run(pool, text, params),
    exec: async (sql) => {
      await pool.query(sql);
    },
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({ query: (text, params) => run(client, text, params) });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
