/**
 * What every request and answer must be, whichever route answers (docs/SECURITY.md, "Answers are built
 * from the route"): one `Host`; a body sent compressed is a 415, not a JSON error; a route that declares
 * no body refuses one; an answer for one caller is never stored by a shared cache. The routes come
 * from the app's own table, so a new one joins by itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import type { RouteAccess } from '../../src/http/access.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { makeKey, testApp } from '../support/app.ts';
import { freshDb } from '../support/db.ts';
import { rawExchange } from '../support/raw-http.ts';

let db: Db;
let app: App;
let port: number;
/** An admin on the top plan with every scope: every keyed route's rule is met. */
let adminKey: string;
let adminId: string;

before(async () => {
  db = await freshDb();
  app = await testApp(db);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  port = address.port;
  const admin = await makeKey(db, { admin: true, scopes: ['read', 'write', 'admin'] });
  adminKey = admin.raw;
  adminId = admin.userId;
});
after(async () => {
  await app?.close();
  await db?.close();
});

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const urlOf = (route: RouteAccess) =>
  route.url.replace(/:(\w+)/g, (_, name: string) => (name === 'ticker' ? 'LMT' : SAMPLE_ID));

/** Credentials that meet the route's rule: the admin's key, or a session of its own (sign-out ends one). */
async function credentials(route: RouteAccess): Promise<Record<string, string>> {
  if (route.access.kind === 'key') return { 'x-api-key': adminKey };
  if (route.access.kind !== 'session') return {};
  const opened = await openSession(db, adminId, new Date());
  return { cookie: `${SESSION_COOKIE}=${opened.token}`, 'x-csrf-token': opened.csrfToken };
}

const call = async (
  route: RouteAccess,
  options: { payload?: string; headers?: Record<string, string> } = {},
) =>
  app.inject({
    method: route.method as HTTPMethods,
    url: urlOf(route),
    headers: { ...(await credentials(route)), ...options.headers },
    payload: options.payload,
  });

const envelope = (res: { body: string }) =>
  JSON.parse(res.body) as { error: { status: number; code: string; message: string } };

const directives = (res: LightMyRequestResponse) =>
  String(res.headers['cache-control'] ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);

describe('requests', () => {
  test('two Host headers are a 400 in the envelope', async () => {
    const answer = await rawExchange(port, [
      'GET /api/v1/health HTTP/1.1',
      'Host: 127.0.0.1',
      'Host: attacker.example',
    ]);
    assert.equal(answer.status, 400, answer.body);
    const { error } = envelope(answer);
    assert.equal(error.code, 'invalid_parameter');
    assert.match(error.message, /"host": sent more than once/);
    const spelled = await rawExchange(port, [
      'GET /api/v1/health HTTP/1.1',
      'host: 127.0.0.1',
      'HOST: a.example',
    ]);
    assert.equal(spelled.status, 400, 'header names are compared whatever their case');
    const one = await rawExchange(port, ['GET /api/v1/health HTTP/1.1', 'Host: 127.0.0.1']);
    assert.notEqual(one.status, 400, 'one Host is fine');
  });

  test('a compressed body is a 415 naming the encoding, not "not valid JSON"', async () => {
    const json = JSON.stringify({ url: 'https://hooks.example.test/x' });
    for (const coding of ['gzip', 'br', 'deflate, gzip', 'identity, gzip']) {
      const body = gzipSync(json);
      const answer = await rawExchange(
        port,
        [
          'POST /api/v1/webhooks HTTP/1.1',
          'Host: 127.0.0.1',
          `x-api-key: ${adminKey}`,
          'Content-Type: application/json',
          `Content-Encoding: ${coding}`,
          `Content-Length: ${body.length}`,
        ],
        body,
      );
      assert.equal(answer.status, 415, `${coding}: ${answer.body}`);
      const { error } = envelope(answer);
      assert.equal(error.code, 'unsupported_media_type');
      assert.match(error.message, /content encoding/);
      assert.ok(answer.headers['x-ratelimit-limit'], 'decided after the key was checked, and counted');
    }
    const keyless = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync('{}'),
    });
    assert.equal(keyless.statusCode, 401, 'the key is checked first');
  });

  test('Content-Encoding: identity, or the header on a request without a body, changes nothing', async () => {
    const identity = await app.inject({
      method: 'POST',
      url: '/api/v1/admin/users',
      headers: { 'x-api-key': adminKey, 'content-type': 'application/json', 'content-encoding': 'identity' },
      payload: JSON.stringify({ email: `identity-${Date.now()}@example.test`, plan: 'free' }),
    });
    assert.equal(identity.statusCode, 201, identity.body);
    const bodiless = await app.inject({
      url: '/api/v1/health',
      headers: { 'content-encoding': 'gzip' },
    });
    assert.notEqual(bodiless.statusCode, 415);
  });

  test('every route without a body schema refuses a body, and still answers without one', async () => {
    const bodiless = app.routeAccess.filter(
      (r) => !r.body && r.method !== 'GET' && r.method !== 'HEAD' && r.access.kind !== 'page',
    );
    assert.ok(bodiless.length >= 10, `routes that take no body: ${bodiless.length}`);
    for (const route of bodiless) {
      const name = `${route.method} ${route.url}`;
      for (const payload of ['{"x":1}', '{}', 'x']) {
        const res = await call(route, { payload, headers: { 'content-type': 'application/json' } });
        assert.equal(res.statusCode, 400, `${name} with ${payload}: ${res.body}`);
        const { error } = envelope(res);
        assert.equal(error.code, 'invalid_body', name);
        assert.match(error.message, /takes no request body/, name);
      }
      const empty = await call(route);
      assert.ok(
        !(empty.statusCode === 400 && envelope(empty).error.code === 'invalid_body'),
        `${name} without a body: ${empty.statusCode} ${empty.body}`,
      );
    }
  });
});

describe('answers for one caller', () => {
  test('every keyed route that is not a tier-shared cached read answers Cache-Control: private, no-store', async () => {
    const personal = app.routeAccess.filter(
      (r) => r.access.kind === 'key' && !r.cache && r.method !== 'HEAD',
    );
    const names = personal.map((r) => `${r.method} ${r.url}`);
    for (const expected of [
      'GET /api/v1/usage',
      'GET /api/v1/webhooks',
      'GET /api/v1/webhooks/:id/deliveries',
      'GET /api/v1/admin/users',
      'GET /metrics',
    ]) {
      assert.ok(names.includes(expected), `${expected} is among them`);
    }
    let answered200 = 0;
    for (const route of personal) {
      const res = await call(route);
      const name = `${route.method} ${route.url} (${res.statusCode})`;
      if (res.statusCode === 200) answered200 += 1;
      assert.ok(directives(res).includes('no-store'), `${name}: ${res.headers['cache-control']}`);
      if (!route.secret)
        assert.ok(directives(res).includes('private'), `${name}: ${res.headers['cache-control']}`);
    }
    assert.ok(answered200 >= 5, `successful answers checked: ${answered200}`);
  });

  test('session routes answer no-store; tier-shared cached reads private, no-cache', async () => {
    for (const route of app.routeAccess.filter((r) => r.method === 'GET')) {
      if (route.access.kind !== 'session' && !route.cache) continue;
      if (route.url === '/dashboard/api/signal-stream') continue; // an event stream: no-store, never ends
      const res = await call(route);
      const name = `${route.method} ${route.url} (${res.statusCode})`;
      if (route.cache && res.statusCode === 200)
        assert.deepEqual(directives(res), ['private', 'no-cache'], name);
      if (route.access.kind === 'session') assert.ok(directives(res).includes('no-store'), name);
    }
  });
});
