/**
 * Access is a property of the route that answers. Every registered route (the app's own table, filled
 * by Fastify's onRoute) is requested without credentials and with credentials that fall short, under
 * many spellings of its path; a protected handler must never be reached. A new route joins by itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import type { Access, RouteAccess } from '../../src/http/access.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { makeKey, testConfig } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
let app: App;
/** Routes whose handler stage (validation onwards) was reached, as `METHOD url`. */
const reached = new Set<string>();
let address = 0;

const SAMPLE_PARAMS: Record<string, string> = {
  id: '00000000-0000-4000-8000-000000000000',
  ticker: 'LMT',
  file: 'app.js',
};

/** The route's URL with sample values for its parameters, as path segments. */
function segments(url: string): string[] {
  return url
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? (SAMPLE_PARAMS[part.slice(1)] ?? 'x') : part));
}

const encodeChar = (char: string) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
const join = (parts: string[]) => `/${parts.join('/')}`;

/** Spellings of one path that a careless prefix test on the raw URL would not recognise. */
export function spellings(url: string): string[] {
  const parts = segments(url);
  const out = new Set<string>([join(parts), `${join(parts)}/`, `/${join(parts)}`]);
  parts.forEach((part, i) => {
    const at = (replacement: string) => join(parts.map((p, j) => (j === i ? replacement : p)));
    for (const j of new Set([0, part.length - 1])) {
      const char = part[j] ?? '';
      const encoded = encodeChar(char);
      out.add(at(part.slice(0, j) + encoded + part.slice(j + 1)));
      out.add(at(part.slice(0, j) + encoded.toUpperCase() + part.slice(j + 1)));
      out.add(at(part.slice(0, j) + encoded.replace('%', '%25') + part.slice(j + 1)));
    }
    out.add(at(part.toUpperCase()));
    out.add(at(part[0]?.toUpperCase() + part.slice(1)));
    const before = parts.slice(0, i);
    const rest = parts.slice(i);
    out.add(`${join(before)}//${rest.join('/')}`.replace(/^\/\//, '//'));
    out.add(`${join(before)}/./${rest.join('/')}`);
    out.add(`${join(before)}/x/../${rest.join('/')}`);
    out.add(`${join(before)}/%2e/${rest.join('/')}`);
    out.add(`${join(before)}/x/%2e%2e/${rest.join('/')}`);
    if (i > 0) out.add(`${join(before)}%2f${rest.join('/')}`);
    if (i > 0) out.add(`${join(before)}\\${rest.join('/')}`);
  });
  out.add(`${join(parts)};x=1`);
  out.add(`${join(parts)}%00`);
  out.add(`${join(parts)}#x`);
  return [...out];
}

/** Credentials that fall short of each rule. */
interface Shortfall {
  label: string;
  headers: () => Record<string, string>;
}

let keys: Record<'revoked' | 'readOnly' | 'developer' | 'liveOnFree' | 'nonAdmin', string>;
let userCookie: string;
let userCsrf: string;

function shortfalls(rule: Access): Shortfall[] {
  const none: Shortfall = { label: 'no credentials', headers: () => ({}) };
  const key = (label: string, name: keyof typeof keys): Shortfall => ({
    label,
    headers: () => ({ 'x-api-key': keys[name] }),
  });
  switch (rule.kind) {
    case 'key': {
      const out = [none, key('revoked key', 'revoked'), key('live key on a free plan', 'liveOnFree')];
      if (rule.scope !== 'read') out.push(key('read-only key', 'readOnly'));
      if (rule.scope === 'admin') out.push(key('read/write key of a non-admin', 'nonAdmin'));
      if (rule.tier === 'intelligence') out.push(key('developer plan', 'developer'));
      return out;
    }
    case 'session':
      if (rule.need === 'user') return [none, key('an API key instead of a session', 'nonAdmin')];
      if (rule.need === 'admin') {
        return [
          none,
          {
            label: 'a non-admin session',
            headers: () => ({ cookie: `${SESSION_COOKIE}=${userCookie}`, 'x-csrf-token': userCsrf }),
          },
        ];
      }
      return [];
    default:
      return [];
  }
}

before(async () => {
  db = await freshDb();
  app = await buildApp({ config: testConfig(), db, logger: false });
  app.addHook('preValidation', async (request) => {
    if (!request.is404) reached.add(`${request.method} ${request.routeOptions.url}`);
  });
  await app.ready();
  const revoked = await makeKey(db);
  await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.keyId]);
  const free = await makeKey(db, { plan: 'developer' });
  await db.query("UPDATE users SET plan = 'free' WHERE id = $1", [free.userId]);
  const nonAdmin = await makeKey(db, { plan: 'institutional', scopes: ['read', 'write'] });
  keys = {
    revoked: revoked.raw,
    readOnly: (await makeKey(db, { scopes: ['read'] })).raw,
    developer: (await makeKey(db, { plan: 'developer', scopes: ['read', 'write'] })).raw,
    liveOnFree: free.raw,
    nonAdmin: nonAdmin.raw,
  };
  const session = await openSession(db, nonAdmin.userId, new Date());
  userCookie = session.token;
  userCsrf = session.csrfToken;
});
after(async () => {
  await app.close();
  await db.close();
});

function send(route: RouteAccess, url: string, headers: Record<string, string>) {
  address += 1;
  return app.inject({
    method: route.method as HTTPMethods,
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: route.method === 'GET' || route.method === 'HEAD' ? undefined : '{}',
    remoteAddress: `10.9.${(address >> 8) & 255}.${address & 255}`,
  });
}

function assertRefused(res: LightMyRequestResponse, what: string) {
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${what}: answered ${res.statusCode} ${res.body}`);
  if (res.body) assert.equal(JSON.parse(res.body).error.status, res.statusCode, what);
}

describe('every protected route, under every spelling of its path', () => {
  test('the app registered its routes, and the protected ones among them', () => {
    const kinds = new Set(app.routeAccess.map((r) => r.access.kind));
    for (const kind of ['public', 'key', 'page', 'session'])
      assert.ok(kinds.has(kind as Access['kind']), kind);
    assert.ok(app.routeAccess.filter((r) => shortfalls(r.access).length > 0).length >= 40);
  });

  test('no protected handler is reached without sufficient credentials', async () => {
    let requests = 0;
    for (const route of app.routeAccess) {
      for (const shortfall of shortfalls(route.access)) {
        for (const url of spellings(route.url)) {
          const res = await send(route, url, shortfall.headers());
          requests += 1;
          assertRefused(res, `${route.method} ${url} with ${shortfall.label}`);
        }
      }
      for (const shortfall of shortfalls(route.access)) {
        assert.ok(
          !reached.has(`${route.method} ${route.url}`),
          `${route.method} ${route.url} was reached with ${shortfall.label}`,
        );
      }
    }
    assert.ok(requests > 2000, `only ${requests} requests sent`);
  });

  test('the spellings that once skipped authentication are refused', async () => {
    for (const [method, url, body] of [
      ['GET', '/api/%761/events?limit=1', undefined],
      ['POST', '/%61pi/v1/admin/users', { email: 'x@y.z', plan: 'institutional', admin: true }],
    ] as const) {
      const res = await app.inject({ method, url, payload: body, remoteAddress: '10.8.0.1' });
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
    const users = await db.query("SELECT 1 FROM users WHERE email = 'x@y.z'");
    assert.equal(users.length, 0);
  });

  test('with sufficient credentials the encoded spelling reaches the same route', async () => {
    const admin = await makeKey(db, { admin: true, scopes: ['admin'] });
    const res = await app.inject({
      method: 'GET',
      url: '/api/%761/events?limit=1',
      headers: { 'x-api-key': admin.raw },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-ratelimit-limit'], '3000');
  });

  test('the only API route with neither key nor limit is the liveness probe', () => {
    const unmetered = app.routeAccess
      .filter((r) => r.access.kind === 'page' && r.url.startsWith('/api/'))
      .map((r) => `${r.method} ${r.url}`);
    assert.deepEqual([...new Set(unmetered)].sort(), ['GET /api/v1/health/live', 'HEAD /api/v1/health/live']);
  });

  test('a route that declares no access rule is refused at startup', async () => {
    const bare = await buildApp({ config: testConfig(), db, logger: false });
    try {
      assert.throws(() => bare.get('/api/v1/undeclared', async () => 'served'), /declares no access rule/);
    } finally {
      await bare.close();
    }
  });
});

describe('401 challenges', () => {
  test('every 401 of a keyed route carries WWW-Authenticate: Bearer; the dashboard session 401s do not', async () => {
    const keyed = app.routeAccess.filter((r) => r.access.kind === 'key');
    assert.ok(keyed.length >= 30);
    for (const route of keyed) {
      const url = join(segments(route.url));
      const missing = await send(route, url, {});
      assert.equal(missing.statusCode, 401, `${route.method} ${url}`);
      assert.equal(
        missing.headers['www-authenticate'],
        'Bearer realm="market-intel"',
        `${route.method} ${url}`,
      );
      const invalid = await send(route, url, { 'x-api-key': 'iv_live_notakey' });
      assert.equal(invalid.statusCode, 401, `${route.method} ${url} with an unknown key`);
      assert.equal(
        invalid.headers['www-authenticate'],
        'Bearer realm="market-intel", error="invalid_token"',
        `${route.method} ${url} with an unknown key`,
      );
    }
    const revoked = await app.inject({
      url: '/api/v1/events',
      headers: { authorization: `Bearer ${keys.revoked}` },
      remoteAddress: '10.3.0.3',
    });
    assert.equal(revoked.statusCode, 401);
    assert.match(
      String(revoked.headers['www-authenticate']),
      /^Bearer realm="market-intel", error="invalid_token"$/,
    );
    const throttled: LightMyRequestResponse[] = [];
    for (let i = 0; i < 11; i++)
      throttled.push(await app.inject({ url: '/api/v1/health', remoteAddress: '10.3.0.1' }));
    const last = throttled.at(-1);
    assert.equal(last?.statusCode, 401, 'the keyless allowance of an open route is spent');
    assert.equal(last?.headers['www-authenticate'], 'Bearer realm="market-intel"');
    const session = await app.inject({ url: '/dashboard/api/me', remoteAddress: '10.3.0.2' });
    assert.equal(session.statusCode, 401);
    assert.equal(
      session.headers['www-authenticate'],
      undefined,
      'a cookie session is not a bearer challenge',
    );
  });
});

describe('paths no route answers', () => {
  test('GET /api/v1 (with or without its slash) is a 404 with the envelope and the rate-limit headers', async () => {
    // No route is registered at /api/v1 itself: it is an unknown path like /api/v1/nope, decided by the
    // (absent) route, never by the URL's text: counted, limited and answered in the envelope.
    assert.ok(!app.routeAccess.some((r) => r.url === '/api/v1' || r.url === '/api/v1/'));
    const key = await makeKey(db);
    for (const url of ['/api/v1', '/api/v1/', '/api/v1?x=1', '/api', '/api/v1/nope']) {
      for (const method of ['GET', 'HEAD'] as const) {
        address += 1;
        const keyless = await app.inject({ method, url, remoteAddress: `10.4.0.${address & 255}` });
        assert.equal(keyless.statusCode, 404, `${method} ${url}`);
        assert.equal(keyless.headers['x-ratelimit-limit'], '10', `${method} ${url}: the address allowance`);
        assert.ok(keyless.headers['x-ratelimit-remaining'] !== undefined, `${method} ${url}`);
        assert.ok(keyless.headers['x-ratelimit-reset'] !== undefined, `${method} ${url}`);
        if (method === 'GET') {
          const { error } = JSON.parse(keyless.body);
          assert.equal(error.status, 404);
          assert.equal(error.code, 'not_found');
          assert.equal(error.message, `no route for GET ${url.split('?')[0]}`);
        }
        const keyed = await app.inject({ method, url, headers: { 'x-api-key': key.raw } });
        assert.equal(keyed.statusCode, 404, `${method} ${url} with a key`);
        assert.ok(keyed.headers['x-ratelimit-limit'] !== undefined, `${method} ${url}: the key's window`);
      }
    }
    const spent = '10.4.1.1';
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await app.inject({ url: '/api/v1', remoteAddress: spent })).statusCode);
    }
    assert.deepEqual(statuses, [...Array(10).fill(404), 401], 'probing /api/v1 spends the allowance');
  });
});

describe('open routes answer whatever key comes with them', () => {
  const OPEN = ['/api/v1/health', '/api/v1/openapi.json'];

  test('a revoked, unknown, plan-less or exhausted key does not make them fail', async () => {
    const exhausted = await makeKey(db, { plan: 'free', mode: 'test' });
    for (let i = 0; i < 30; i++) {
      await app.inject({ url: '/api/v1/events?limit=1', headers: { 'x-api-key': exhausted.raw } });
    }
    const limited = await app.inject({
      url: '/api/v1/events?limit=1',
      headers: { 'x-api-key': exhausted.raw },
    });
    assert.equal(limited.statusCode, 429);
    const bad = [keys.revoked, keys.liveOnFree, exhausted.raw, `iv_live_${'A'.repeat(43)}`, 'garbage'];
    for (const url of OPEN) {
      for (const key of bad) {
        address += 1;
        const res = await app.inject({
          url,
          headers: { 'x-api-key': key },
          remoteAddress: `10.7.0.${address & 255}`,
        });
        assert.equal(res.statusCode, 200, `${url} with ${key.slice(0, 12)}: ${res.body}`);
        assert.equal(res.headers['x-ratelimit-limit'], '10', 'the keyless allowance applies');
      }
    }
  });

  test('a good key is counted against its own window', async () => {
    const res = await app.inject({ url: '/api/v1/health', headers: { 'x-api-key': keys.nonAdmin } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-ratelimit-limit'], '3000');
  });

  test('the per-address allowance still holds for them: the 11th keyless request is a 401', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await app.inject({
        url: OPEN[i % 2] ?? '',
        headers: { 'x-api-key': keys.revoked },
        remoteAddress: '10.6.0.1',
      });
      statuses.push(res.statusCode);
    }
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(200));
    assert.equal(statuses[10], 401);
  });
});

describe('secrets and sniffing', () => {
  test('every route whose response carries a secret is declared so, and answers no-store', async () => {
    const secretRoutes = app.routeAccess.filter((r) => r.secret).map((r) => `${r.method} ${r.url}`);
    for (const expected of [
      'POST /api/v1/admin/users/:id/keys',
      'POST /api/v1/webhooks',
      'POST /api/v1/webhooks/:id/rotate-secret',
      'POST /dashboard/api/webhooks/:id/rotate-secret',
      'POST /api/v1/admin/users/:id/webhooks',
      'POST /dashboard/api/keys',
      'POST /dashboard/api/webhooks',
      'POST /dashboard/api/signin',
      'POST /dashboard/api/signup',
      'GET /dashboard/api/me',
    ]) {
      assert.ok(secretRoutes.includes(expected), `${expected} is not declared secret`);
    }
    const admin = await makeKey(db, { admin: true, scopes: ['admin'] });
    const target = await makeKey(db);
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/admin/users/${target.userId}/keys`,
      headers: { 'x-api-key': admin.raw },
      payload: { name: 'k', scopes: ['read'], mode: 'live' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const me = await app.inject({
      url: '/dashboard/api/me',
      headers: { cookie: `${SESSION_COOKIE}=${userCookie}` },
    });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.headers['cache-control'], 'no-store');
  });

  test('API responses, errors included, send X-Content-Type-Options: nosniff', async () => {
    for (const url of ['/api/v1/health', '/api/v1/events', '/api/v1/nope', '/dashboard/api/me']) {
      const res = await app.inject({ url, remoteAddress: '10.5.0.1' });
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
    }
  });
});
