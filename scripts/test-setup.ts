/**
 * Seeds the demo data once per test run, so each test file starts from a copy instead of re-seeding:
 * a PGlite snapshot file, or (with TEST_DATABASE_URL) a template database on PostgreSQL.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { seed } from '../src/pipeline/seed.ts';
import { openDb, openMemoryDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { admin, SEED_SNAPSHOT, SEED_TEMPLATE, TEST_DATABASE_URL, withDatabase } from '../test/support/db.ts';

const started = Date.now();
const log = (line: string) => process.stderr.write(`test-setup: ${line}\n`);

if (TEST_DATABASE_URL) {
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${SEED_TEMPLATE} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${SEED_TEMPLATE}`);
  });
  const db = await openDb({ databaseUrl: withDatabase(TEST_DATABASE_URL, SEED_TEMPLATE), dataDir: '' });
  await migrate(db);
  await seed(db, { signalThreshold: 75 });
  await db.close();
  log(`seeded template database ${SEED_TEMPLATE} in ${Date.now() - started} ms`);
} else {
  const db = await openMemoryDb();
  await migrate(db);
  await seed(db, { signalThreshold: 75 });
  const dump = await db.dump?.();
  if (!dump) throw new Error('PGlite dump unavailable');
  await mkdir(new URL('.', SEED_SNAPSHOT), { recursive: true });
  await writeFile(SEED_SNAPSHOT, Buffer.from(await dump.arrayBuffer()));
  await db.close();
  log(`seeded PGlite snapshot in ${Date.now() - started} ms`);
}
