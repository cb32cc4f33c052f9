import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { reresolve } from '../../src/pipeline/reresolve.ts';
import { DEMO_DATA_DIR } from '../../src/pipeline/seed.ts';
import type { Db } from '../../src/store/db.ts';
import { seededDb } from '../support/db.ts';

let db: Db;
let altered: string;

/** The shipped identity data, except that United Technologies never sold Sikorsky. */
async function withoutSikorskySale(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'identity-'));
  await cp(join(DEMO_DATA_DIR, 'identity'), join(dir, 'identity'), { recursive: true });
  const file = join(dir, 'identity', 'edges.csv');
  const lines = (await readFile(file, 'utf8')).split('\n');
  const kept = lines
    .filter((l) => !l.startsWith('sikorsky,lockheed_martin,'))
    .map((l) =>
      l.startsWith('sikorsky,rtx,subsidiary,,2015-11-06,') ? l.replace(',,2015-11-06,', ',,,') : l,
    );
  await writeFile(file, kept.join('\n'));
  return dir;
}

const sikorskyTickers = async () =>
  db.query<{ ticker: string | null; n: number }>(
    `SELECT ticker, count(*)::int AS n FROM contracts WHERE entity_id = 'sikorsky' AND award_date >= '2020-04-03'
     GROUP BY ticker ORDER BY ticker`,
  );

before(async () => {
  db = await seededDb();
  altered = await withoutSikorskySale();
});
after(async () => {
  await db.close();
  await rm(altered, { recursive: true, force: true });
});

describe('reresolve', () => {
  test('with the data the store was seeded with, nothing moves', async () => {
    const r = await reresolve(db, { signalThreshold: 75, dataDir: DEMO_DATA_DIR });
    assert.deepEqual([r.moved, r.changed], [0, 0]);
    assert.equal(r.previousVersion, r.version);
  });

  test('changed identity data moves the awards it concerns, with their signals, and back again', async () => {
    const before = await sikorskyTickers();
    assert.deepEqual(
      before.map((r) => r.ticker),
      ['LMT'],
      'the seeded awards to Sikorsky since 2020-04-03 are Lockheed Martin’s',
    );
    const count = before[0]?.n ?? 0;
    assert.ok(count > 0);
    const changed = await reresolve(db, { signalThreshold: 75, dataDir: altered });
    assert.notEqual(changed.version, changed.previousVersion);
    assert.ok(changed.moved >= count, `${changed.moved} moved`);
    assert.deepEqual(await sikorskyTickers(), [{ ticker: 'RTX', n: count }]);
    const stale = await db.query(
      `SELECT 1 FROM signals s JOIN contracts c ON c.id = s.contract_id WHERE s.ticker IS DISTINCT FROM c.ticker`,
    );
    assert.equal(stale.length, 0, 'every signal names its contract’s ticker');

    const back = await reresolve(db, { signalThreshold: 75, dataDir: DEMO_DATA_DIR });
    assert.equal(back.moved, changed.moved);
    assert.deepEqual(await sikorskyTickers(), before);
  });

  test('identity data that contradicts itself is refused before anything is written', async () => {
    const file = join(altered, 'identity', 'edges.csv');
    const good = await readFile(file, 'utf8');
    await writeFile(file, `${good.trimEnd()}\nsikorsky,boeing,acquired,2016-01-01,,,https://example.org/x\n`);
    const [before] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM identity_edges');
    await assert.rejects(
      reresolve(db, { signalThreshold: 75, dataDir: altered }),
      /inconsistent:[\s\S]*sikorsky has two owners at once/,
    );
    const [after] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM identity_edges');
    assert.deepEqual(after, before);
    await writeFile(file, good);
  });

  test('a contract resolved before versions were stored is brought up to date', async () => {
    const [row] = await db.query<{ id: string }>(
      `UPDATE contracts SET resolver_version = NULL, entity_id = NULL, series_ticker = NULL
       WHERE id = (SELECT id FROM contracts WHERE entity_id = 'sikorsky' ORDER BY id LIMIT 1) RETURNING id`,
    );
    const r = await reresolve(db, { signalThreshold: 75, dataDir: DEMO_DATA_DIR });
    assert.deepEqual([r.moved, r.changed], [0, 1]);
    const [stored] = await db.query<{ entity_id: string; resolver_version: string }>(
      'SELECT entity_id, resolver_version FROM contracts WHERE id = $1',
      [row?.id],
    );
    assert.deepEqual(stored, { entity_id: 'sikorsky', resolver_version: r.version });
  });
});
