/**
 * Against the real app over HTTP: every call's answer is reachable through `withResponse()` without
 * changing what the call resolves to, a conditional GET resolves to a typed `Conditional`, exports
 * stream as parsed rows equal to the lists' items, and a reused Idempotency-Key is its own error class.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { MarketIntel, NotFoundError, UnprocessableEntityError } from '../../sdk/src/index.ts';
import { buildApp } from '../../src/app.ts';
import { makeKey, testConfig } from '../support/app.ts';
import { type LiveServer, recordingFetch, startLiveServer } from './server.ts';

let server: LiveServer;
let apiKey: string;

before(async () => {
  server = await startLiveServer((db) =>
    buildApp({ config: testConfig({ SECRET_KEY: 'sdk-metadata-test-secret' }), db, logger: false }),
  );
  apiKey = (await makeKey(server.db)).raw;
});
after(() => server.close());

const client = (options: ConstructorParameters<typeof MarketIntel>[0] = {}) =>
  new MarketIntel({ apiKey, baseUrl: server.baseUrl, ...options });

describe('withResponse', () => {
  test('gives the data with its status, headers, request id, rate limit and ETag', async () => {
    const { calls, fetch } = recordingFetch();
    const sdk = client({ fetch });
    const { data, response } = await sdk.events.list({ ticker: 'LMT', limit: 2 }).withResponse();
    assert.equal(data.data.length, 2);
    const sent = calls[0]?.headers;
    assert.ok(sent);
    assert.equal(response.status, 200);
    assert.equal(response.attempts, 1);
    assert.ok(response.requestId);
    assert.equal(response.requestId, sent.get('x-request-id'));
    assert.match(response.etag ?? '', /^"[\w-]{27}"$/);
    assert.equal(response.rateLimit?.limit, 3000);
    assert.equal(response.rateLimit?.remaining, Number(sent.get('x-ratelimit-remaining')));
    assert.equal(response.headers.get('link'), sent.get('link'));
    assert.equal(new URL(response.url).pathname, '/api/v1/events');
  });

  test('the plain call resolves to the same value as before, with no added fields', async () => {
    const sdk = client();
    const plain = await sdk.events.list({ ticker: 'LMT', limit: 2 });
    const { data } = await sdk.events.list({ ticker: 'LMT', limit: 2 }).withResponse();
    assert.deepEqual(Object.keys(plain).sort(), ['data', 'pagination']);
    assert.deepEqual(plain, data);
  });

  test('a failing call rejects withResponse() once, and nothing is left unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const error = await client()
        .contracts.get('CONT_AWD_NO_SUCH')
        .withResponse()
        .catch((e: unknown) => e);
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.headers?.get('x-request-id'), error.requestId);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('conditional GETs', () => {
  test('ifNoneMatch resolves to {notModified: true} on a 304 and to the data with its tag otherwise', async () => {
    const sdk = client();
    const query = { ticker: 'NOC', limit: 3 };
    const first = await sdk.events.list(query).withResponse();
    const etag = first.response.etag;
    assert.ok(etag);
    const same = await sdk.events.list(query, { ifNoneMatch: etag }).withResponse();
    assert.deepEqual(same.data, { notModified: true, etag });
    assert.equal(same.response.status, 304);
    const changed = await sdk.events.list(query, { ifNoneMatch: '"an-older-tag"' });
    assert.equal(changed.notModified, false);
    if (!changed.notModified) assert.deepEqual(changed.data, first.data);
    assert.equal(changed.etag, etag);
  });
});

describe('exports', () => {
  test('exportRows as NDJSON yields the list items, in order', async () => {
    const sdk = client();
    const page = await sdk.events.list({ ticker: 'LMT', limit: 25 });
    const rows = [];
    for await (const row of sdk.events.exportRows({ ticker: 'LMT', format: 'ndjson', limit: 25 }))
      rows.push(row);
    assert.deepEqual(rows, page.data);
  });

  test('exportRows as CSV yields records keyed by the header, the values the JSON has', async () => {
    const sdk = client();
    const items = (await sdk.signals.list({ ticker: 'LMT', limit: 10 })).data;
    const rows = [];
    for await (const row of sdk.signals.exportRows({ ticker: 'LMT', limit: 10 })) rows.push(row);
    assert.deepEqual(
      rows.map((r) => [r.contract_id, r.signal_id, Number(r.signal_score), r.award_date]),
      items.map((i) => [i.contract.id, i.signal.id, i.signal.signal_score, i.contract.award_date]),
    );
  });

  test('a description with quotes, commas and line breaks comes back whole from the CSV', async () => {
    const sdk = client();
    const [first] = (await sdk.events.list({ ticker: 'GD', limit: 1 })).data;
    assert.ok(first);
    const description = `Hull "B", phase 2,\r\nline two\nline three`;
    await server.db.query('UPDATE contracts SET description = $1 WHERE id = $2', [
      description,
      first.contract.id,
    ]);
    const found = [];
    for await (const row of sdk.events.exportRows({ ticker: 'GD', from: first.contract.award_date }))
      if (row.contract_id === first.contract.id) found.push(row.description);
    assert.deepEqual(found, [description]);
  });

  test('exportStream gives the answer first, then the same bytes export() returns whole', async () => {
    const sdk = client();
    const query = { ticker: 'RTX', limit: 40 } as const;
    const exported = await sdk.events.exportStream({ ...query, format: 'ndjson' });
    assert.equal(exported.format, 'ndjson');
    assert.equal(exported.response.status, 200);
    assert.ok(exported.response.requestId);
    assert.ok(exported.response.rateLimit);
    assert.match(exported.response.headers.get('content-disposition') ?? '', /events-.*\.ndjson/);
    const chunks: Uint8Array[] = [];
    for await (const chunk of exported) chunks.push(chunk);
    const whole = await sdk.events.export({ ...query, format: 'ndjson' });
    assert.equal(Buffer.concat(chunks).toString('utf8'), whole);
  });
});

test('a reused Idempotency-Key with another request is an UnprocessableEntityError', async () => {
  const admin = client({
    apiKey: (await makeKey(server.db, { admin: true, scopes: ['read', 'write', 'admin'] })).raw,
  });
  const idempotencyKey = randomUUID();
  const email = (n: number) => `sdk-idem-${n}-${idempotencyKey}@example.test`;
  await admin.admin.users.create({ email: email(1), plan: 'free' }, { idempotencyKey });
  const error = await admin.admin.users
    .create({ email: email(2), plan: 'free' }, { idempotencyKey })
    .catch((e: unknown) => e);
  assert.ok(error instanceof UnprocessableEntityError, String(error));
  assert.equal(error.status, 422);
  assert.equal(error.code, 'idempotency_key_reused');
});
