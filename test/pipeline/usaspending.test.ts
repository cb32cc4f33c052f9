import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPipelineContext, type PipelineContext } from '../../src/pipeline/context.ts';
import { runUsaspending, sourceKey } from '../../src/pipeline/usaspending.ts';
import {
  AWARD_FIELDS,
  type ClientOptions,
  UsaspendingClient,
  UsaspendingError,
} from '../../src/sources/usaspending-client.ts';
import { readCheckpoint } from '../../src/store/checkpoints.ts';
import type { Db } from '../../src/store/db.ts';
import { seededDb } from '../support/db.ts';
import { FakeUsaspending, recordedResults, syntheticResults } from '../support/fake-usaspending.ts';

let db: Db;
let ctx: PipelineContext;
const fakes: FakeUsaspending[] = [];
const clients: UsaspendingClient[] = [];

before(async () => {
  db = await seededDb();
  ctx = await createPipelineContext(db, { signalThreshold: 75 });
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(fakes.map((f) => f.close()));
  await db.close();
});

const JANUARY = { from: '2024-01-01', to: '2024-01-31' };

async function fake(records: Record<string, unknown>[]): Promise<FakeUsaspending> {
  const server = await FakeUsaspending.start(records);
  fakes.push(server);
  return server;
}

/** A client whose waits are recorded instead of slept. */
function clientFor(server: FakeUsaspending, options: Partial<ClientOptions> = {}) {
  const waits: number[] = [];
  const client = new UsaspendingClient({
    baseUrl: server.url,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  clients.push(client);
  return { client, waits };
}

async function storedIds(ids: string[]): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM contracts WHERE id = ANY($1::text[])',
    [ids],
  );
  return rows[0]?.n ?? 0;
}

const idsOf = (records: Record<string, unknown>[]) => records.map((r) => String(r.generated_internal_id));

describe('USASpending client against the recorded-response fake', () => {
  test('asks for contract awards A–D in the period, 100 a page, with the fields the parser reads', async () => {
    const server = await fake(syntheticResults(3, 'Q'));
    const { client } = clientFor(server);
    await client.fetchPage(JANUARY, 1);
    const body = server.requests[0]?.body;
    assert.deepEqual(body?.filters, {
      award_type_codes: ['A', 'B', 'C', 'D'],
      time_period: [{ start_date: '2024-01-01', end_date: '2024-01-31' }],
    });
    assert.equal(body?.limit, 100);
    assert.equal(body?.page, 1);
    assert.deepEqual(body?.fields, [...AWARD_FIELDS]);
    assert.equal(body?.subawards, false);
  });

  test('pages until hasNext is false and stores every award', async () => {
    const records = syntheticResults(250, 'P');
    const server = await fake(records);
    const { client } = clientFor(server);
    const result = await runUsaspending(ctx, client, JANUARY);
    assert.deepEqual(server.pagesRequested(), [1, 2, 3]);
    assert.equal(result.pages, 3);
    assert.equal(result.counts.received, 250);
    assert.equal(result.counts.inserted, 250);
    assert.equal(result.counts.matched + result.counts.unmatched, 250);
    assert.ok(result.counts.matched > 0, 'the recorded Boeing, Lockheed and Northrop awards resolve');
    assert.equal(await storedIds(idsOf(records)), 250);
    const checkpoint = await readCheckpoint(db, sourceKey(server.url, JANUARY));
    assert.deepEqual([checkpoint?.lastPage, checkpoint?.finished, checkpoint?.awards], [3, true, 250]);
  });

  test('retries 429 after its Retry-After, and 500, a dropped connection and a cut-off body with backoff', async () => {
    const server = await fake(syntheticResults(5, 'R'));
    server.failNext(1, { kind: 'status', status: 429, retryAfter: '2' });
    server.failNext(1, { kind: 'status', status: 500 });
    server.failNext(1, { kind: 'drop' });
    server.failNext(1, { kind: 'truncate' });
    const { client, waits } = clientFor(server, { baseDelayMs: 100, maxDelayMs: 1000 });
    const page = await client.fetchPage(JANUARY, 1);
    assert.equal(page.results.length, 5);
    assert.equal(server.requests.length, 5);
    // Retry-After: 2 → 2000 ms; then equal-jitter backoff, 100·2ⁿ⁻¹ at random 0.5: 150, 300, 600.
    assert.deepEqual(waits, [2000, 150, 300, 600]);
  });

  test('gives up after the configured attempts with the status and page, and does not retry a 4xx', async () => {
    const server = await fake(syntheticResults(5, 'G'));
    server.failAlways(1, { kind: 'status', status: 503 });
    const { client, waits } = clientFor(server, { maxAttempts: 3 });
    await assert.rejects(client.fetchPage(JANUARY, 1), (error: unknown) => {
      assert.ok(error instanceof UsaspendingError);
      assert.equal(error.status, 503);
      assert.match(error.message, /answered 503 \(page 1, attempt 3\/3\)/);
      return true;
    });
    assert.equal(server.requests.length, 3);
    assert.equal(waits.length, 2);

    server.heal();
    server.failNext(1, { kind: 'status', status: 400 });
    await assert.rejects(client.fetchPage(JANUARY, 1), /answered 400/);
    assert.equal(server.requests.length, 4, 'a 400 is not retried');
  });

  test('a Retry-After beyond the limit fails the page instead of stalling', async () => {
    const server = await fake(syntheticResults(1, 'W'));
    server.failNext(1, { kind: 'status', status: 429, retryAfter: '3600' });
    const { client, waits } = clientFor(server, { maxRetryAfterMs: 60_000 });
    await assert.rejects(client.fetchPage(JANUARY, 1), /asks to wait 3600 s/);
    assert.deepEqual(waits, []);
  });

  test('an interrupted run resumes at the next page and never fetches pages 1–2 again', async () => {
    const records = syntheticResults(450, 'I');
    const server = await fake(records);
    const period = { from: '2024-02-01', to: '2024-02-29' };
    server.failAlways(3, { kind: 'status', status: 500 });
    const { client } = clientFor(server, { maxAttempts: 2 });
    await assert.rejects(runUsaspending(ctx, client, period), UsaspendingError);
    assert.deepEqual(server.pagesRequested(), [1, 2, 3, 3]);
    assert.equal(await storedIds(idsOf(records)), 200);
    const interrupted = await readCheckpoint(db, sourceKey(server.url, period));
    assert.deepEqual([interrupted?.lastPage, interrupted?.finished], [2, false]);

    server.heal();
    server.requests.length = 0;
    const resumed = await runUsaspending(ctx, client, period);
    assert.deepEqual(server.pagesRequested(), [3, 4, 5]);
    assert.equal(resumed.firstPage, 3);
    assert.equal(resumed.counts.inserted, 250);
    assert.equal(await storedIds(idsOf(records)), 450);
    const done = await readCheckpoint(db, sourceKey(server.url, period));
    assert.deepEqual([done?.lastPage, done?.finished, done?.awards], [5, true, 450]);

    server.requests.length = 0;
    const again = await runUsaspending(ctx, client, period);
    assert.equal(again.firstPage, null, 'a finished run of a past period is complete');
    assert.deepEqual(server.pagesRequested(), []);
    const restarted = await runUsaspending(ctx, client, period, { restart: true });
    assert.deepEqual(server.pagesRequested(), [1, 2, 3, 4, 5]);
    assert.deepEqual([restarted.counts.inserted, restarted.counts.updated], [0, 0]);
  });

  test('a real page that repeats an award id keeps the record modified last', async () => {
    const recorded = recordedResults();
    const repeated = recorded.filter(
      (r) => r.generated_internal_id === 'CONT_AWD_80GSFC18C0008_8000_-NONE-_-NONE-',
    );
    assert.equal(repeated.length, 2, 'the recorded response repeats this id');
    const server = await fake(repeated);
    const { client } = clientFor(server);
    const result = await runUsaspending(ctx, client, { from: '2018-03-01', to: '2018-03-31' });
    assert.equal(result.counts.received, 2);
    const [row] = await db.query<{ contract_value: number; source_modified_at: string }>(
      'SELECT contract_value, source_modified_at FROM contracts WHERE id = $1',
      [repeated[0]?.generated_internal_id],
    );
    assert.equal(row?.contract_value, 172_213_420);
    assert.equal(row?.source_modified_at, '2025-08-19T00:00:00.000Z');
  });
});
