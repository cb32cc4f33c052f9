import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Db } from '../../src/store/db.ts';
import { companyTotals } from '../../src/store/market.ts';
import { seededDb } from '../support/db.ts';
import { assertSummed, assertTotalsAreContracts } from '../support/totals.ts';

// Migration 029 keeps the contracts' count and value by (ticker, agency, classification) in
// `contract_totals` and the append-only `contract_total_deltas`, from statement triggers on contracts.
// Whatever writes the contracts, the two must sum to what a GROUP BY over the contracts gives.

const deltas = async (db: Db) =>
  Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM contract_total_deltas'))[0]?.n);

let serial = 0;
/** A contract's columns as an INSERT's VALUES row (ids unique within the test file). */
function contract(ticker: string | null, agency: string, classification: string, value: number): string {
  serial += 1;
  const t = ticker === null ? 'NULL' : `'${ticker}'`;
  return `('CONT_AWD_TOTALS${serial}_9700', ${t}, 'Recipient ${serial}', '2024-05-01', ${value}, '${agency}',
    '${classification}', 1, 'exact')`;
}
const INSERT = `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
  nlp_classification, match_confidence, match_method) VALUES`;

describe("contracts' totals (migration 029)", () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
  });
  after(async () => db.close());

  test('the migration sums the contracts stored before it; seeding adds to it', async () => {
    await assertSummed(db, 'seeded');
  });

  test('inserts (VALUES, COPY, upserts), updates of each column summed, deletes', async () => {
    await db.exec(`${INSERT} ${contract('LMT', 'Department of the Navy', 'aircraft', 1000)},
      ${contract('LMT', 'Totals Test Agency', 'aircraft', 250)}, ${contract(null, 'Totals Test Agency', 'ships', 7)}`);
    await assertSummed(db, 'inserted');
    await db.transaction((tx) =>
      tx.copyFrom(
        'contracts',
        [
          'id',
          'ticker',
          'recipient_name',
          'award_date',
          'contract_value',
          'awarding_agency',
          'nlp_classification',
          'match_confidence',
          'match_method',
        ],
        [1, 2, 3],
        (n) => [
          `CONT_AWD_TOTALSCOPY${n}_9700`,
          'GD',
          `Copied ${n}`,
          '2024-06-01',
          100 * n,
          'Totals Test Agency',
          'ships',
          1,
          'exact',
        ],
      ),
    );
    await assertSummed(db, 'copied');
    // The import's upsert: one row new, one changed (value and classification), one the same.
    await db.exec(`${INSERT} ${contract('GD', 'Totals Test Agency', 'ships', 5)},
      ('CONT_AWD_TOTALSCOPY1_9700', 'GD', 'Copied 1', '2024-06-01', 150, 'Totals Test Agency', 'aircraft', 1, 'exact'),
      ('CONT_AWD_TOTALSCOPY2_9700', 'GD', 'Copied 2', '2024-06-01', 200, 'Totals Test Agency', 'ships', 1, 'exact')
      ON CONFLICT (id) DO UPDATE SET contract_value = EXCLUDED.contract_value,
        nlp_classification = EXCLUDED.nlp_classification
      WHERE (contracts.contract_value, contracts.nlp_classification)
        IS DISTINCT FROM (EXCLUDED.contract_value, EXCLUDED.nlp_classification)`);
    await assertSummed(db, 'upserted');

    const before = await deltas(db);
    await db.exec(`UPDATE contracts SET description = 'touched' WHERE id LIKE 'CONT\\_AWD\\_TOTALS%'`);
    assert.equal(await deltas(db), before, 'an update of no summed column appends no delta');

    // Re-resolution (ticker changed, to another and to none, and from none), reclassification, a new
    // agency, a new value: each alone and several at once.
    await db.exec(`UPDATE contracts SET ticker = 'RTX' WHERE id = 'CONT_AWD_TOTALSCOPY3_9700'`);
    await assertSummed(db, 'ticker changed');
    await db.exec(`UPDATE contracts SET ticker = NULL WHERE id = 'CONT_AWD_TOTALSCOPY2_9700'`);
    await db.exec(
      `UPDATE contracts SET ticker = 'NOC' WHERE ticker IS NULL AND id LIKE 'CONT\\_AWD\\_TOTALS%'`,
    );
    await assertSummed(db, 'ticker removed and given');
    await db.exec(
      `UPDATE contracts SET nlp_classification = 'services' WHERE ticker = 'LMT' AND id LIKE 'CONT\\_AWD\\_TOTALS%'`,
    );
    await db.exec(
      `UPDATE contracts SET awarding_agency = 'Other Test Agency' WHERE ticker = 'GD' AND id LIKE 'CONT\\_AWD\\_TOTALS%'`,
    );
    await db.exec(`UPDATE contracts SET contract_value = contract_value * 3 WHERE ticker = 'LMT'`);
    await db.exec(`UPDATE contracts SET ticker = CASE ticker WHEN 'GD' THEN 'NOC' ELSE 'GD' END,
      contract_value = contract_value + 1 WHERE ticker IN ('GD', 'NOC')`);
    await assertSummed(db, 'updated');

    await db.exec(`DELETE FROM contracts WHERE id LIKE 'CONT\\_AWD\\_TOTALSCOPY%'`);
    await db.exec(`DELETE FROM contracts WHERE ticker = 'LMT' AND awarding_agency = 'Totals Test Agency'`);
    await assertSummed(db, 'deleted');
    // A cell whose last contract went: no name with a count of 0 in the company's lists.
    const totals = await companyTotals(db, 'LMT');
    assert.ok(!totals.by_agency.some((t) => t.name === 'Totals Test Agency'));
    assert.ok(
      totals.by_agency.every((t) => t.count > 0) && totals.by_classification.every((t) => t.count > 0),
    );
  });

  test('compaction moves the deltas into one row per cell and keeps the sums', async () => {
    await db.exec(`${INSERT} ${contract('LMT', 'Compaction Agency', 'aircraft', 10)},
      ${contract('LMT', 'Compaction Agency', 'aircraft', 20)}`);
    await db.exec(`DELETE FROM contracts WHERE awarding_agency = 'Compaction Agency'`);
    assert.ok((await deltas(db)) > 0);
    const [moved] = await db.query<{ moved: string }>('SELECT compact_contract_totals() AS moved');
    assert.ok(Number(moved?.moved) > 0);
    assert.equal(await deltas(db), 0);
    await assertSummed(db, 'compacted');
    const [empty] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contract_totals WHERE count = 0 OR awarding_agency = 'Compaction Agency'`,
    );
    assert.equal(empty?.n, 0, 'an emptied cell is removed');
    const [dup] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM contract_totals GROUP BY ticker, awarding_agency, nlp_classification
       HAVING count(*) > 1) d`,
    );
    assert.equal(dup?.n, 0);
  });

  test('a statement that takes the deltas past a multiple of 10,000 compacts them', async () => {
    await db.exec(`SELECT compact_contract_totals()`);
    // 10,000 cells in one statement: one delta each.
    await db.exec(`INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
        nlp_classification, match_confidence, match_method)
      SELECT 'CONT_AWD_BULKTOTALS' || n || '_9700', 'BA', 'Bulk', '2024-01-01', n, 'Bulk Agency ' || n, 'aircraft', 1, 'exact'
      FROM generate_series(1, 10000) n`);
    assert.equal(await deltas(db), 0);
    await assertSummed(db, 'compacted when due');
    await db.exec(`DELETE FROM contracts WHERE id LIKE 'CONT\\_AWD\\_BULKTOTALS%'`);
    await assertSummed(db, 'bulk deleted');
  });

  test('concurrent writers of one ticker never wait on each other; compaction leaves uncommitted deltas', async () => {
    const url = db.url;
    const [a, b, c] = [new pg.Client(url), new pg.Client(url), new pg.Client(url)];
    await Promise.all([a.connect(), b.connect(), c.connect()]);
    try {
      // Far from the next multiple of 10,000 deltas: no statement below compacts on its own.
      await c.query(`SELECT setval(s, (nextval(s) / 10000 + 1) * 10000 + 1)
        FROM pg_get_serial_sequence('contract_total_deltas', 'seq') s`);
      await a.query('BEGIN');
      await a.query(`${INSERT} ${contract('LMT', 'Department of the Navy', 'aircraft', 111)}`);
      await a.query(`UPDATE contracts SET contract_value = contract_value + 1
        WHERE id IN (SELECT id FROM contracts WHERE ticker = 'LMT' ORDER BY id LIMIT 3)`);
      // b writes the same cells while a is open, with a deadline: waiting on a would fail it.
      await b.query(`SET statement_timeout = '5s'`);
      await b.query('BEGIN');
      await b.query(`${INSERT} ${contract('LMT', 'Department of the Navy', 'aircraft', 222)}`);
      // b compacts while a's deltas are uncommitted: they are not b's to move.
      const [moved] = (await b.query<{ moved: string | null }>('SELECT compact_contract_totals() AS moved'))
        .rows;
      assert.notEqual(moved?.moved, null);
      // Another compaction while b's runs is skipped, not waited for.
      await c.query(`SET statement_timeout = '5s'`);
      const skipped = (await c.query<{ moved: string | null }>('SELECT compact_contract_totals() AS moved'))
        .rows;
      assert.equal(skipped[0]?.moved, null);
      await b.query('COMMIT');
      await assertSummed({ query: async (sql) => (await c.query(sql)).rows }, 'a still open');
      await a.query('COMMIT');
      await assertSummed(db, 'both committed');
      assert.ok((await deltas(db)) > 0, "a's deltas stayed");
      // Under REPEATABLE READ a compaction does not run (it could meet deltas a newer one moved).
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const rr = (await c.query<{ moved: string | null }>('SELECT compact_contract_totals() AS moved')).rows;
      assert.equal(rr[0]?.moved, null);
      await c.query('COMMIT');
    } finally {
      await Promise.all([a.end(), b.end(), c.end()]);
    }
  });

  test("the company's totals, count and value are the contracts' after the writes", async () => {
    for (const ticker of ['LMT', 'GD', 'NOC', 'RTX', 'NOSUCH']) await assertTotalsAreContracts(db, ticker);
  });

  test('truncating the contracts empties the totals; rebuilding sums them again', async () => {
    await db.exec('TRUNCATE contracts');
    const [left] = await db.query<{ n: number }>(
      'SELECT (SELECT count(*) FROM contract_totals) + (SELECT count(*) FROM contract_total_deltas) AS n',
    );
    assert.equal(Number(left?.n), 0);
    await db.exec(`${INSERT} ${contract('LMT', 'After Truncate', 'aircraft', 5)}`);
    await assertSummed(db, 'after truncation');
    // As bench/synthetic.ts fills it after loading with triggers off (it loads as a replica).
    await db.exec(`ALTER TABLE contracts DISABLE TRIGGER contracts_totals_inserted;
      ${INSERT} ${contract('GD', 'Replica Load', 'ships', 9)};
      ALTER TABLE contracts ENABLE TRIGGER contracts_totals_inserted`);
    await assert.rejects(assertSummed(db, 'not seen'));
    await db.exec('SELECT rebuild_contract_totals()');
    await assertSummed(db, 'rebuilt');
  });
});
