/**
 * One security suite over every keyed route: each must refuse the same bad credentials the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HTTPMethods } from 'fastify';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Envelope, makeKey, openSeededApp } from '../support/app.ts';

let db: Db;
let app: App;
let contractId: string;
let ip = 0;

before(async () => {
  ({ db, app } = await openSeededApp());
  const [row] = await db.query<{ id: string }>('SELECT id FROM contracts WHERE ticker IS NOT NULL LIMIT 1');
  assert.ok(row);
  contractId = row.id;
});
after(() => closeApp(app, db));

interface Route {
  method: HTTPMethods;
  url: () => string;
  tier: 'developer' | 'intelligence' | 'admin';
  scope: 'read' | 'write' | 'admin';
  body?: unknown;
}

const ROUTES: Route[] = [
  { method: 'GET', url: () => '/api/v1/events', tier: 'developer', scope: 'read' },
  { method: 'GET', url: () => '/api/v1/contracts', tier: 'developer', scope: 'read' },
  { method: 'GET', url: () => `/api/v1/contracts/${contractId}`, tier: 'developer', scope: 'read' },
  { method: 'GET', url: () => `/api/v1/contracts/${contractId}/score`, tier: 'developer', scope: 'read' },
  { method: 'POST', url: () => `/api/v1/contracts/${contractId}/score`, tier: 'developer', scope: 'write' },
  { method: 'GET', url: () => '/api/v1/signals', tier: 'developer', scope: 'read' },
  { method: 'GET', url: () => '/api/v1/companies/LMT', tier: 'developer', scope: 'read' },
  { method: 'GET', url: () => '/api/v1/market/candles/SPY', tier: 'developer', scope: 'read' },
  { method: 'GET', url: () => '/api/v1/benchmarks?ticker=SPY', tier: 'developer', scope: 'read' },
  { method: 'GET', url: () => '/api/v1/regimes', tier: 'intelligence', scope: 'read' },
  { method: 'GET', url: () => '/api/v1/predictions', tier: 'intelligence', scope: 'read' },
  { method: 'GET', url: () => '/api/v1/usage', tier: 'developer', scope: 'read' },
  {
    method: 'POST',
    url: () => '/api/v1/admin/users',
    tier: 'admin',
    scope: 'admin',
    body: { email: `new-${Date.now()}-${Math.random()}@example.test`, plan: 'developer' },
  },
];

/** Each call comes from its own address, so the per-IP keyless allowance never interferes. */
function call(route: Route, headers: Record<string, string> = {}) {
  ip += 1;
  return app.inject({
    method: route.method,
    url: route.url(),
    headers,
    payload: route.body as Record<string, unknown> | undefined,
    remoteAddress: `10.1.${ip >> 8}.${ip & 255}`,
  });
}

function assertError(res: Awaited<ReturnType<typeof call>>, status: number, message: RegExp) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<Envelope>();
  assert.equal(body.error.status, status);
  assert.match(body.error.message, message);
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    assert.ok(res.headers[header] !== undefined, `${header} on a ${status}`);
  }
}

describe('every keyed route', () => {
  let revoked: string;
  let readOnly: string;
  let developer: string;
  let testKey: string;
  let admin: string;
  let liveOnFree: string;
  let intelligence: string;

  before(async () => {
    const r = await makeKey(db);
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [r.keyId]);
    revoked = r.raw;
    readOnly = (await makeKey(db, { scopes: ['read'] })).raw;
    developer = (await makeKey(db, { plan: 'developer', scopes: ['read', 'write'] })).raw;
    testKey = (await makeKey(db, { plan: 'free', mode: 'test', scopes: ['read', 'write'] })).raw;
    admin = (await makeKey(db, { admin: true, scopes: ['admin'] })).raw;
    const free = await makeKey(db, { plan: 'developer' });
    await db.query("UPDATE users SET plan = 'free' WHERE id = $1", [free.userId]);
    liveOnFree = free.raw;
    intelligence = (await makeKey(db, { plan: 'institutional', scopes: ['read'] })).raw;
  });

  for (const route of ROUTES) {
    describe(`${route.method} ${route.url().replace(contractId ?? '', '{id}')} (${route.tier}, ${route.scope})`, () => {
      test('no key → 401', async () => assertError(await call(route), 401, /missing API key/));
      test('malformed key → 401', async () =>
        assertError(await call(route, { 'x-api-key': 'not-a-key' }), 401, /invalid API key/));
      test('malformed Authorization → 401', async () =>
        assertError(await call(route, { authorization: 'Basic abc' }), 401, /invalid API key/));
      test('unknown key → 401', async () =>
        assertError(
          await call(route, { authorization: `Bearer iv_live_${'A'.repeat(43)}` }),
          401,
          /invalid API key/,
        ));
      test('revoked key → 401', async () =>
        assertError(await call(route, { 'x-api-key': revoked }), 401, /revoked/));
      test('live key of a plan without live access → 403', async () =>
        assertError(await call(route, { 'x-api-key': liveOnFree }), 403, /plan has no live API access/));
      if (route.scope !== 'read') {
        test('read-only key → 403 insufficient scope', async () =>
          assertError(await call(route, { 'x-api-key': readOnly }), 403, new RegExp(`needs ${route.scope}`)));
      }
      if (route.tier === 'intelligence') {
        test('developer plan → 403 naming the tier', async () =>
          assertError(
            await call(route, { 'x-api-key': developer }),
            403,
            /requires the intelligence tier; your plan is developer/,
          ));
      }
      if (route.tier === 'admin') {
        test('a read key → 403 needing admin', async () =>
          assertError(await call(route, { 'x-api-key': readOnly }), 403, /needs admin/));
        test('admin scope on a user who is no longer admin → 403', async () => {
          const demoted = await makeKey(db, { admin: true, scopes: ['admin'] });
          await db.query('UPDATE users SET is_admin = false WHERE id = $1', [demoted.userId]);
          assertError(await call(route, { 'x-api-key': demoted.raw }), 403, /admin users only/);
        });
        test('admin key of an admin user → 201', async () => {
          const res = await call(route, { 'x-api-key': admin });
          assert.equal(res.statusCode, 201, res.body);
        });
      } else {
        test('a valid key reaches it, with the rate-limit headers', async () => {
          const key = route.tier === 'intelligence' ? intelligence : developer;
          const res = await call(route, { authorization: `Bearer ${key}` });
          assert.ok(res.statusCode < 400 || res.statusCode === 404, `${res.statusCode} ${res.body}`);
          assert.ok(Number(res.headers['x-ratelimit-limit']) > 0);
        });
      }
    });
  }

  test('test keys are capped at 30 requests per minute whatever the plan', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/predictions',
        headers: { 'x-api-key': testKey },
      });
      statuses.push(res.statusCode);
      if (i === 0) assert.equal(res.headers['x-ratelimit-limit'], '30');
    }
    // free plan test keys reach the developer tier, so predictions (intelligence) is 403 — but counted.
    assert.equal(
      statuses.slice(0, 30).every((s) => s === 403),
      true,
    );
    assert.equal(statuses[30], 429);
  });
});
