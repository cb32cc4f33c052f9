/**
 * JSON nested past MAX_JSON_DEPTH is refused (400 `invalid_body`) by the body parser, before anything
 * walks it: once a body 5,000 levels deep with an Idempotency-Key overflowed the recursive fingerprint
 * (a 500), as did the webhook resend and the admin ingest. Every route that can take a body is tried.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/http/json-depth.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, makeKey, testApp } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
let app: App;
let headers: Record<string, string>;

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

before(async () => {
  db = await freshDb();
  app = await testApp(db, { SECRET_KEY: 'json-depth-test-secret' });
  const admin = await makeKey(db, { admin: true, scopes: ['read', 'write', 'admin'] });
  const session = await openSession(db, admin.userId, new Date());
  headers = {
    'content-type': 'application/json',
    'x-api-key': admin.raw,
    cookie: `${SESSION_COOKIE}=${session.token}`,
    'x-csrf-token': session.csrfToken,
  };
});
after(async () => {
  await app.close();
  await db.close();
});

describe('nestedDeeperThan', () => {
  test('counts arrays and objects, not brackets inside strings or after escaped quotes', () => {
    assert.equal(nestedDeeperThan(deepArray(3), 3), false);
    assert.equal(nestedDeeperThan(deepArray(4), 3), true);
    assert.equal(nestedDeeperThan(deepObject(4), 3), true);
    assert.equal(nestedDeeperThan(`{"a":"${'['.repeat(100)}"}`, 3), false);
    assert.equal(nestedDeeperThan(`["\\"[[[[[", "\\\\"]`, 3), false);
    assert.equal(nestedDeeperThan(`["\\\\", [[[[]]]]]`, 3), true);
    assert.equal(nestedDeeperThan(deepArray(1_000_000), MAX_JSON_DEPTH), true);
  });
});

describe('every route that takes a body', () => {
  const bodyRoutes = () =>
    // Routes that declare no body refuse any (request hygiene) before a parser sees it.
    app.routeAccess.filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && r.body);

  test('refuses JSON 5,000 and 100,000 levels deep with 400 invalid_body, Idempotency-Key or not', async () => {
    const routes = bodyRoutes();
    assert.ok(routes.length >= 10, `only ${routes.length} routes take a body`);
    for (const route of routes) {
      const url = route.url.replaceAll(/:\w+/g, SAMPLE_ID);
      for (const payload of [deepArray(5_000), deepObject(5_000), deepArray(100_000), deepObject(100_000)]) {
        for (const idempotency of [{ 'idempotency-key': randomUUID() }, {}]) {
          const res = await app.inject({
            method: route.method as 'POST',
            url,
            payload,
            headers: { ...headers, ...idempotency },
          });
          const what = `${route.method} ${url} (${payload.length} bytes)`;
          assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
          const error = res.json<Envelope>().error;
          assert.equal(error.code, 'invalid_body', what);
          assert.match(error.message, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`), what);
        }
      }
    }
  });

  test('accepts a body exactly MAX_JSON_DEPTH levels deep (the admin ingest rejects the record, not the call)', async () => {
    const payload = `{"awards":[${deepArray(MAX_JSON_DEPTH - 2)}]}`;
    const res = await app.inject({ method: 'POST', url: '/api/v1/admin/ingest', payload, headers });
    assert.equal(res.statusCode, 200, res.body);
    const over = `{"awards":[${deepArray(MAX_JSON_DEPTH - 1)}]}`;
    const refused = await app.inject({ method: 'POST', url: '/api/v1/admin/ingest', payload: over, headers });
    assert.equal(refused.statusCode, 400, refused.body);
  });

  test('whatever the spelling of the JSON media type', async () => {
    for (const type of [
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json;charset=UTF-8',
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/admin/ingest',
        payload: deepObject(5_000),
        headers: { ...headers, 'content-type': type },
      });
      assert.equal(res.statusCode, 400, `${type}: ${res.body}`);
      assert.equal(res.json<Envelope>().error.code, 'invalid_body', type);
    }
  });

  test('the parser still refuses prototype poisoning and malformed JSON as before', async () => {
    for (const payload of ['{"__proto__":{"x":1}}', '{"a":', '']) {
      const res = await app.inject({ method: 'POST', url: '/api/v1/admin/ingest', payload, headers });
      assert.equal(res.statusCode, 400, `${payload}: ${res.body}`);
      assert.equal(res.json<Envelope>().error.code, 'invalid_body');
    }
  });
});
