import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Engine } from '../../src/domain/types.ts';
import { createPipelineContext, type PipelineContext } from '../../src/pipeline/context.ts';
import { importAwardFile } from '../../src/pipeline/import.ts';
import { BULK_COLUMNS, textValue } from '../../src/sources/awards.ts';
import { toCsv } from '../../src/sources/csv.ts';
import type { Db } from '../../src/store/db.ts';
import { deferIndexes, restoreAbandonedIndexes, restoreIndexes } from '../../src/store/deferred-indexes.ts';
import { migrate } from '../../src/store/migrate.ts';
import { seededDb } from '../support/db.ts';
import { recordedBulkRecords } from '../support/fake-usaspending.ts';
import { assertSummed, assertTotalsAreContracts } from '../support/totals.ts';

let db: Db;
let ctx: PipelineContext;
let dir: string;
let csv: string;
let ids: string[];
/** Every index of contracts and signals as the migrations left them. */
let migrated: string[];

const LIST_INDEXES = [
  'contracts_available',
  'contracts_available_early',
  'contracts_by_agency',
  'contracts_by_class',
  'contracts_by_ticker',
  'contracts_by_ticker_class',
  'contracts_events',
  'contracts_piid',
  'signals_by_availability',
  'signals_by_ticker',
  'signals_ranked',
];

async function indexes(): Promise<string[]> {
  const rows = await db.query<{ d: string }>(
    `SELECT indexname || ': ' || indexdef AS d FROM pg_indexes
     WHERE tablename IN ('contracts', 'signals') ORDER BY indexname`,
  );
  return rows.map((r) => r.d);
}

const names = (defs: string[]) => defs.map((d) => d.slice(0, d.indexOf(':')));

const hasDeferredIndexes = async (): Promise<boolean> =>
  (await db.query('SELECT 1 FROM deferred_indexes LIMIT 1')).length > 0;

/** Holders of an import's ownership of its deferred indexes (advisory lock 7426015) in this database. */
async function advisoryLocks(): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks
     WHERE locktype = 'advisory' AND objid = 7426015
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  return row?.n ?? 0;
}

async function signalRows(): Promise<string[]> {
  const rows = await db.query<{ k: string }>(
    `SELECT contract_id || ' ' || engine_name || ' ' || signal_score || ' ' || rationale AS k
     FROM signals WHERE contract_id = ANY($1::text[]) ORDER BY 1`,
    [ids],
  );
  return rows.map((r) => r.k);
}

/** Every stored column of the file's contracts but the import's timestamps, in id order. */
async function contractRows(): Promise<unknown[]> {
  const rows = await db.query<{ row: unknown }>(
    `SELECT to_jsonb(c) - 'first_seen_at' - 'available_at' - 'updated_at' AS row
     FROM contracts c WHERE id = ANY($1::text[]) ORDER BY id`,
    [ids],
  );
  return rows.map((r) => r.row);
}

/** Whether the triggers keeping the contracts' totals (migration 029) are on, and a deferral recorded. */
async function totalsState(): Promise<{ triggers: string[]; deferred: boolean }> {
  const triggers = await db.query<{ t: string }>(
    `SELECT tgname || ' ' || tgenabled::text AS t FROM pg_trigger
     WHERE tgrelid = 'contracts'::regclass AND tgname LIKE 'contracts\\_totals\\_%' ORDER BY tgname`,
  );
  const deferred = await db.query('SELECT 1 FROM deferred_contract_totals');
  return { triggers: triggers.map((r) => r.t), deferred: deferred.length > 0 };
}

/** 'O': fires (origin and local sessions); 'D': disabled. TRUNCATE's stays on throughout. */
const TOTALS_KEPT = {
  triggers: [
    'contracts_totals_deleted O',
    'contracts_totals_inserted O',
    'contracts_totals_truncated O',
    'contracts_totals_updated O',
  ],
  deferred: false,
};
const TOTALS_DEFERRED = {
  triggers: [
    'contracts_totals_deleted D',
    'contracts_totals_inserted D',
    'contracts_totals_truncated O',
    'contracts_totals_updated D',
  ],
  deferred: true,
};

/** The tickers of the file's stored contracts, each one's totals as the company page reads them. */
async function assertTotalsRead(): Promise<void> {
  const tickers = await db.query<{ ticker: string }>(
    'SELECT DISTINCT ticker FROM contracts WHERE id = ANY($1::text[]) AND ticker IS NOT NULL ORDER BY 1',
    [ids],
  );
  assert.ok(tickers.length > 0);
  for (const { ticker } of tickers) await assertTotalsAreContracts(db, ticker);
}

before(async () => {
  db = await seededDb();
  ctx = await createPipelineContext(db, { signalThreshold: 75 });
  dir = await mkdtemp(path.join(tmpdir(), 'mi-deferred-'));
  const records = recordedBulkRecords().slice(0, 40);
  ids = records.map((r) => String(r.contract_award_unique_key));
  csv = path.join(dir, 'awards.csv');
  await writeFile(
    csv,
    toCsv(
      BULK_COLUMNS,
      records.map((r) => BULK_COLUMNS.map((c) => textValue(r[c]) ?? '')),
    ),
  );
  migrated = await indexes();
  assert.deepEqual(
    LIST_INDEXES.filter((n) => !names(migrated).includes(n)),
    [],
  );
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await db.query('DELETE FROM contracts WHERE id = ANY($1::text[])', [ids]);
});

describe('list indexes deferred by a large import', () => {
  // First: the tests after it empty the table.
  test('an import smaller than what the table holds writes through the indexes', async () => {
    const [held] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts');
    assert.ok((held?.n ?? 0) > 40, 'the seeded contracts outnumber the file');
    const lines: string[] = [];
    await importAwardFile(ctx, csv, { deferIndexesFrom: 1, log: (line) => lines.push(line) });
    assert.deepEqual(
      lines.filter((l) => /list indexes|^indexes:/.test(l)),
      [],
    );
    assert.deepEqual(await indexes(), migrated);
  });

  test('an import at least the size of the table builds the list indexes at its end, with the same results', async () => {
    await db.query('TRUNCATE contracts');
    const written = await importAwardFile(ctx, csv, { deferIndexesFrom: Number.POSITIVE_INFINITY });
    assert.ok(written.signals_created > 0);
    const expected = await signalRows();
    const expectedContracts = await contractRows();

    await db.query('TRUNCATE contracts');
    const lines: string[] = [];
    let during: Promise<string[]> | null = null;
    // Another process starting meanwhile builds none of them.
    let otherStart: Promise<string[]> | null = null;
    // The contracts' totals are not kept meanwhile (the company page sums the contracts: below).
    let totalsDuring: Promise<{ triggers: string[]; deferred: boolean }> | null = null;
    const deferred = await importAwardFile(ctx, csv, {
      deferIndexesFrom: 1,
      log: (line) => {
        lines.push(line);
        if (!line.startsWith('import: 40 records read')) return;
        during ??= indexes();
        totalsDuring ??= totalsState();
        otherStart ??= during.then(() => restoreAbandonedIndexes(db));
      },
    });
    assert.deepEqual(await (totalsDuring ?? Promise.resolve(null)), TOTALS_DEFERRED);
    assert.deepEqual(await (otherStart ?? Promise.resolve([])), []);
    assert.ok(otherStart, 'the other start ran during the import');
    assert.ok(lines.some((l) => /the 11 list indexes of contracts and signals are built at the end/.test(l)));
    // While the rows went in, only the primary keys (and the BRIN range index) were maintained.
    assert.deepEqual(
      names(await (during ?? Promise.resolve([]))).filter((n) => LIST_INDEXES.includes(n)),
      [],
    );
    assert.ok(
      lines.some((l) =>
        l.startsWith('indexes: built contracts_available, contracts_available_early, contracts_by_agency'),
      ),
    );
    assert.ok(
      lines.some((l) =>
        l.startsWith('indexes: built signals_by_availability, signals_by_ticker, signals_ranked'),
      ),
    );
    assert.deepEqual(await indexes(), migrated);
    assert.equal(await hasDeferredIndexes(), false);
    assert.equal(await advisoryLocks(), 0, 'the import let go of its deferral');
    assert.equal(deferred.inserted, written.inserted);
    assert.equal(deferred.signals_created, written.signals_created);
    assert.deepEqual(await signalRows(), expected);
    assert.deepEqual(await contractRows(), expectedContracts);
    // Summed once at the end, and kept by the triggers again.
    assert.deepEqual(await totalsState(), TOTALS_KEPT);
    await assertSummed(db, 'after the import');
    await assertTotalsRead();
  });

  test('an import that fails after deferring builds the indexes before it reports the failure', async () => {
    await db.query('TRUNCATE contracts');
    const failing: Engine = {
      ...(ctx.engines[0] as Engine),
      name: 'failing',
      score: () => {
        throw new Error('engine failed');
      },
    };
    await assert.rejects(
      importAwardFile({ ...ctx, engines: [...ctx.engines, failing] }, csv, { deferIndexesFrom: 1 }),
      /engine failed/,
    );
    assert.deepEqual(await indexes(), migrated);
    assert.equal(await hasDeferredIndexes(), false);
    assert.deepEqual(await totalsState(), TOTALS_KEPT);
    await assertSummed(db, 'after the failed import');
  });
});

describe('deferred index records', () => {
  test('an import that stopped mid-way leaves a record; the next start (migrate) builds the indexes', async () => {
    const deferral = await deferIndexes(db, ['contracts', 'signals']);
    try {
      assert.deepEqual(deferral.names, LIST_INDEXES);
      assert.deepEqual(
        names(await indexes()).filter((n) => LIST_INDEXES.includes(n)),
        [],
      );
      // A second import meanwhile leaves them alone: the first one's record stands.
      assert.deepEqual((await deferIndexes(db, ['contracts', 'signals'])).names, []);
      assert.equal(await hasDeferredIndexes(), true);
    } finally {
      // The process stops: with it goes its ownership, and the record is left.
      await deferral.release();
    }
    assert.equal(await hasDeferredIndexes(), true);
    await migrate(db);
    assert.deepEqual(await indexes(), migrated);
    assert.equal(await hasDeferredIndexes(), false);
  });

  test("an import that stopped mid-way leaves the contracts' totals to the next start, read right meanwhile", async () => {
    const contract = (id: string, value: number) =>
      db.query(
        `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
           nlp_classification, match_confidence, match_method)
         VALUES ($1, 'LMT', 'Deferred Totals Test', '2024-05-01', $2, 'Deferred Totals Agency', 'aircraft', 1, 'exact')`,
        [id, value],
      );
    const added = ['CONT_AWD_DEFERRED_TOTALS_1', 'CONT_AWD_DEFERRED_TOTALS_2'];
    try {
      assert.deepEqual(await totalsState(), TOTALS_KEPT);
      const deferral = await deferIndexes(db, ['contracts', 'signals']);
      try {
        assert.deepEqual(await totalsState(), TOTALS_DEFERRED);
        await contract(added[0] as string, 1234);
        await assert.rejects(assertSummed(db, 'written while deferred'));
        await assertTotalsAreContracts(db, 'LMT');
      } finally {
        // The process stops; the record stays, and so do the totals' triggers, off.
        await deferral.release();
      }
      assert.deepEqual(await totalsState(), TOTALS_DEFERRED);
      await migrate(db);
      assert.deepEqual(await totalsState(), TOTALS_KEPT);
      await assertSummed(db, 'summed again at the start');
      await contract(added[1] as string, 99);
      await assertSummed(db, 'kept again');
      await assertTotalsAreContracts(db, 'LMT');
    } finally {
      await db.query('DELETE FROM contracts WHERE id = ANY($1::text[])', [added]);
    }
  });

  test('a start while another process still imports leaves that import its indexes to build', async () => {
    const deferral = await deferIndexes(db, ['contracts', 'signals']);
    try {
      assert.deepEqual(deferral.names, LIST_INDEXES);
      // migrate's queries run on other connections of the pool than the import's: other sessions,
      // as another process's would be.
      await migrate(db);
      assert.deepEqual(
        names(await indexes()).filter((n) => LIST_INDEXES.includes(n)),
        [],
      );
      assert.equal(await hasDeferredIndexes(), true);
      assert.deepEqual(await totalsState(), TOTALS_DEFERRED);
    } finally {
      await deferral.release();
    }
    assert.equal(await advisoryLocks(), 0);
    await migrate(db);
    assert.deepEqual(await indexes(), migrated);
    assert.equal(await hasDeferredIndexes(), false);
    assert.deepEqual(await totalsState(), TOTALS_KEPT);
  });

  test('restoring builds only what is missing and clears the records of indexes that exist', async () => {
    await db.query(
      `INSERT INTO deferred_indexes (name, table_name, definition) VALUES
         ('contracts_events', 'contracts', 'CREATE INDEX contracts_events ON contracts (id)')`,
    );
    assert.deepEqual(await restoreIndexes(db), []);
    assert.deepEqual(await indexes(), migrated);
    assert.equal(await hasDeferredIndexes(), false);
  });
});
