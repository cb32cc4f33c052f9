/**
 * CORS behind CORS_ORIGINS: off by default; with a list, only listed origins are echoed (never `*`,
 * never with credentials), every API answer varies by Origin, preflights are answered without a key,
 * and the dashboard never takes part.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { makeKey, testApp } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

let db: Db;
let off: App;
let on: App;
let key: string;
before(async () => {
  db = await freshDb();
  off = await testApp(db);
  on = await testApp(db, { CORS_ORIGINS: `${ALLOWED}, http://localhost:5173` });
  key = (await makeKey(db, { plan: 'developer' })).raw;
});
after(async () => {
  await on.close();
  await off.close();
  await db.close();
});

const preflight = (app: App, origin: string, url = '/api/v1/events', method = 'GET') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'x-api-key, idempotency-key',
    },
    remoteAddress: '10.40.0.1',
  });

describe('CORS_ORIGINS', () => {
  test('is validated: origins only, no wildcard, no path', () => {
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://a.example, http://127.0.0.1:3000' }).corsOrigins, [
      'https://a.example',
      'http://127.0.0.1:3000',
    ]);
    for (const bad of [
      '*',
      'https://a.example/',
      'https://a.example/app',
      'a.example',
      'ftp://a.example',
      'null',
    ]) {
      assert.throws(
        () => loadConfig({ CORS_ORIGINS: bad }),
        (error: unknown) => error instanceof ConfigError && /CORS_ORIGINS/.test(error.message),
        bad,
      );
    }
  });
});

describe('CORS off (the default)', () => {
  test('no CORS header on any answer, and a preflight is an ordinary 404/405', async () => {
    const res = await off.inject({ url: '/api/v1/events', headers: { origin: ALLOWED, 'x-api-key': key } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    const pre = await preflight(off, ALLOWED);
    assert.ok([404, 405].includes(pre.statusCode), String(pre.statusCode));
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
  });
});

describe('CORS on', () => {
  test('a listed origin is echoed on answers and on errors, with the headers a client reads exposed', async () => {
    const ok = await on.inject({
      url: '/api/v1/events?limit=1',
      headers: { origin: ALLOWED, 'x-api-key': key },
    });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['access-control-allow-origin'], ALLOWED);
    assert.equal(ok.headers['access-control-allow-credentials'], undefined, 'never with credentials');
    assert.match(String(ok.headers.vary), /Origin/);
    const exposed = String(ok.headers['access-control-expose-headers']);
    for (const name of ['ETag', 'Link', 'Retry-After', 'X-Request-Id', 'X-RateLimit-Remaining']) {
      assert.ok(exposed.includes(name), name);
    }
    // Added to the Vary a route sets itself (the exports vary by Accept).
    const exported = await on.inject({
      url: '/api/v1/events/export?limit=1',
      headers: { origin: ALLOWED, 'x-api-key': key },
    });
    assert.equal(exported.statusCode, 200);
    assert.deepEqual(
      String(exported.headers.vary)
        .split(',')
        .map((name) => name.trim())
        .sort(),
      ['Accept', 'Origin'],
    );
    const refused = await on.inject({
      url: '/api/v1/events',
      headers: { origin: ALLOWED },
      remoteAddress: '10.40.0.2',
    });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], ALLOWED, 'the error is readable too');
  });

  test('an origin not listed gets no CORS header, only Vary: Origin', async () => {
    for (const origin of [OTHER, 'null', `${ALLOWED}.evil.net`, ALLOWED.toUpperCase()]) {
      const res = await on.inject({ url: '/api/v1/events?limit=1', headers: { origin, 'x-api-key': key } });
      assert.equal(res.statusCode, 200, origin);
      assert.equal(res.headers['access-control-allow-origin'], undefined, origin);
      assert.match(String(res.headers.vary), /Origin/, origin);
    }
    const none = await on.inject({ url: '/api/v1/health', remoteAddress: '10.40.0.3' });
    assert.equal(none.headers['access-control-allow-origin'], undefined);
    assert.match(String(none.headers.vary), /Origin/);
  });

  test('a preflight is answered without a key or a charge; refused for other origins and unknown routes', async () => {
    const res = await preflight(on, ALLOWED, '/api/v1/admin/users', 'POST');
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.headers['access-control-allow-origin'], ALLOWED);
    assert.match(String(res.headers['access-control-allow-methods']), /POST/);
    const allowHeaders = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const name of ['x-api-key', 'authorization', 'idempotency-key', 'content-type', 'if-none-match']) {
      assert.ok(allowHeaders.includes(name), name);
    }
    assert.equal(res.headers['access-control-max-age'], '600');
    assert.equal(res.headers['x-ratelimit-limit'], undefined, 'no allowance spent');
    for (let i = 0; i < 15; i++) assert.equal((await preflight(on, ALLOWED)).statusCode, 204);

    const other = await preflight(on, OTHER);
    assert.equal(other.statusCode, 403);
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    assert.equal(other.json<{ error: { code: string } }>().error.code, 'forbidden');
    const nowhere = await preflight(on, ALLOWED, '/api/v1/nothing-here');
    assert.equal(nowhere.statusCode, 404);
    const wrongMethod = await preflight(on, ALLOWED, '/api/v1/events', 'DELETE');
    assert.equal(wrongMethod.statusCode, 404);
  });

  test('the dashboard never takes part', async () => {
    const page = await on.inject({ url: '/dashboard', headers: { origin: ALLOWED } });
    assert.equal(page.headers['access-control-allow-origin'], undefined);
    const api = await on.inject({ url: '/dashboard/api/me', headers: { origin: ALLOWED } });
    assert.equal(api.headers['access-control-allow-origin'], undefined);
    const pre = await preflight(on, ALLOWED, '/dashboard/api/keys', 'POST');
    assert.notEqual(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
  });
});
