/**
 * The document is exact: the real app, driven through every operation, every status each declares and
 * every content type (both export formats, conditional requests and 304s, limits and 429s, the keyless
 * 401 with its wait, conflicts and in-progress 409s, idempotent replays and reused keys, 413, 415,
 * 503), is checked answer by answer as a strict validating proxy would (ResponseValidator: status,
 * headers declared required, each header's and the body's schema by content type, Ajv strict mode).
 * Zero violations, and nothing declared that the run did not produce.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/types.ts';
import { type CallOptions, call, type Fixture, openApiFixture } from './openapi-fixture.ts';
import { type Operation, operations, ResponseValidator, type Target } from './openapi-support.ts';

let fixture: Fixture;
let validator: ResponseValidator;
before(async () => {
  fixture = await openApiFixture();
  validator = new ResponseValidator(fixture.doc);
});
after(() => fixture.close());

const violations: string[] = [];
/** `operationId` → the statuses and `status content-type` pairs answered. */
const produced = new Map<string, Set<string>>();
let address = 0;

function record(target: Target, res: LightMyRequestResponse): LightMyRequestResponse {
  violations.push(...validator.violations(target.method, target.path, res));
  const seen = produced.get(target.op.operationId) ?? new Set<string>();
  const type = String(res.headers['content-type'] ?? '').split(';')[0];
  seen.add(String(res.statusCode)).add(`${res.statusCode} ${type}`);
  produced.set(target.op.operationId, seen);
  return res;
}

/** One request of the operation, validated; a fresh address each time, so no allowance runs out. */
async function send(target: Target, options: CallOptions = {}, server?: App) {
  address += 1;
  const remoteAddress = `10.77.${address >> 8}.${address & 255}`;
  const res = await call(server ?? fixture.app, target, fixture.samples, { remoteAddress, ...options });
  return record(target, res);
}

const hasPathParams = (op: Operation) => (op.parameters ?? []).some((p) => p.in === 'path');
const isOpen = (op: Operation) => op.security?.some((s) => Object.keys(s).length === 0) === true;
const isPage = (op: Operation) => op['x-tier'] === undefined;

/** A finished delivery can be resent; a pending one is a 409. */
const deliveryStatus = (status: 'failed' | 'pending') =>
  fixture.db.query('UPDATE webhook_deliveries SET status = $2 WHERE id = $1', [
    fixture.samples.deliveries,
    status,
  ]);

/** Success in each content type; for a cacheable read, its 304. */
async function succeed(target: Target) {
  const admin = { key: fixture.keys.admin };
  const formats = target.op.responses['200']?.content?.['application/x-ndjson'] ? ['csv', 'ndjson'] : [''];
  for (const format of formats) {
    if (target.path.endsWith('/resend')) await deliveryStatus('failed');
    const res = await send(target, { ...admin, query: format && `format=${format}&limit=3` });
    assert.ok(res.statusCode < 300, `${target.op.operationId}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    if (target.op.responses['304'] && res.headers.etag) {
      await send(target, { ...admin, headers: { 'if-none-match': String(res.headers.etag) } });
    }
  }
}

/** Idempotency-Key: first answer, its replay, the key reused on another request, and one still running. */
async function idempotency(target: Target, other: Target) {
  const key = `conformance-${target.op.operationId}`;
  const withKey = { key: fixture.keys.admin, headers: { 'idempotency-key': key } };
  if (target.path.endsWith('/resend')) await deliveryStatus('failed');
  const first = await send(target, withKey);
  assert.ok(
    first.statusCode < 300,
    `${target.op.operationId}: ${first.statusCode} ${first.body.slice(0, 200)}`,
  );
  const replay = await send(target, withKey);
  assert.equal(replay.headers['idempotent-replayed'], 'true', target.op.operationId);
  // A key first sent with another operation's request (one that always succeeds).
  const reused = { key: fixture.keys.admin, headers: { 'idempotency-key': `${key}-reused` } };
  assert.ok((await send(other, reused)).statusCode < 300);
  assert.equal((await send(target, reused)).statusCode, 422);
  await fixture.db.query(
    `UPDATE idempotency_keys SET status = NULL, body = NULL, lock_token = gen_random_uuid(), locked_at = now()
      WHERE idempotency_key = $1`,
    [key],
  );
  const running = await send(target, withKey);
  assert.equal(running.statusCode, 409, running.body);
}

/** The refusals every keyed operation can give, and the errors of a request it cannot take. */
async function refuse(target: Target) {
  const { admin, free } = fixture.keys;
  await send(target, { key: admin, query: 'no_such_parameter=1' });
  await send(target, {});
  // The keyless allowance is spent: 401 with Retry-After.
  await send(target, {}, fixture.refusing);
  if (!isOpen(target.op)) {
    await send(target, { key: free });
    await send(target, { key: admin }, fixture.refusing);
  }
  await send(target, { key: admin }, fixture.unavailable);
  if (hasPathParams(target.op)) await send(target, { key: admin, missing: true });
  if (target.op.requestBody) {
    const large = String(64 * 1024 * 1024);
    await send(target, {
      key: admin,
      headers: { 'content-length': large, 'content-type': 'application/json' },
    });
    await send(target, { key: admin, headers: { 'content-type': 'text/plain' }, payload: 'x' });
  }
}

/** 409s of state: the example user again; a pending delivery resent; a deleted webhook re-enabled. */
async function conflict(target: Target) {
  if (target.path.endsWith('/resend')) await deliveryStatus('pending');
  if (target.path.endsWith('/enable')) {
    const made = await fixture.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { 'x-api-key': fixture.keys.admin },
      payload: { url: 'https://hooks.example.com/deleted' },
    });
    const id = made.json<{ webhook: { id: string } }>().webhook.id;
    await fixture.app.inject({
      method: 'DELETE',
      url: `/api/v1/webhooks/${id}`,
      headers: { 'x-api-key': fixture.keys.admin },
    });
    address += 1;
    const res = await call(
      fixture.app,
      target,
      { ...fixture.samples, webhooks: id },
      { key: fixture.keys.admin },
    );
    record(target, res);
    return;
  }
  await send(target, { key: fixture.keys.admin });
}

describe('openapi.json against the running app, as a strict validating proxy checks it', () => {
  test('every answer of every operation, status and content type conforms', async () => {
    // Deletions last, so the other operations still find what they act on.
    const ordered = operations(fixture.doc).sort(
      (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
    );
    // Rescoring succeeds however often it is asked (idempotent per engine version); so does an ingest.
    const anotherIdempotent = (t: Target) =>
      ordered.find(
        (o) => ['postContractsIdScore', 'postAdminIngest'].includes(o.op.operationId) && o !== t,
      ) as Target;
    for (const target of ordered) {
      // An idempotent operation succeeds (and is replayed) under its key; once is enough for a creation.
      if (target.op.responses['422']) await idempotency(target, anotherIdempotent(target));
      else await succeed(target);
      if (isPage(target.op)) {
        await send(target, { query: 'no_such_parameter=1' });
        continue;
      }
      await refuse(target);
      if (target.op.responses['409']) await conflict(target);
    }
    assert.deepEqual(violations, []);
  });

  test('nothing is declared that the run did not produce: each status, and each content type of a 200', () => {
    const missing: string[] = [];
    for (const target of operations(fixture.doc)) {
      const seen = produced.get(target.op.operationId) ?? new Set<string>();
      for (const [status, response] of Object.entries(target.op.responses)) {
        if (!seen.has(status)) missing.push(`${target.op.operationId} ${status}`);
        for (const type of Object.keys(response.content ?? {})) {
          if (status === '200' && !seen.has(`${status} ${type}`))
            missing.push(`${target.op.operationId} 200 ${type}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  test('the validator is strict: an undeclared status, a wrong content type, a bad line or a missing header is caught', () => {
    const events = operations(fixture.doc).find((t) => t.op.operationId === 'getEventsExport') as Target;
    const ok = {
      'x-request-id': 'r',
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    };
    const exported = {
      ...ok,
      'content-type': 'application/x-ndjson',
      'content-disposition': 'attachment',
      'cache-control': 'no-store',
    };
    const at = (res: { statusCode: number; headers: Record<string, string>; body: string }) =>
      validator.violations(events.method, events.path, res);
    assert.deepEqual(at({ statusCode: 200, headers: exported, body: '' }), []);
    assert.equal(at({ statusCode: 418, headers: ok, body: '' }).length, 1, 'undeclared status');
    assert.equal(
      at({ statusCode: 200, headers: { ...exported, 'content-type': 'text/html' }, body: '' }).length,
      1,
    );
    assert.equal(
      at({ statusCode: 200, headers: exported, body: '{"contract":1}\n' }).length,
      1,
      'a bad line',
    );
    assert.equal(at({ statusCode: 200, headers: exported, body: '{}' }).length, 1, 'no final newline');
    const { 'x-request-id': _gone, ...noId } = exported;
    assert.equal(at({ statusCode: 200, headers: noId, body: '' }).length, 1, 'a required header missing');
    assert.equal(
      at({ statusCode: 200, headers: { ...exported, 'cache-control': 'private' }, body: '' }).length,
      1,
    );
  });
});
