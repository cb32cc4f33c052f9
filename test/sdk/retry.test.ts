/**
 * Retries against a local scripted server: 429 waits Retry-After, 5xx and dropped connections back off
 * exponentially within the cap, only GETs and POSTs with an Idempotency-Key are repeated, and the
 * number of retries is what the options say.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  ConflictError,
  ConnectionError,
  MarketIntel,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
} from '../../sdk/src/index.ts';
import { backoffMs } from '../../sdk/src/transport.ts';

type Step = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Every answer closes its connection: a kept-alive socket that the server closed while idle, reused by
 * the next test, is a dropped connection — which an unkeyed POST rightly does not retry — and a loaded
 * machine made that race real.
 */
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Step => {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
    res.end(JSON.stringify(body));
  };
};
const envelope = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { status, message: code, code, request_id: `req-${status}` } }, headers);
const health = json(
  200,
  { ok: true },
  { 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '29', 'x-ratelimit-reset': '1767225600000' },
);

let server: Server;
let baseUrl: string;
let script: Step[] = [];
const seen: { at: number; method: string; headers: IncomingMessage['headers'] }[] = [];

before(async () => {
  server = createServer((req, res) => {
    seen.push({ at: Date.now(), method: req.method ?? '', headers: req.headers });
    req.resume();
    const step = script.shift() ?? envelope(500, 'internal');
    step(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
beforeEach(() => {
  seen.length = 0;
  script = [];
});

const client = (options: ConstructorParameters<typeof MarketIntel>[0] = {}) =>
  new MarketIntel({ apiKey: 'iv_test_x', baseUrl, retryDelayMs: 40, maxRetryDelayMs: 100, ...options });
const gaps = () => seen.slice(1).map((s, i) => s.at - (seen[i]?.at ?? 0));

describe('retries', () => {
  test('a 429 is retried after its Retry-After seconds, then succeeds', async () => {
    script = [envelope(429, 'rate_limited', { 'retry-after': '1' }), health];
    const started = Date.now();
    const result = await client({ maxRetryDelayMs: 1000 }).health.live();
    assert.deepEqual(result, { ok: true });
    assert.equal(seen.length, 2);
    assert.ok(Date.now() - started >= 1000, 'waited the second Retry-After asked for');
    assert.ok((gaps()[0] ?? 0) >= 990, `gap ${gaps()[0]} ms`);
  });

  test('5xx answers back off exponentially with jitter under the cap, and the last answer decides', async () => {
    script = [envelope(503, 'unavailable'), envelope(502, 'bad_gateway'), envelope(500, 'internal'), health];
    const sdk = client({ maxRetries: 3, retryDelayMs: 60, maxRetryDelayMs: 150 });
    assert.deepEqual(await sdk.health.live(), { ok: true });
    assert.equal(seen.length, 4);
    const [first, second, third] = gaps();
    // Ceilings 60, 120, then 240 capped to 150; equal jitter waits at least half the ceiling. (The upper
    // bounds are loose for a busy machine; the back-off test below pins the cap exactly.)
    assert.ok(first !== undefined && first >= 28 && first < 60 + 400, `first ${first}`);
    assert.ok(second !== undefined && second >= 58 && second < 120 + 400, `second ${second}`);
    assert.ok(third !== undefined && third >= 73 && third < 150 + 400, `third ${third}`);
    assert.deepEqual(sdk.rateLimit, { limit: 30, remaining: 29, reset: new Date(1767225600000) });
  });

  test('gives up after maxRetries with a ServerError carrying the envelope', async () => {
    script = [
      envelope(503, 'unavailable', { 'retry-after': '0' }),
      envelope(503, 'unavailable'),
      envelope(503, 'unavailable'),
    ];
    const error = await client({ maxRetries: 2 })
      .health.live()
      .catch((e: unknown) => e);
    assert.ok(error instanceof ServerError);
    assert.equal(error.status, 503);
    assert.equal(error.code, 'unavailable');
    assert.equal(error.requestId, 'req-503');
    assert.equal(seen.length, 3);
  });

  test('maxRetries: 0 answers the first 429 with a RateLimitError', async () => {
    script = [envelope(429, 'rate_limited', { 'retry-after': '7' })];
    const error = await client({ maxRetries: 0 })
      .health.live()
      .catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfter, 7);
    assert.equal(seen.length, 1);
  });

  test('a dropped connection is retried', async () => {
    script = [(req) => req.socket.destroy(), health];
    assert.deepEqual(await client().health.live(), { ok: true });
    assert.equal(seen.length, 2);
  });

  test('a request past timeoutMs is a ConnectionError with code timeout', async () => {
    script = [(_req, res) => setTimeout(() => health(_req, res), 400)];
    const error = await client({ timeoutMs: 100, maxRetries: 0 })
      .health.live()
      .catch((e: unknown) => e);
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.code, 'timeout');
    assert.equal(error.status, 0);
  });

  test('a POST without an Idempotency-Key is not repeated', async () => {
    script = [envelope(503, 'unavailable'), json(200, { signal: {} })];
    const error = await client()
      .contracts.score('C1')
      .catch((e: unknown) => e);
    assert.ok(error instanceof ServerError);
    assert.equal(seen.length, 1);
  });

  test('a POST with an Idempotency-Key is repeated with the same key', async () => {
    script = [
      envelope(503, 'unavailable'),
      envelope(429, 'rate_limited', { 'retry-after': '0' }),
      json(200, { signal: {} }),
    ];
    const result = await client().contracts.score('C1', {}, { idempotencyKey: 'score-C1-1' });
    assert.deepEqual(result, { signal: {} });
    assert.deepEqual(
      seen.map((s) => [s.method, s.headers['idempotency-key']]),
      [
        ['POST', 'score-C1-1'],
        ['POST', 'score-C1-1'],
        ['POST', 'score-C1-1'],
      ],
    );
  });

  test('a 4xx other than 429 is final', async () => {
    script = [envelope(404, 'not_found'), health];
    await assert.rejects(client().health.live(), { status: 404, code: 'not_found' });
    assert.equal(seen.length, 1);
  });

  test('aborting stops the wait between attempts', async () => {
    const controller = new AbortController();
    const refuse = envelope(429, 'rate_limited', { 'retry-after': '30' });
    // Aborted once the answer is out, so the client is in its wait (not still sending) however loaded the machine.
    script = [
      (req, res) => {
        res.once('finish', () => setTimeout(() => controller.abort(new Error('stop')), 50));
        refuse(req, res);
      },
    ];
    const started = Date.now();
    const patient = client({ maxRetryDelayMs: 60_000, retryBudgetMs: 60_000 });
    await assert.rejects(patient.health.live({ signal: controller.signal }), /stop/);
    assert.ok(Date.now() - started < 5000);
    assert.equal(seen.length, 1);
  });
});

describe('capped waits', () => {
  test('a Retry-After above maxRetryDelayMs (8 s by default) is not waited for: the error comes at once', async () => {
    script = [envelope(429, 'rate_limited', { 'retry-after': '60' }), health];
    const started = Date.now();
    const defaults = new MarketIntel({ apiKey: 'iv_test_x', baseUrl });
    const error = await defaults.health.live().catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfter, 60);
    assert.equal(seen.length, 1, 'no second request');
    assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
  });

  test('the waits of one call stay within retryBudgetMs: the retry that would exceed it is not made', async () => {
    const unavailable = envelope(503, 'unavailable', { 'retry-after': '1' });
    script = [unavailable, unavailable, unavailable, health];
    const error = await client({ maxRetries: 5, maxRetryDelayMs: 2000, retryBudgetMs: 1500 })
      .health.live()
      .catch((e: unknown) => e);
    assert.ok(error instanceof ServiceUnavailableError);
    assert.ok(error instanceof ServerError);
    assert.equal(seen.length, 2, 'one wait of 1 s fits in 1.5 s, a second does not');
  });

  test('a per-request budget of 0 turns the waits off', async () => {
    script = [envelope(503, 'unavailable'), health];
    await assert.rejects(client().health.live({ retryBudgetMs: 0 }), ServiceUnavailableError);
    assert.equal(seen.length, 1);
  });
});

describe('what is retried', () => {
  const inProgress = envelope(409, 'idempotency_in_progress', { 'retry-after': '0' });

  test('409 idempotency_in_progress is retried for a POST with an Idempotency-Key', async () => {
    script = [inProgress, json(200, { signal: { id: 's' } })];
    const result = await client().contracts.score('C1', {}, { idempotencyKey: 'score-C1-2' });
    assert.deepEqual(result, { signal: { id: 's' } });
    assert.deepEqual(
      seen.map((s) => s.headers['idempotency-key']),
      ['score-C1-2', 'score-C1-2'],
    );
  });

  test('409 idempotency_in_progress without a key, and a plain 409 conflict with one, are final', async () => {
    script = [inProgress, health];
    await assert.rejects(client().health.live(), ConflictError);
    assert.equal(seen.length, 1);
    seen.length = 0;
    script = [envelope(409, 'conflict'), json(200, {})];
    const error = await client()
      .contracts.score('C1', {}, { idempotencyKey: 'k' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof ConflictError);
    assert.equal(error.code, 'conflict');
    assert.equal(seen.length, 1);
  });

  test('a 408 is retried like a 5xx', async () => {
    script = [envelope(408, 'request_timeout'), health];
    assert.deepEqual(await client().health.live(), { ok: true });
    assert.equal(seen.length, 2);
  });
});

describe('back-off', () => {
  test('stays within half the capped ceiling and the ceiling, for any retry number', () => {
    const policy = { retryDelayMs: 500, maxRetryDelayMs: 8000 };
    for (let retry = 0; retry < 20; retry++) {
      const ceiling = Math.min(8000, 500 * 2 ** retry);
      for (let i = 0; i < 50; i++) {
        const wait = backoffMs(retry, policy);
        assert.ok(wait >= ceiling / 2 && wait <= ceiling, `retry ${retry}: ${wait}`);
      }
    }
  });
});
