import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import { createPipelineContext, type PipelineContext } from '../../src/pipeline/context.ts';
import { importAwardFile } from '../../src/pipeline/import.ts';
import type { IngestCounts } from '../../src/pipeline/ingest.ts';
import { runUsaspending } from '../../src/pipeline/usaspending.ts';
import { BULK_COLUMNS } from '../../src/sources/awards.ts';
import { toCsv } from '../../src/sources/csv.ts';
import { UsaspendingClient } from '../../src/sources/usaspending-client.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, type Injector, makeKey, testApp, withKey } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { FakeUsaspending, recordedBulkRecords, syntheticResults } from '../support/fake-usaspending.ts';

type Json = Record<string, unknown>;
type Column = (typeof BULK_COLUMNS)[number];

interface Hostile {
  name: string;
  changes: Partial<Record<Column, unknown>>;
  reason: RegExp;
  /** false: a CSV cell is text, and UTF-8 has no lone surrogates. */
  csv?: false;
  /** false: the API result has no field for one of the columns. */
  api?: false;
}

const badDate = (value: string): Hostile => ({
  name: `award date ${value}`,
  changes: { award_base_action_date: value },
  reason: /^award_base_action_date is not a valid date in 1900–2200/,
});

const HOSTILE: Hostile[] = [
  {
    name: 'amount beyond bigint',
    changes: { current_total_value_of_award: 1e20 },
    reason: /^current_total_value_of_award is out of range/,
  },
  {
    name: 'amount just above 10^15',
    changes: { current_total_value_of_award: '1000000000000001' },
    reason: /^current_total_value_of_award is out of range/,
  },
  {
    name: 'obligated amount below -10^15',
    changes: { current_total_value_of_award: null, total_obligated_amount: '-1e16' },
    reason: /^total_obligated_amount is out of range/,
    api: false,
  },
  {
    name: 'non-finite amount',
    changes: { current_total_value_of_award: '1e999' },
    reason: /^current_total_value_of_award is not a finite number/,
  },
  {
    name: 'negative total value',
    changes: { current_total_value_of_award: -5 },
    reason: /^current_total_value_of_award is negative/,
  },
  {
    name: 'lone high surrogate',
    changes: { recipient_name: 'ACME \uD800 CORP' },
    reason: /^recipient_name contains a lone UTF-16 surrogate/,
    csv: false,
  },
  {
    name: 'lone low surrogate',
    changes: { prime_award_base_transaction_description: 'LOT \uDC00 9' },
    reason: /^prime_award_base_transaction_description contains a lone UTF-16 surrogate/,
    csv: false,
  },
  {
    name: 'NUL in the sub-agency',
    changes: { awarding_sub_agency_name: 'NASA\u0000' },
    reason: /^awarding_sub_agency_name contains a NUL character/,
  },
  {
    name: 'NUL in the UEI',
    changes: { recipient_uei: 'ABC\u0000DEF' },
    reason: /^recipient_uei contains a NUL character/,
  },
  {
    name: 'id of 201 characters',
    changes: { contract_award_unique_key: `CONT_AWD_${'X'.repeat(192)}` },
    reason: /^contract_award_unique_key is longer than 200 characters/,
  },
  {
    name: 'name of 501 characters',
    changes: { recipient_name: 'A'.repeat(501) },
    reason: /^recipient_name is longer than 500 characters/,
  },
  {
    name: 'description of 10,001 characters',
    changes: { prime_award_base_transaction_description: 'x'.repeat(10_001) },
    reason: /^prime_award_base_transaction_description is longer than 10000 characters/,
  },
  badDate('0000-01-01'),
  badDate('2024-02-30'),
  badDate('+020000-01-01'),
  badDate('1899-12-31'),
  badDate('2201-01-01'),
  {
    name: 'impossible modification date',
    changes: { last_modified_date: '2024-02-30' },
    reason: /^last_modified_date is not a valid date/,
  },
  {
    name: 'object for a name',
    changes: { recipient_name: { name: 'ACME' } },
    reason: /^recipient_name must be a string or a number, not an object/,
    csv: false,
  },
  {
    name: 'array for a code',
    changes: { naics_code: ['336411'] },
    reason: /^naics_code must be a string or a number, not an array/,
    csv: false,
  },
  {
    name: 'object for an amount',
    changes: { current_total_value_of_award: { value: 1 } },
    reason: /^current_total_value_of_award must be a string or a number, not an object/,
    csv: false,
  },
  {
    name: 'boolean for a date',
    changes: { award_base_action_date: true },
    reason: /^award_base_action_date must be a string or a number, not a boolean/,
    csv: false,
  },
];

/** Where each column comes from in a spending_by_award result. */
const API_FIELD: Partial<Record<Column, string>> = {
  contract_award_unique_key: 'generated_internal_id',
  recipient_name: 'Recipient Name',
  recipient_uei: 'Recipient UEI',
  awarding_sub_agency_name: 'Awarding Sub Agency',
  current_total_value_of_award: 'Award Amount',
  award_base_action_date: 'Base Obligation Date',
  prime_award_base_transaction_description: 'Description',
  naics_code: 'NAICS',
  last_modified_date: 'Last Modified Date',
};

const GOOD = 6;

let db: Db;
let ctx: PipelineContext;
let dir: string;

before(async () => {
  db = await seededDb();
  ctx = await createPipelineContext(db, { signalThreshold: 75 });
  dir = await mkdtemp(path.join(tmpdir(), 'mi-hostile-'));
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

/** Distinct real awards under ids no other test (or the seed) uses: `tag` goes into the PIID part. */
function bulkRecords(tag: string, count: number): Json[] {
  const unique = [...new Map(recordedBulkRecords().map((r) => [r.contract_award_unique_key, r])).values()];
  return unique.slice(0, count).map((r, i) => ({
    ...r,
    contract_award_unique_key: String(r.contract_award_unique_key).replace(
      /^CONT_AWD_([^_]+)_/,
      `CONT_AWD_$1${tag}${i}_`,
    ),
  }));
}

/** Good and hostile records interleaved: a good one before every fourth hostile one, the rest at the end. */
function batch<T>(good: T[], hostile: T[]): { items: T[]; hostileAt: number[] } {
  const items: T[] = [];
  const hostileAt: number[] = [];
  const goodLeft = [...good];
  hostile.forEach((record, i) => {
    const next = i % 4 === 0 ? goodLeft.shift() : undefined;
    if (next !== undefined) items.push(next);
    hostileAt.push(items.length);
    items.push(record);
  });
  items.push(...goodLeft);
  return { items, hostileAt };
}

/** A batch for a path that reads bulk records; returns the cases it holds too. */
function bulkBatch(tag: string, include: (h: Hostile) => boolean) {
  const cases = HOSTILE.filter(include);
  const records = bulkRecords(tag, GOOD + cases.length);
  const good = records.slice(0, GOOD);
  const hostile = cases.map((h, i) => ({ ...records[GOOD + i], ...h.changes }));
  return { cases, good, ...batch<Json>(good, hostile), hostileIds: hostile.map(idOf) };
}

const idOf = (r: Json): string => String(r.contract_award_unique_key ?? r.generated_internal_id);

async function storedCount(ids: string[]): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM contracts WHERE id = ANY($1::text[])',
    [ids],
  );
  return row?.n ?? 0;
}

/** Each hostile record is rejected where it stands, for its reason; the good ones are stored, the others not. */
async function assertOutcome(
  rejected: { at: number; message: string }[],
  expected: { cases: Hostile[]; hostileAt: number[]; goodIds: string[]; hostileIds: string[] },
): Promise<void> {
  assert.deepEqual(
    rejected.map((r) => r.at),
    expected.hostileAt,
  );
  expected.cases.forEach((h, i) => {
    assert.match(rejected[i]?.message ?? '', h.reason, h.name);
  });
  assert.equal(await storedCount(expected.goodIds), GOOD, 'every good record of the batch is stored');
  assert.equal(await storedCount(expected.hostileIds), 0, 'no hostile record is stored, altered or not');
}

describe('hostile records are rejected one by one', () => {
  let app: App;
  let admin: Injector;
  before(async () => {
    app = await testApp(db);
    admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
  });
  after(() => app.close());

  const ingest = (payload: unknown) =>
    admin.inject({ method: 'POST', url: '/api/v1/admin/ingest', payload: payload as object });

  test('admin ingest answers 200, lists each hostile record with its index and stores the rest', async () => {
    const b = bulkBatch('HA', () => true);
    const res = await ingest({ awards: b.items });
    assert.equal(res.statusCode, 200, res.body);
    const counts = res.json<IngestCounts>();
    assert.deepEqual([counts.received, counts.inserted], [b.items.length, GOOD]);
    await assertOutcome(
      counts.rejected.map((r) => ({ at: r.index, message: r.message })),
      { ...b, goodIds: b.good.map(idOf) },
    );
  });

  test('admin ingest rejects items that are not objects by index; a body without awards is a 400', async () => {
    const [good] = bulkRecords('HN', 1);
    const res = await ingest({ awards: ['CONT_AWD_X', null, [good], 7, good] });
    assert.equal(res.statusCode, 200, res.body);
    const counts = res.json<IngestCounts>();
    assert.deepEqual(
      counts.rejected,
      [0, 1, 2, 3].map((index) => ({ index, message: 'record is not an object' })),
    );
    assert.equal(counts.inserted, 1);
    for (const body of [{}, { awards: 'x' }, [good], { awards: [], extra: 1 }]) {
      const refused = await ingest(body);
      assert.equal(refused.statusCode, 400, JSON.stringify(body));
      assert.equal(refused.json<Envelope>().error.code, 'invalid_body');
    }
  });

  test('a CSV file: each hostile row is rejected with its line, the rest imported', async () => {
    const b = bulkBatch('HC', (h) => h.csv !== false);
    const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
    const csv = toCsv(
      BULK_COLUMNS,
      b.items.map((r) => BULK_COLUMNS.map((c) => cell(r[c]))),
    );
    const file = path.join(dir, 'hostile.csv');
    await writeFile(file, csv);
    const result = await importAwardFile(ctx, file);
    assert.equal(result.inserted, GOOD);
    await assertOutcome(
      // Line 1 is the header; no cell spans two lines.
      result.rejected.map((r) => ({ at: 'line' in r ? r.line - 2 : -1, message: r.message })),
      { ...b, goodIds: b.good.map(idOf) },
    );
  });

  test('a JSON file: each hostile record is rejected with its index, the rest imported', async () => {
    const b = bulkBatch('HJ', () => true);
    const file = path.join(dir, 'hostile.json');
    await writeFile(file, JSON.stringify(b.items));
    const result = await importAwardFile(ctx, file);
    assert.equal(result.inserted, GOOD);
    await assertOutcome(
      result.rejected.map((r) => ({ at: 'index' in r ? r.index : -1, message: r.message })),
      { ...b, goodIds: b.good.map(idOf) },
    );
  });

  test('the USASpending API: each hostile result is rejected with its page and index, the rest stored', async () => {
    const cases = HOSTILE.filter((h) => h.api !== false);
    const results = syntheticResults(GOOD + cases.length, 'HU');
    const good = results.slice(0, GOOD);
    const hostile = cases.map((h, i) => {
      const result = { ...results[GOOD + i] };
      for (const [column, value] of Object.entries(h.changes)) {
        const field = API_FIELD[column as Column];
        assert.ok(field, `${h.name}: no API field for ${column}`);
        result[field] = value;
      }
      return result;
    });
    const b = batch<Json>(good, hostile);
    const server = await FakeUsaspending.start(b.items);
    const client = new UsaspendingClient({ baseUrl: server.url, sleep: async () => undefined });
    try {
      const run = await runUsaspending(ctx, client, { from: '2024-01-01', to: '2024-01-31' });
      assert.equal(run.counts.inserted, GOOD);
      assert.ok(run.counts.rejected.every((r) => r.page === 1));
      await assertOutcome(
        run.counts.rejected.map((r) => ({ at: r.index, message: r.message })),
        { cases, hostileAt: b.hostileAt, goodIds: good.map(idOf), hostileIds: hostile.map(idOf) },
      );
    } finally {
      await client.close();
      await server.close();
    }
  });

  test('an unmatched recipient whose running total would pass bigint saturates instead of failing', async () => {
    const [first, second] = bulkRecords('HT', 2).map((r) => ({
      ...r,
      recipient_name: 'Qzvx Hostile Tally Works, LLC',
      current_total_value_of_award: 1e15,
    }));
    assert.equal((await ingest({ awards: [first] })).json<IngestCounts>().unmatched, 1);
    await db.query(
      "UPDATE unmatched_recipients SET total_value = 9223372036854775000 WHERE name_norm = 'QZVX HOSTILE TALLY WORKS'",
    );
    const res = await ingest({ awards: [second] });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<IngestCounts>().inserted, 1);
    const [row] = await db.query<{ saturated: boolean; award_count: number }>(
      `SELECT total_value = 9223372036854775807 AS saturated, award_count FROM unmatched_recipients
       WHERE name_norm = 'QZVX HOSTILE TALLY WORKS'`,
    );
    assert.deepEqual(row, { saturated: true, award_count: 2 });
  });
});
