/**
 * Dashboard reads are metered like API reads (src/dashboard/meter.ts): limited per user to the plan's
 * `dashboardRpm` in a 60-second sliding window, with the X-RateLimit-* headers, the API's 429 envelope
 * and Retry-After; counted in usage under the user. Run on the in-memory limiter and, with REDIS_URL,
 * on two app instances sharing one Redis. The clock is held by the test.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import { PLAN_LIMITS, type Plan } from '../../src/domain/plans.ts';
import type { App } from '../../src/http/types.ts';
import type { RateLimiter } from '../../src/infra/limiter.ts';
import { MemoryLimiter } from '../../src/infra/memory-limiter.ts';
import { createRedisLimiter, RedisLimiter } from '../../src/infra/redis-limiter.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, makeKey, testApp } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

const REDIS_URL = process.env.REDIS_URL || null;

interface Reader {
  userId: string;
  key: string;
  cookies: string[];
  csrf: string[];
}

function meteringSuite(name: string, makeLimiters: () => RateLimiter[], skip: string | false): void {
  describe(name, { skip }, () => {
    let db: Db;
    let limiters: RateLimiter[] = [];
    let apps: App[] = [];
    // Real time, held: usage is stamped with the wall clock and read up to the app's `now`.
    let clock = Date.now();
    let served = 0;
    before(async () => {
      db = await freshDb();
      limiters = makeLimiters();
      apps = await Promise.all(
        limiters.map((limiter) => testApp(db, {}, { limiter, now: () => new Date(clock) })),
      );
    });
    after(async () => {
      for (const app of apps) await app.close();
      for (const limiter of limiters) {
        if (limiter instanceof RedisLimiter) {
          const keys = await limiter.redis.keys(`${limiter.keyPrefix}*`);
          if (keys.length > 0) await limiter.redis.del(...keys);
        }
        await limiter.close();
      }
      await db?.close();
    });

    /** A user on `plan` with a test key and two sessions (two browsers). */
    async function reader(plan: Plan): Promise<Reader> {
      const { raw, userId } = await makeKey(db, { plan, mode: 'test', scopes: ['read', 'write'] });
      const sessions = [
        await openSession(db, userId, new Date(clock)),
        await openSession(db, userId, new Date(clock)),
      ];
      return {
        userId,
        key: raw,
        cookies: sessions.map((s) => `${SESSION_COOKIE}=${s.token}`),
        csrf: sessions.map((s) => s.csrfToken),
      };
    }
    /** The requests go round the instances and the user's sessions: one bucket spread over both. */
    const read = (who: Reader, url = '/dashboard/api/keys') => {
      served += 1;
      const app = apps[served % apps.length];
      assert.ok(app);
      return app.inject({ url, headers: { cookie: who.cookies[served % who.cookies.length] ?? '' } });
    };
    const anyApp = () => apps[0] as App;
    /** `market_intel_rate_limited_total{limit="dashboard"}` summed over the instances. */
    async function dashboardRefusals(): Promise<number> {
      const { raw } = await makeKey(db, { admin: true, scopes: ['admin'] });
      let total = 0;
      for (const app of apps) {
        const res = await app.inject({ url: '/metrics', headers: { 'x-api-key': raw } });
        assert.equal(res.statusCode, 200, res.body);
        const line = res.body
          .split('\n')
          .find((l) => l.startsWith('market_intel_rate_limited_total{limit="dashboard"}'));
        total += Number(line?.split(' ').at(-1));
      }
      return total;
    }

    test('every read carries the X-RateLimit-* headers of the user’s allowance', async () => {
      const who = await reader('free');
      const limit = PLAN_LIMITS.free.dashboardRpm;
      for (let i = 1; i <= 3; i += 1) {
        const res = await read(who);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], String(limit));
        assert.equal(res.headers['x-ratelimit-remaining'], String(limit - i));
        assert.ok(Number(res.headers['x-ratelimit-reset']) > clock);
      }
    });

    test('past the allowance: 429 in the envelope with Retry-After, for every session of the user only', async () => {
      const who = await reader('free');
      const other = await reader('free');
      const limit = PLAN_LIMITS.free.dashboardRpm;
      for (let i = 0; i < limit; i += 1) {
        const res = await read(who, i % 2 ? '/dashboard/api/keys' : '/dashboard/api/me');
        assert.equal(res.statusCode, 200, `read ${i}: ${res.body}`);
      }
      clock += 10_000;
      const refusedBefore = await dashboardRefusals();
      for (const url of [
        '/dashboard/api/keys',
        '/dashboard/api/me',
        '/dashboard/api/usage',
        '/dashboard/api/contracts/X',
      ]) {
        const res = await read(who, url);
        assert.equal(res.statusCode, 429, `${url}: ${res.body}`);
        const body = res.json() as Envelope;
        assert.deepEqual(
          { status: body.error.status, code: body.error.code, message: body.error.message },
          { status: 429, code: 'rate_limited', message: 'rate limit exceeded' },
        );
        assert.equal(res.headers['retry-after'], '50', 'the oldest read leaves the window in 50 s');
        assert.equal(res.headers['x-ratelimit-limit'], String(limit));
        assert.equal(res.headers['x-ratelimit-remaining'], '0');
      }
      assert.equal((await dashboardRefusals()) - refusedBefore, 4, 'each refusal in the metrics');
      assert.equal((await read(other)).statusCode, 200, 'another user has an allowance of their own');
      const api = await anyApp().inject({ url: '/api/v1/usage', headers: { 'x-api-key': who.key } });
      assert.equal(api.statusCode, 200, 'the key’s window is its own');
      // Writes stay open: a user past the allowance can still revoke a key or sign out.
      const keys = await anyApp().inject({
        method: 'POST',
        url: '/dashboard/api/keys',
        headers: { cookie: who.cookies[0] ?? '', 'x-csrf-token': who.csrf[0] ?? '' },
        payload: { name: 'made while limited', mode: 'test', scopes: ['read'] },
      });
      assert.equal(keys.statusCode, 201, keys.body);
      clock += 50_001;
      const again = await read(who);
      assert.equal(again.statusCode, 200, 'the window slid: refused reads were not counted');
      assert.equal(again.headers['x-ratelimit-remaining'], String(limit - 1));
    });

    test('the allowance follows the plan', async () => {
      for (const plan of ['developer', 'institutional'] as const) {
        const res = await read(await reader(plan));
        assert.equal(res.headers['x-ratelimit-limit'], String(PLAN_LIMITS[plan].dashboardRpm));
      }
    });

    test('sign-in pages and sign-out are not metered', async () => {
      const res = await anyApp().inject({ method: 'POST', url: '/dashboard/api/signout' });
      assert.equal(res.headers['x-ratelimit-limit'], undefined);
      const page = await anyApp().inject({ url: '/dashboard' });
      assert.equal(page.headers['x-ratelimit-limit'], undefined);
    });
  });
}

meteringSuite('dashboard reads, in memory', () => [new MemoryLimiter()], false);

const prefix = `mi:test:${randomBytes(6).toString('hex')}:`;
meteringSuite(
  'dashboard reads, two instances sharing Redis',
  () => (REDIS_URL ? [createRedisLimiter(REDIS_URL, prefix), createRedisLimiter(REDIS_URL, prefix)] : []),
  REDIS_URL ? false : 'REDIS_URL is not set (CI sets it on its second pass)',
);

describe('dashboard reads in usage', () => {
  let db: Db;
  let app: App;
  let clock = Date.now();
  before(async () => {
    db = await freshDb();
    app = await testApp(db, {}, { limiter: new MemoryLimiter(), now: () => new Date(clock) });
  });
  after(async () => {
    await app.close();
    await db.close();
  });

  test('counted under the user, errors among them, refused reads not; keys’ usage untouched', async () => {
    const { raw, userId, keyId } = await makeKey(db, { plan: 'free', mode: 'test', scopes: ['read'] });
    const { token } = await openSession(db, userId, new Date(clock));
    const cookie = `${SESSION_COOKIE}=${token}`;
    const limit = PLAN_LIMITS.free.dashboardRpm;
    const read = (url: string) => app.inject({ url: `/dashboard/api${url}`, headers: { cookie } });
    assert.equal((await read('/contracts/CONT_AWD_NOPE')).statusCode, 404);
    for (let i = 1; i < limit; i += 1) assert.equal((await read('/keys')).statusCode, 200);
    for (let i = 0; i < 5; i += 1) assert.equal((await read('/keys')).statusCode, 429);
    clock += 61_000;
    const usage = await read('/usage?window=1h');
    assert.equal(usage.statusCode, 200, usage.body);
    const body = usage.json() as {
      data: { key: { id: string }; usage: { totals: { requests: number } } }[];
      dashboard: { per_minute: number; usage: { totals: { requests: number; errors: number } } };
    };
    assert.equal(body.dashboard.per_minute, limit);
    assert.deepEqual(body.dashboard.usage.totals, { requests: limit, errors: 1 });
    assert.deepEqual(
      body.data.map((d) => [d.key.id, d.usage.totals.requests]),
      [[keyId, 0]],
      'the key made no request',
    );
    const api = await app.inject({ url: '/api/v1/usage?window=1h', headers: { 'x-api-key': raw } });
    assert.equal((api.json() as { totals: { requests: number } }).totals.requests, 0);
  });
});
