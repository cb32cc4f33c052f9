import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import { createRedisLimiter } from '../../src/infra/redis-limiter.ts';
import type { Db } from '../../src/store/db.ts';
import {
  closeApp,
  type Envelope,
  getJson,
  makeKey,
  openSeededApp,
  testApp,
  withKey,
} from '../support/app.ts';

let db: Db;
let app: App;
before(async () => ({ db, app } = await openSeededApp()));
after(() => closeApp(app, db));

const from = (remoteAddress: string) => ({ remoteAddress });

describe('keyless requests', () => {
  test('health and openapi answer within 10 per minute per IP, then every keyless request is 401', async () => {
    const ip = from('192.0.2.10');
    const first = await app.inject({ method: 'GET', url: '/api/v1/health', ...ip });
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['x-ratelimit-limit'], '10');
    assert.equal(first.headers['x-ratelimit-remaining'], '9');
    const reset = Number(first.headers['x-ratelimit-reset']);
    assert.ok(Math.abs(reset - (Date.now() + 60_000)) < 5_000, 'reset is a millisecond epoch a minute ahead');
    for (let i = 0; i < 8; i++) await app.inject({ method: 'GET', url: '/api/v1/openapi.json', ...ip });
    const keyed = await app.inject({ method: 'GET', url: '/api/v1/events', ...ip });
    assert.equal(keyed.statusCode, 401, 'the tenth keyless request, to a keyed route');
    const after = await app.inject({ method: 'GET', url: '/api/v1/health', ...ip });
    assert.equal(after.statusCode, 401);
    assert.match(after.json<Envelope>().error.message, /too many requests without a valid API key/);
    // A client told to wait is told how long, in the headers every limit answer carries.
    const wait = Number(after.headers['retry-after']);
    assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    assert.equal(after.headers['x-ratelimit-limit'], '10');
    assert.equal(after.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(after.headers['x-ratelimit-reset']) > Date.now());
    const spentOnKeyed = await app.inject({ method: 'GET', url: '/api/v1/events', ...ip });
    assert.equal(spentOnKeyed.statusCode, 401);
    assert.ok(Number(spentOnKeyed.headers['retry-after']) >= 1, 'on a keyed route too');
    // A 401 that waiting would not cure (no key at all, allowance left) names no wait.
    assert.equal(keyed.headers['retry-after'], undefined);
    const other = await app.inject({ method: 'GET', url: '/api/v1/health', ...from('192.0.2.11') });
    assert.equal(other.statusCode, 200, 'another address has its own allowance');
  });

  test('invalid keys count against the same per-IP allowance', async () => {
    const ip = from('192.0.2.20');
    for (let i = 0; i < 10; i++) {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/events',
        headers: { 'x-api-key': 'iv_live_x' },
        ...ip,
      });
      assert.match(res.json<Envelope>().error.message, /invalid API key/);
    }
    const res = await app.inject({ method: 'GET', url: '/api/v1/health', ...ip });
    assert.equal(res.statusCode, 401);
  });
});

describe('per-key sliding window', () => {
  test('with limit 30 and 100 parallel requests exactly 30 are admitted; 429s carry Retry-After', async () => {
    const { raw } = await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] });
    const client = withKey(app, raw);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => client.inject({ method: 'GET', url: '/api/v1/events?limit=1' })),
    );
    const ok = responses.filter((r) => r.statusCode === 200);
    const limited = responses.filter((r) => r.statusCode === 429);
    assert.equal(ok.length, 30);
    assert.equal(limited.length, 70);
    assert.deepEqual(
      ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => b - a),
      Array.from({ length: 30 }, (_, i) => 29 - i),
    );
    const refused = limited[0];
    assert.ok(refused);
    assert.deepEqual(refused.json(), {
      error: {
        status: 429,
        message: 'rate limit exceeded',
        code: 'rate_limited',
        request_id: refused.headers['x-request-id'],
      },
    });
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60);
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
  });

  test('a developer live key gets 600, an institutional one 3000', async () => {
    const dev = await makeKey(db, { plan: 'developer' });
    const inst = await makeKey(db, { plan: 'institutional' });
    assert.equal(
      (await getJson(withKey(app, dev.raw), '/api/v1/predictions')).headers['x-ratelimit-limit'],
      '600',
    );
    assert.equal(
      (await getJson(withKey(app, inst.raw), '/api/v1/predictions')).headers['x-ratelimit-limit'],
      '3000',
    );
  });

  test('x-api-key and Authorization: Bearer are equivalent and share one window', async () => {
    const { raw } = await makeKey(db, { mode: 'test' });
    const a = await app.inject({
      method: 'GET',
      url: '/api/v1/events?limit=1',
      headers: { 'x-api-key': raw },
    });
    const b = await app.inject({
      method: 'GET',
      url: '/api/v1/events?limit=1',
      headers: { authorization: `Bearer ${raw}` },
    });
    assert.equal(a.statusCode, 200);
    assert.equal(b.statusCode, 200);
    assert.equal(Number(a.headers['x-ratelimit-remaining']) - 1, Number(b.headers['x-ratelimit-remaining']));
  });
});

describe('tiers and rationale', () => {
  test('rationale appears only on the intelligence tier; engine tiers gate engine=', async () => {
    const developer = withKey(app, (await makeKey(db, { plan: 'developer' })).raw);
    const institutional = withKey(app, (await makeKey(db, { plan: 'institutional' })).raw);
    type Page = { data: { signal: { rationale?: { rule: string; contribution: number }[] } }[] };
    const dev = await getJson<Page>(developer, '/api/v1/signals?limit=3');
    assert.ok(dev.body.data.every((d) => d.signal.rationale === undefined));
    const inst = await getJson<Page>(institutional, '/api/v1/signals?limit=3');
    assert.ok(inst.body.data.every((d) => (d.signal.rationale?.length ?? 0) > 0));
    const gated = await getJson<Envelope>(developer, '/api/v1/events?engine=regime-aware');
    assert.equal(gated.status, 403);
    assert.match(
      gated.body.error.message,
      /engine regime-aware requires the intelligence tier; your plan is developer/,
    );
    const allowed = await getJson(institutional, '/api/v1/events?engine=regime-aware&limit=1');
    assert.equal(allowed.status, 200);
  });
});

describe('revocation', () => {
  test('a key revoked through one instance is refused at once by another instance on the same database', async () => {
    const other = await testApp(db);
    try {
      const admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
      const target = await makeKey(db);
      assert.equal((await getJson(withKey(other, target.raw), '/api/v1/events?limit=1')).status, 200);
      const revoke = await admin.inject({ method: 'DELETE', url: `/api/v1/admin/keys/${target.keyId}` });
      assert.equal(revoke.statusCode, 200);
      assert.ok(revoke.json<{ key: { revoked_at: string } }>().key.revoked_at);
      const refused = await getJson<Envelope>(withKey(other, target.raw), '/api/v1/events?limit=1');
      assert.equal(refused.status, 401);
      assert.match(refused.body.error.message, /revoked/);
    } finally {
      await other.close();
    }
  });
});

describe('two instances sharing Redis', { skip: process.env.REDIS_URL ? false : 'REDIS_URL not set' }, () => {
  test('admit exactly 30 of 100 parallel requests with one test key', async () => {
    const prefix = `mi:test:${randomBytes(6).toString('hex')}:`;
    const url = process.env.REDIS_URL ?? '';
    const limiters = [createRedisLimiter(url, prefix), createRedisLimiter(url, prefix)];
    const apps = await Promise.all(limiters.map((limiter) => testApp(db, {}, { limiter })));
    try {
      const { raw } = await makeKey(db, { mode: 'test', scopes: ['read'] });
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          withKey(apps[i % 2] as App, raw).inject({ method: 'GET', url: '/api/v1/predictions' }),
        ),
      );
      const admitted = responses.filter((r) => r.statusCode !== 429).length;
      assert.equal(admitted, 30);
    } finally {
      for (const a of apps) await a.close();
      for (const l of limiters) await l.close();
    }
  });
});

describe('GET /api/v1/usage', () => {
  test('counts the calling key’s requests and errors per window', async () => {
    const client = withKey(app, (await makeKey(db)).raw);
    for (let i = 0; i < 4; i++) await client.inject({ method: 'GET', url: '/api/v1/events?limit=1' });
    await client.inject({ method: 'GET', url: '/api/v1/events?limit=0' });
    await client.inject({ method: 'GET', url: '/api/v1/contracts/CONT_AWD_NONE' });
    const { status, body } = await getJson<{
      window: string;
      bucket: string;
      totals: { requests: number; errors: number };
      buckets: { requests: number }[];
    }>(client, '/api/v1/usage?window=1h');
    assert.equal(status, 200);
    assert.equal(body.window, '1h');
    assert.equal(body.bucket, 'minute');
    assert.equal(body.buckets.length, 60);
    assert.deepEqual(body.totals, { requests: 6, errors: 2 });
    const day = await getJson<{ bucket: string; buckets: unknown[] }>(client, '/api/v1/usage');
    assert.equal(day.body.bucket, 'hour');
    assert.equal(day.body.buckets.length, 24);
    assert.equal((await getJson(client, '/api/v1/usage?window=2h')).status, 400);
  });
});
