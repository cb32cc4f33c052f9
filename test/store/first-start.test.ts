/**
 * A server's first start on an empty database loads the demo data and then vacuums and analyses it
 * itself, so autovacuum's first round does not fall a minute into serving (prepare.ts `settle`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { prepare } from '../../src/prepare.ts';
import type { Db } from '../../src/store/db.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
before(async () => {
  db = await freshDb();
});
after(async () => {
  await db.close();
});

test('a first start loads the demo data, then vacuums and analyses every table it wrote', async () => {
  const lines: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await prepare(db, loadConfig({}), { seedIfEmpty: true });
  } finally {
    process.stderr.write = write;
  }
  assert.ok(
    lines.some((l) => /^demo data vacuumed and analysed in \d+\.\d s$/m.test(l)),
    lines.join(''),
  );
  const tables = await db.query<{ relname: string; vacuumed: boolean; analysed: boolean }>(
    `SELECT relname, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analysed
     FROM pg_stat_user_tables WHERE n_live_tup > 0 ORDER BY relname`,
  );
  for (const name of ['candles', 'companies', 'contracts', 'signals']) {
    assert.ok(
      tables.some((t) => t.relname === name),
      `${name} holds the demo data`,
    );
  }
  assert.deepEqual(
    tables.filter((t) => !t.vacuumed || !t.analysed).map((t) => t.relname),
    [],
    'every table holding rows was vacuumed and analysed by the start',
  );
});
