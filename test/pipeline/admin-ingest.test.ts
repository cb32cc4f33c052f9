import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import { createPipelineContext } from '../../src/pipeline/context.ts';
import type { IngestCounts } from '../../src/pipeline/ingest.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, type Injector, makeKey, testApp, withKey } from '../support/app.ts';
import { resolvesOnItsDate } from '../support/awards.ts';
import { seededDb } from '../support/db.ts';
import { recordedBulkRecords } from '../support/fake-usaspending.ts';

let db: Db;
let app: App;
let admin: Injector;
let clock = new Date('2025-06-01T12:00:00.000Z');
/** Real awards of listed companies, removed from the seeded copy so they arrive as new. */
let awards: Record<string, unknown>[];

before(async () => {
  db = await seededDb();
  app = await testApp(db, {}, { now: () => clock });
  admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
  const ctx = await createPipelineContext(db, { signalThreshold: 75 });
  awards = recordedBulkRecords()
    .filter((r) => resolvesOnItsDate(ctx, r))
    .slice(30, 42);
  await db.query('DELETE FROM contracts WHERE id = ANY($1::text[])', [
    awards.map((a) => a.contract_award_unique_key),
  ]);
});
after(async () => {
  await app.close();
  await db.close();
});

const ingest = (client: Injector, payload: unknown) =>
  client.inject({ method: 'POST', url: '/api/v1/admin/ingest', payload: payload as object });

describe('POST /api/v1/admin/ingest', () => {
  test('runs real records through the pipeline; a bad record is rejected with its index', async () => {
    const body = [...awards.slice(0, 5), { ...awards[0], recipient_name: '  ' }, ...awards.slice(5)];
    const res = await ingest(admin, { awards: body });
    assert.equal(res.statusCode, 200, res.body);
    const counts = res.json<IngestCounts>();
    assert.deepEqual(counts, {
      received: 13,
      inserted: 12,
      updated: 0,
      matched: 12,
      unmatched: 0,
      rejected: [{ index: 5, message: 'recipient_name is missing' }],
      signals_created: 24,
    });
  });

  test('posting the same records again changes nothing', async () => {
    const counts = (await ingest(admin, { awards })).json<IngestCounts>();
    assert.deepEqual(
      [counts.received, counts.inserted, counts.updated, counts.matched, counts.signals_created],
      [12, 0, 0, 12, 0],
    );
  });

  test('a modified award updates its contract and its signal rows in place', async () => {
    const award = awards[3] ?? {};
    const id = String(award.contract_award_unique_key);
    const before = await contractState(id);
    const signalsBefore = await signalRows(id);
    clock = new Date('2025-06-02T12:00:00.000Z');
    const changed = {
      ...award,
      current_total_value_of_award: 987_654_321.4,
      last_modified_date: '2025-06-02 09:30:00',
    };
    const counts = (await ingest(admin, { awards: [changed] })).json<IngestCounts>();
    assert.deepEqual([counts.inserted, counts.updated, counts.signals_created], [0, 1, 0]);

    const afterChange = await contractState(id);
    assert.equal(afterChange.contract_value, 987_654_321);
    assert.equal(afterChange.first_seen_at, before.first_seen_at);
    assert.equal(afterChange.source_modified_at, '2025-06-02T09:30:00.000Z');
    assert.notEqual(afterChange.source_modified_at, before.source_modified_at);

    const signalsAfter = await signalRows(id);
    assert.deepEqual(
      signalsAfter.map((s) => [s.id, s.engine_name, s.engine_version]),
      signalsBefore.map((s) => [s.id, s.engine_name, s.engine_version]),
      'one row per (contract, engine, version), same ids',
    );
    for (const s of signalsAfter) assert.equal(s.computed_at, clock.toISOString());
    assert.notDeepEqual(
      signalsAfter.map((s) => s.importance_score),
      signalsBefore.map((s) => s.importance_score),
      'the new amount was scored',
    );
  });

  test('a repeated id in one call keeps the record modified last', async () => {
    const award = awards[4] ?? {};
    const older = { ...award, current_total_value_of_award: 1_000, last_modified_date: '2025-06-03' };
    const newer = { ...award, current_total_value_of_award: 2_000, last_modified_date: '2025-06-04' };
    const res = await ingest(admin, { awards: [newer, older] });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<IngestCounts>().received, 2);
    assert.equal((await contractState(String(award.contract_award_unique_key))).contract_value, 2_000);
  });

  test('refuses more than 10 000 awards, oversized bodies, and keys without admin', async () => {
    const tooMany = await ingest(admin, { awards: Array.from({ length: 10_001 }, () => ({})) });
    assert.equal(tooMany.statusCode, 400);
    assert.match(tooMany.json<Envelope>().error.message, /awards/);

    const huge = `{"awards":[{"prime_award_base_transaction_description":"${'x'.repeat(33 * 1024 * 1024)}"}]}`;
    const tooLarge = await admin.inject({
      method: 'POST',
      url: '/api/v1/admin/ingest',
      payload: huge,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(tooLarge.statusCode, 413);

    // An item that is not a record is that record's problem; a body without `awards` is the call's.
    const notObject = await ingest(admin, { awards: [1] });
    assert.equal(notObject.statusCode, 200, notObject.body);
    assert.deepEqual(notObject.json<IngestCounts>().rejected, [
      { index: 0, message: 'record is not an object' },
    ]);
    assert.equal((await ingest(admin, {})).statusCode, 400);

    const reader = withKey(app, (await makeKey(db, { scopes: ['read', 'write'] })).raw);
    assert.equal((await ingest(reader, { awards: [] })).statusCode, 403);
    assert.equal((await ingest(app, { awards: [] })).statusCode, 401);
  });
});

describe('GET /api/v1/admin/unmatched-recipients', () => {
  interface Listing {
    data: { name_norm: string; sample_name: string; award_count: number; total_value: number }[];
    pagination: { limit: number; offset: number; count: number; next_cursor: string | null };
  }

  test('lists recipients without a ticker, largest total value first, with paging', async () => {
    const first = (await admin.inject('/api/v1/admin/unmatched-recipients?limit=5')).json<Listing>();
    const { next_cursor, ...page } = first.pagination;
    assert.deepEqual(page, { limit: 5, offset: 0, count: 5 });
    assert.equal(typeof next_cursor, 'string');
    const values = first.data.map((r) => r.total_value);
    assert.deepEqual(
      values,
      [...values].sort((a, b) => b - a),
    );
    assert.equal(first.data[0]?.name_norm, 'MASSACHUSETTS INSTITUTE OF TECHNOLOGY');
    const next = (await admin.inject('/api/v1/admin/unmatched-recipients?limit=5&offset=4')).json<Listing>();
    assert.deepEqual(next.data[0], first.data[4]);
  });

  test('a new unmatched award is tallied under its normalized name', async () => {
    const record = {
      ...awards[0],
      contract_award_unique_key: 'CONT_AWD_UNMATCHEDTEST1_9700_-NONE-_-NONE-',
      recipient_name: 'Zyxw Obscure Fabrication, LLC',
      current_total_value_of_award: 99_000_000_000,
    };
    const counts = (await ingest(admin, { awards: [record] })).json<IngestCounts>();
    assert.deepEqual([counts.inserted, counts.unmatched], [1, 1]);
    const top = (await admin.inject('/api/v1/admin/unmatched-recipients?limit=1')).json<Listing>();
    assert.deepEqual(top.data[0], {
      name_norm: 'ZYXW OBSCURE FABRICATION',
      sample_name: 'Zyxw Obscure Fabrication, LLC',
      award_count: 1,
      total_value: 99_000_000_000,
    });
  });

  test('rejects a bad limit and unknown parameters, naming them', async () => {
    const zero = await admin.inject('/api/v1/admin/unmatched-recipients?limit=0');
    assert.equal(zero.statusCode, 400);
    assert.match(zero.json<Envelope>().error.message, /limit/);
    const unknown = await admin.inject('/api/v1/admin/unmatched-recipients?sort=name');
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json<Envelope>().error.message, /sort/);
  });
});

async function contractState(id: string) {
  const [row] = await db.query<{
    contract_value: number;
    first_seen_at: string;
    source_modified_at: string | null;
  }>('SELECT contract_value, first_seen_at, source_modified_at FROM contracts WHERE id = $1', [id]);
  assert.ok(row, `contract ${id} is stored`);
  return row;
}

function signalRows(id: string) {
  return db.query<{
    id: string;
    engine_name: string;
    engine_version: string;
    importance_score: number;
    computed_at: string;
  }>(
    `SELECT id, engine_name, engine_version, importance_score, computed_at FROM signals
     WHERE contract_id = $1 ORDER BY engine_name, engine_version`,
    [id],
  );
}
