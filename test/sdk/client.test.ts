/** The SDK against the real app over HTTP: lists, reads, page iterators, typed errors, rate-limit info. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AuthenticationError,
  MarketIntel,
  MarketIntelError,
  NotFoundError,
  RateLimitError,
  ValidationError,
} from '../../sdk/src/index.ts';
import { makeKey } from '../support/app.ts';
import { type LiveServer, recordingFetch, startLiveServer } from './server.ts';

let server: LiveServer;
let apiKey: string;

before(async () => {
  server = await startLiveServer();
  apiKey = (await makeKey(server.db)).raw;
});
after(() => server.close());

const client = (options: ConstructorParameters<typeof MarketIntel>[0] = {}) =>
  new MarketIntel({ apiKey, baseUrl: server.baseUrl, ...options });

describe('reads', () => {
  test('lists events with their typed fields and records the X-RateLimit-* headers', async () => {
    const sdk = client();
    const beforeAny = sdk.rateLimit;
    assert.equal(beforeAny, null);
    const page = await sdk.events.list({ ticker: 'lmt', limit: 3 });
    assert.equal(page.data.length, 3);
    const { next_cursor: nextCursor, ...pagination } = page.pagination;
    assert.deepEqual(pagination, { limit: 3, offset: 0, count: 3 });
    assert.equal(typeof nextCursor, 'string', 'more LMT events follow: a cursor to them');
    for (const event of page.data) assert.equal(event.contract.ticker, 'LMT');
    assert.ok(sdk.rateLimit);
    assert.equal(sdk.rateLimit.limit, 3000);
    assert.equal(sdk.rateLimit.remaining, 2999);
    assert.ok(sdk.rateLimit.reset.getTime() > Date.now());
  });

  test('gets a contract, its score and its company by path parameters', async () => {
    const sdk = client();
    const [first] = (await sdk.events.list({ limit: 1 })).data;
    assert.ok(first);
    const bundle = await sdk.contracts.get(first.contract.id);
    assert.equal(bundle.contract.id, first.contract.id);
    const score = await sdk.contracts.getScore(first.contract.id, { engine: 'materiality' });
    assert.equal(score.signal.contract_id, first.contract.id);
    const company = await sdk.companies.get(first.contract.ticker);
    assert.equal(company.company.ticker, first.contract.ticker);
  });

  test('health and the OpenAPI document need no key', async () => {
    const sdk = new MarketIntel({ baseUrl: server.baseUrl });
    assert.equal((await sdk.health.get()).ok, true);
    assert.deepEqual(await sdk.health.live(), { ok: true });
    const doc = (await sdk.openapi.get()) as { openapi: string };
    assert.equal(doc.openapi, '3.1.0');
  });
});

describe('exports', () => {
  test('events.export returns the NDJSON text: one line per event, the same items as the list', async () => {
    const sdk = client();
    const page = await sdk.events.list({ ticker: 'LMT', limit: 5 });
    const text = await sdk.events.export({ ticker: 'LMT', format: 'ndjson', limit: 5 });
    const lines = String(text)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines, page.data);
  });

  test('signals.export returns CSV with a header row', async () => {
    const text = String(await client().signals.export({ ticker: 'LMT', format: 'csv', limit: 3 }));
    const rows = text.trim().split('\r\n');
    assert.equal(rows.length, 4);
    assert.match(rows[0] ?? '', /^[a-z_]+(,[a-z_]+)+$/);
  });
});

describe('iterators', () => {
  test('events.iterate follows next_cursor to the end: the same events, in order, as one big page', async () => {
    const sdk = client();
    const all = (await sdk.events.list({ ticker: 'LMT', limit: 200 })).data;
    const boundary = all[44]?.contract.award_date;
    assert.ok(boundary, 'LMT has at least 45 events in the demo data');
    const expected = (await sdk.events.list({ ticker: 'LMT', from: boundary, limit: 200 })).data;
    assert.ok(expected.length >= 45 && expected.length < 200, `${expected.length} events from ${boundary}`);

    const { calls, fetch } = recordingFetch();
    const walked = [];
    for await (const event of client({ fetch }).events.iterate({
      ticker: 'LMT',
      from: boundary,
      limit: 20,
    })) {
      walked.push(event.contract.id);
    }
    assert.deepEqual(
      walked,
      expected.map((e) => e.contract.id),
    );
    assert.equal(calls.length, Math.ceil(expected.length / 20), 'one request per page, none after the last');
    const params = calls.map((c) => new URL(c.url).searchParams);
    assert.ok(params.every((p) => p.get('offset') === null && p.get('ticker') === 'LMT'));
    assert.deepEqual(
      params.map((p) => p.has('cursor')),
      calls.map((_, i) => i > 0),
    );
  });

  test('stopping early fetches no further page', async () => {
    const { calls, fetch } = recordingFetch();
    let seen = 0;
    for await (const _signal of client({ fetch }).signals.iterate({ limit: 5 })) {
      seen += 1;
      if (seen === 7) break;
    }
    assert.equal(seen, 7);
    assert.equal(calls.length, 2);
  });

  test('benchmarks.iterate follows Link rel="next" until a page has none', async () => {
    const sdk = client();
    const whole = await sdk.benchmarks.list({ ticker: 'SPY', from: '2015-01-01', limit: 5000 });
    assert.ok(whole.length > 1500 && whole.length < 5000, `${whole.length} bars`);
    const { calls, fetch } = recordingFetch();
    const dates: string[] = [];
    for await (const bar of client({ fetch }).benchmarks.iterate({
      ticker: 'SPY',
      from: '2015-01-01',
      limit: 500,
    })) {
      dates.push(bar.date);
    }
    assert.deepEqual(
      dates,
      whole.map((bar) => bar.date),
    );
    assert.equal(calls.length, Math.ceil(whole.length / 500));
    assert.ok(calls.slice(0, -1).every((c) => c.headers.get('link')?.includes('rel="next"')));
    assert.equal(calls.at(-1)?.headers.get('link'), null);
  });

  test('market.iterateCandles pages a ticker path the same way', async () => {
    const bars = [];
    for await (const bar of client().market.iterateCandles('ITA', { from: '2024-01-01', limit: 100 }))
      bars.push(bar);
    const whole = await client().market.candles('ITA', { from: '2024-01-01', limit: 5000 });
    assert.ok(whole.length > 200);
    assert.deepEqual(bars, whole);
  });
});

describe('typed errors', () => {
  test('an unknown contract is a NotFoundError with the envelope code and the request id', async () => {
    const { calls, fetch } = recordingFetch();
    const error = await client({ fetch })
      .contracts.get('CONT_AWD_NO_SUCH_AWARD')
      .catch((e: unknown) => e);
    assert.ok(error instanceof NotFoundError);
    assert.ok(error instanceof MarketIntelError);
    assert.equal(error.status, 404);
    assert.equal(error.code, 'not_found');
    assert.match(error.message, /CONT_AWD_NO_SUCH_AWARD/);
    assert.ok(error.requestId);
    assert.equal(error.requestId, calls[0]?.headers.get('x-request-id'));
    assert.equal(calls.length, 1, 'a 404 is not retried');
  });

  test('a request id given in the headers comes back on the error', async () => {
    const error = await client()
      .contracts.get('CONT_AWD_NO_SUCH_AWARD', { headers: { 'x-request-id': 'sdk-test-1' } })
      .catch((e: unknown) => e);
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.requestId, 'sdk-test-1');
  });

  test('a value out of range is a ValidationError naming the parameter', async () => {
    const error = await client()
      .events.list({ limit: 201 })
      .catch((e: unknown) => e);
    assert.ok(error instanceof ValidationError);
    assert.equal(error.code, 'invalid_parameter');
    assert.match(error.message, /limit/);
  });

  test('an unknown key is an AuthenticationError', async () => {
    const error = await client({ apiKey: `iv_live_${'x'.repeat(43)}` })
      .events.list()
      .catch((e: unknown) => e);
    assert.ok(error instanceof AuthenticationError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'unauthorized');
  });

  test('over its window a key gets a RateLimitError with retryAfter, and rateLimit shows 0 left', async () => {
    const testKey = (await makeKey(server.db, { mode: 'test' })).raw;
    const sdk = client({ apiKey: testKey, maxRetries: 0 });
    for (let i = 0; i < 30; i++) await sdk.usage.get();
    assert.equal(sdk.rateLimit?.remaining, 0);
    const error = await sdk.usage.get().catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limited');
    assert.ok(
      error.retryAfter !== null && error.retryAfter >= 1 && error.retryAfter <= 60,
      `${error.retryAfter}`,
    );
    assert.equal(sdk.rateLimit?.limit, 30);
    assert.equal(sdk.rateLimit?.remaining, 0);
  });
});
