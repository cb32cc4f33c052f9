import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createPipelineContext, type PipelineContext } from '../../src/pipeline/context.ts';
import { type AwardFileResult, importAwardFile } from '../../src/pipeline/import.ts';
import { ImportPool, shareOut } from '../../src/pipeline/import-pool.ts';
import { packAwards, unpackAwards } from '../../src/pipeline/import-protocol.ts';
import { readAwardText } from '../../src/sources/award-files.ts';
import { BULK_COLUMNS, textValue } from '../../src/sources/awards.ts';
import { toCsv } from '../../src/sources/csv.ts';
import type { Db } from '../../src/store/db.ts';
import { seededDb } from '../support/db.ts';
import { recordedBulkRecords } from '../support/fake-usaspending.ts';

let db: Db;
let ctx: PipelineContext;
let dir: string;
let csv: string;
let ids: string[];

/** Chunks of 7 awards: the file's ~60 rows go to the threads in nine chunks. */
const THREADED = { threads: 2, threadsFrom: 1, chunkSize: 7 } as const;
const ONE_THREAD = { threads: 1, chunkSize: 7 } as const;

/**
 * What an import leaves behind, without what differs from run to run (timestamps, signal ids): every
 * column of the file's contracts, their signals (each carrying its contract's availability), the regimes of their dates and the unmatched tally.
 */
async function state(): Promise<Record<string, string[]>> {
  const rows = async (sql: string) => (await db.query<{ k: string }>(sql, [ids])).map((r) => r.k);
  const signals = await rows(
    // A signal's available_at is its contract's (an import-time stamp): compared as that, not as a time.
    `SELECT (to_jsonb(s) - 'id' - 'computed_at' - 'available_at')
       || jsonb_build_object('available_as_contract', s.available_at IS NOT DISTINCT FROM c.available_at) AS k
     FROM signals s JOIN contracts c ON c.id = s.contract_id WHERE s.contract_id = ANY($1::text[])
     ORDER BY s.contract_id, s.engine_name`,
  );
  assert.ok(
    // The driver hands jsonb over parsed, whatever the row type says.
    signals.every((k) => (k as unknown as { available_as_contract: boolean }).available_as_contract === true),
    "every signal carries its contract's available_at",
  );
  return {
    contracts: await rows(
      `SELECT to_jsonb(c) - 'first_seen_at' - 'updated_at' - 'available_at' AS k FROM contracts c
       WHERE id = ANY($1::text[]) ORDER BY id`,
    ),
    signals,
    regimes: await rows(
      `SELECT to_jsonb(r) - 'computed_at' AS k FROM market_regimes r WHERE award_date IN (
         SELECT award_date FROM contracts WHERE id = ANY($1::text[])) ORDER BY award_date`,
    ),
    unmatched: await rows(
      'SELECT to_jsonb(u) AS k FROM unmatched_recipients u WHERE $1::text[] IS NOT NULL ORDER BY name_norm',
    ),
  };
}

const counts = ({ rejected: _r, ...rest }: AwardFileResult) => rest;

async function forget(): Promise<void> {
  await db.query('DELETE FROM contracts WHERE id = ANY($1::text[])', [ids]);
  await db.query('TRUNCATE unmatched_recipients');
}

before(async () => {
  db = await seededDb();
  ctx = await createPipelineContext(db, { signalThreshold: 75 });
  dir = await mkdtemp(path.join(tmpdir(), 'mi-threads-'));
  const records = recordedBulkRecords().slice(0, 60);
  const rows = records.map((r) => BULK_COLUMNS.map((c) => textValue(r[c]) ?? ''));
  const valueAt = BULK_COLUMNS.indexOf('current_total_value_of_award');
  const modifiedAt = BULK_COLUMNS.indexOf('last_modified_date');
  // The first award again near the end, changed and modified later: it must be written after the first
  // (it is in another chunk, so likely another thread), as one thread would write it.
  const again = [...(rows[0] as string[])];
  again[valueAt] = '123456789';
  again[modifiedAt] = '2030-01-01 00:00:00';
  rows.splice(55, 0, again);
  // A row the parser rejects: counted and reported by the importing thread.
  rows.splice(
    20,
    0,
    BULK_COLUMNS.map(() => ''),
  );
  csv = path.join(dir, 'awards.csv');
  await writeFile(csv, toCsv(BULK_COLUMNS, rows));
  ids = [...new Set(records.map((r) => String(r.contract_award_unique_key)))];
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(forget);

describe('a file imported by threads (import-pool.ts)', () => {
  test('stores, resolves, scores and tallies exactly as one thread does', async () => {
    const single = await importAwardFile(ctx, csv, ONE_THREAD);
    const expected = await state();
    assert.ok(single.signals_created > 0 && single.unmatched > 0 && single.rejectedTotal === 1);
    const [first] = await db.query<{ v: number }>('SELECT contract_value AS v FROM contracts WHERE id = $1', [
      ids[0],
    ]);
    assert.equal(first?.v, 123456789, 'the later record of a repeated id wins');

    await forget();
    const lines: string[] = [];
    const threaded = await importAwardFile(ctx, csv, { ...THREADED, log: (line) => lines.push(line) });
    assert.ok(lines.includes('import: 2 threads resolve, classify, write and score'), lines.join('\n'));
    assert.deepEqual(counts(threaded), counts(single));
    assert.deepEqual(threaded.rejected, single.rejected);
    assert.deepEqual(await state(), expected);
  });

  test('importing the same file again writes what one thread writes, and leaves the same state', async () => {
    await importAwardFile(ctx, csv, ONE_THREAD);
    const once = counts(await importAwardFile(ctx, csv, ONE_THREAD));
    const expected = await state();
    await forget();
    await importAwardFile(ctx, csv, THREADED);
    const again = await importAwardFile(ctx, csv, THREADED);
    // Nothing new; only the repeated id, whose two versions take turns, is updated.
    assert.equal(again.inserted, 0);
    assert.equal(again.updated, 2);
    assert.deepEqual(counts(again), once);
    assert.deepEqual(await state(), expected);
  });

  test('an import that stopped before scoring is completed by importing the file again', async () => {
    await importAwardFile(ctx, csv, THREADED);
    const expected = await state();
    // As a crash between storing and scoring leaves it: contracts and tally stored, no signals.
    await db.query('DELETE FROM signals WHERE contract_id = ANY($1::text[])', [ids]);
    const again = await importAwardFile(ctx, csv, THREADED);
    assert.equal(again.inserted, 0);
    assert.ok(again.signals_created > 0);
    assert.deepEqual(await state(), expected);
  });

  test('with the list indexes deferred, they are built again and the results are the same', async () => {
    await db.query('TRUNCATE contracts');
    await importAwardFile(ctx, csv, ONE_THREAD);
    const expected = await state();
    await db.query('TRUNCATE contracts');
    await db.query('TRUNCATE unmatched_recipients');
    const lines: string[] = [];
    await importAwardFile(ctx, csv, { ...THREADED, deferIndexesFrom: 1, log: (line) => lines.push(line) });
    assert.ok(
      lines.some((l) => l.startsWith('indexes: built contracts_')),
      lines.join('\n'),
    );
    assert.deepEqual(await db.query('SELECT name FROM deferred_indexes'), []);
    assert.deepEqual(await state(), expected);
  });

  test("a thread's failure fails the import, and deferred indexes are built all the same", async () => {
    await db.query('TRUNCATE contracts');
    await db.exec(`
      CREATE TABLE refused_ids (id text PRIMARY KEY);
      CREATE FUNCTION refuse_listed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF EXISTS (SELECT 1 FROM refused_ids WHERE id = NEW.id) THEN
          RAISE EXCEPTION 'refused %', NEW.id USING ERRCODE = 'P0001'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_listed BEFORE INSERT ON contracts FOR EACH ROW EXECUTE FUNCTION refuse_listed();`);
    try {
      await db.query('INSERT INTO refused_ids VALUES ($1)', [ids[40]]);
      await assert.rejects(
        importAwardFile(ctx, csv, { ...THREADED, deferIndexesFrom: 1 }),
        (error: Error) => {
          assert.match(error.message, /refused CONT_AWD_/);
          assert.equal((error as { code?: string }).code, 'P0001');
          return true;
        },
      );
      assert.deepEqual(await db.query('SELECT name FROM deferred_indexes'), []);
      const [built] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_indexes WHERE indexname IN ('contracts_by_ticker', 'signals_ranked')`,
      );
      assert.equal(built?.n, 2);
    } finally {
      await db.exec(
        'DROP TRIGGER refuse_listed ON contracts; DROP FUNCTION refuse_listed(); DROP TABLE refused_ids',
      );
    }
  });
});

describe('a pool that cannot start', () => {
  // Its threads end on their own after reporting the failure: closing must not wait for an exit already past.
  test("fails with the thread's error, and is closed", { timeout: 30_000 }, async () => {
    const url = new URL(db.url);
    url.pathname = '/market_intel_no_such_database';
    await assert.rejects(
      ImportPool.start({ url: url.toString(), signalThreshold: 75, batchSize: 5000 }, 2),
      /does not exist/,
    );
  });
});

describe('what crosses to a thread', () => {
  test('awards packed a column at a time come back equal, field order included', async () => {
    const { awards } = await readAwardText(await readFile(csv, 'utf8'), 'csv');
    const back = unpackAwards(structuredClone(packAwards(awards)));
    assert.deepEqual(back, awards);
    assert.deepEqual(
      back.map((a) => Object.keys(a)),
      awards.map((a) => Object.keys(a)),
    );
  });

  test('tickers are shared out by their contracts, largest first, each share in ticker order', () => {
    const shares = shareOut(
      [
        { ticker: 'BA', n: 5 },
        { ticker: 'GD', n: 1 },
        { ticker: 'LMT', n: 9 },
        { ticker: 'NOC', n: 4 },
        { ticker: 'RTX', n: 2 },
      ],
      2,
    );
    assert.deepEqual(
      shares.map((share) => share.map((t) => t.ticker)),
      [
        ['LMT', 'RTX'],
        ['BA', 'GD', 'NOC'],
      ],
    );
  });
});
