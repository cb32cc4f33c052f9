import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { CSV_SQL } from '../../src/store/export.ts';
import { seededDb } from '../support/db.ts';

/**
 * The CSV record writes a clean record (nothing to quote, nothing formula-like) as its fields joined
 * by commas, testing the row once instead of every text field with a regular expression. These rows
 * each carry one thing the per-field expressions act on: the once-per-row test must send every one of
 * them field by field, and the clean ones as they are, both writing exactly what the per-field
 * expressions write.
 */
describe('a CSV record tested once per row', () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
  });
  after(async () => db.close());

  const clean = {
    recipient: 'ACME CORP',
    agency: 'Department of Defense',
    subAgency: null as string | null,
    description: 'Engineering support 2024',
    naics: '336411',
    psc: 'AC12',
    value: 1500,
  };
  const dirty: [label: string, change: Partial<typeof clean>][] = [
    ['a comma in a field', { recipient: 'Acme, Inc.' }],
    ['a quote', { description: 'the "best" bid' }],
    ['a CR', { agency: 'Department\rof Defense' }],
    ['an LF', { subAgency: 'Navy\nYard' }],
    ['a leading =', { naics: '=1+1' }],
    ['a leading +', { psc: '+cmd|calc' }],
    ['a leading -', { description: '-2+3' }],
    ['a leading @', { recipient: '@SUM(A1)' }],
    ['a leading TAB', { psc: '\tTAB' }],
    ['a leading CR', { naics: '\rx' }],
    ['a comma last', { subAgency: 'Navy,' }],
  ];

  const insert = (id: string, v: typeof clean) =>
    db.query(
      `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
         awarding_sub_agency, description, naics, psc, nlp_classification, match_confidence, match_method)
       VALUES ($1, 'ZZQX', $2, '2024-05-01', $3, $4, $5, $6, $7, $8, 'aircraft', 0.9, 'exact')`,
      [id, v.recipient, v.value, v.agency, v.subAgency, v.description, v.naics, v.psc],
    );

  test('sends each row needing a guard or quotes field by field, the others as they are, alike', async () => {
    await insert('CONT_AWD_CSV_CLEAN', clean);
    await insert('CONT_AWD_CSV_NEGATIVE', { ...clean, value: -1500 });
    for (const [k, [, change]] of dirty.entries()) await insert(`CONT_AWD_CSV_${k}`, { ...clean, ...change });
    const rows = await db.query<{ id: string; clean: boolean; record: string; by_field: string }>(
      `SELECT c.id, ${CSV_SQL.clean} AS clean, ${CSV_SQL.record} AS record,
         ${CSV_SQL.fieldByField} || E'\\r\\n' AS by_field
       FROM contracts c LEFT JOIN LATERAL (SELECT * FROM signals s0 WHERE s0.contract_id = c.id LIMIT 1) s ON true
       ${CSV_SQL.join}
       WHERE c.ticker = 'ZZQX' ORDER BY c.id`,
    );
    assert.equal(rows.length, dirty.length + 2);
    for (const row of rows) assert.equal(row.record, row.by_field, row.id);
    const byId = new Map(rows.map((r) => [r.id, r]));
    assert.equal(byId.get('CONT_AWD_CSV_CLEAN')?.clean, true);
    // A negative number is written as a number, unguarded, either way.
    assert.equal(byId.get('CONT_AWD_CSV_NEGATIVE')?.clean, true);
    assert.match(byId.get('CONT_AWD_CSV_NEGATIVE')?.record ?? '', /,2024-05-01,-1500,/);
    for (const [k, [label]] of dirty.entries())
      assert.equal(byId.get(`CONT_AWD_CSV_${k}`)?.clean, false, label);
  });

  test("the seeded events' records, signals included, are the same either way", async () => {
    const rows = await db.query<{ record: string; by_field: string; clean: boolean }>(
      `SELECT ${CSV_SQL.clean} AS clean, ${CSV_SQL.record} AS record, ${CSV_SQL.fieldByField} || E'\\r\\n' AS by_field
       FROM contracts c JOIN signals s ON s.contract_id = c.id ${CSV_SQL.join} WHERE c.ticker IS NOT NULL`,
    );
    assert.ok(rows.length > 100);
    assert.ok(rows.some((r) => r.clean));
    for (const row of rows) assert.equal(row.record, row.by_field);
  });
});
