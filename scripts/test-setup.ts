/**
 * Seeds the demo data once per test run into a template database, so each test file starts from a
 * copy (CREATE DATABASE … TEMPLATE) instead of re-seeding.
 */
import { seed } from '../src/pipeline/seed.ts';
import { openDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { admin, appUrl, grantTemplateSchema, SEED_TEMPLATE } from '../test/support/db.ts';

const started = Date.now();
await grantTemplateSchema();
await admin(async (c) => {
  await c.query(`DROP DATABASE IF EXISTS ${SEED_TEMPLATE} WITH (FORCE)`);
  await c.query(`CREATE DATABASE ${SEED_TEMPLATE}`);
});
const db = await openDb({ databaseUrl: appUrl(SEED_TEMPLATE), dataDir: '' });
await migrate(db);
await seed(db, { signalThreshold: 75 });
await db.close();
process.stderr.write(`test-setup: seeded template database ${SEED_TEMPLATE} in ${Date.now() - started} ms\n`);
