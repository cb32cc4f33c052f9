/**
 * Sign-in and sign-up throttles and bounded password hashing, under concurrency, with the clock held by
 * the test. Run on the in-memory limiter and, with REDIS_URL, on two app instances sharing one Redis.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { hashPassword, passwordHashing } from '../../src/domain/passwords.ts';
import type { App } from '../../src/http/types.ts';
import type { RateLimiter } from '../../src/infra/limiter.ts';
import { MemoryLimiter } from '../../src/infra/memory-limiter.ts';
import { createRedisLimiter, RedisLimiter } from '../../src/infra/redis-limiter.ts';
import { createAccount } from '../../src/services/accounts.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, testApp } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

const PASSWORD = 'correct horse battery';
const WRONG = 'not the password at all';
const REDIS_URL = process.env.REDIS_URL || null;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const hashed = () => passwordHashing.stats().started;
const statuses = (responses: { statusCode: number }[]) =>
  responses.map((r) => r.statusCode).sort((a, b) => a - b);
const times = (n: number, status: number) => range(n).map(() => status);

function throttleSuite(name: string, makeLimiters: () => RateLimiter[], skip: string | false): void {
  describe(name, { skip }, () => {
    let db: Db;
    let limiters: RateLimiter[] = [];
    let apps: App[] = [];
    let clock = Date.UTC(2026, 0, 5, 9, 0, 0);
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

    /** The i-th request goes to instance i mod n: one bucket spread over the cluster. */
    const post = (i: number, path: string, address: string, email: string, password: string) => {
      const app = apps[i % apps.length];
      if (!app) throw new Error('no app');
      return app.inject({
        method: 'POST',
        url: `/dashboard/api/${path}`,
        payload: { email, password },
        remoteAddress: address,
      });
    };
    const signIn = (address: string, email: string, password: string, i = 0) =>
      post(i, 'signin', address, email, password);
    const signUp = (address: string, email: string, i = 0) => post(i, 'signup', address, email, PASSWORD);
    const account = async (email: string) => {
      await createAccount(db, { email, plan: 'free', passwordHash: await hashPassword(PASSWORD) });
      return email;
    };
    const retryAfter = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(JSON.parse(res.body).error.code, 'rate_limited');
      return Number(res.headers['retry-after']);
    };

    test('30 parallel wrong sign-ins from one address evaluate at most 5 password hashes', async () => {
      const email = await account('parallel@example.test');
      const start = hashed();
      const answers = await Promise.all(range(30).map((i) => signIn('203.0.113.1', email, WRONG, i)));
      assert.ok(hashed() - start <= 5, `${hashed() - start} hashes`);
      assert.deepEqual(statuses(answers), [...times(5, 401), ...times(25, 429)]);
      for (const res of answers.filter((r) => r.statusCode === 429)) assert.ok(retryAfter(res) > 0);
    });

    test('the owner signs in from another address while the guessing address stays throttled', async () => {
      const email = await account('owner@example.test');
      const guesses = await Promise.all(range(10).map((i) => signIn('203.0.113.2', email, WRONG, i)));
      assert.deepEqual(statuses(guesses), [...times(5, 401), ...times(5, 429)]);
      // Five failures slow the account down by a second, no more.
      assert.equal(retryAfter(await signIn('198.51.100.2', email, PASSWORD)), 1);
      clock += 1000;
      assert.equal((await signIn('198.51.100.2', email, PASSWORD, 1)).statusCode, 200);
      assert.ok(
        retryAfter(await signIn('203.0.113.2', email, PASSWORD)) > 60,
        'the guessing address is held',
      );
    });

    test('guesses from many addresses meet growing Retry-After values; the right password gets in after the wait', async () => {
      const email = await account('spread@example.test');
      const address = (i: number) => `192.0.2.${i}`;
      for (const i of range(5)) assert.equal((await signIn(address(i), email, WRONG, i)).statusCode, 401);
      const waits: number[] = [];
      for (const i of range(8).map((n) => n + 5)) {
        const wait = retryAfter(await signIn(address(i), email, WRONG, i));
        waits.push(wait);
        clock += wait * 1000;
        assert.equal((await signIn(address(i), email, WRONG, i + 1)).statusCode, 401);
      }
      assert.deepEqual(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
      const wait = retryAfter(await signIn('198.51.100.3', email, PASSWORD));
      assert.equal(wait, 60, 'never more than a minute');
      clock += wait * 1000;
      assert.equal((await signIn('198.51.100.3', email, PASSWORD, 1)).statusCode, 200);
    });

    test('a success clears the email’s record and the pair’s', async () => {
      const email = await account('clears@example.test');
      for (const i of range(5)) await signIn(`192.0.2.${100 + i}`, email, WRONG, i);
      assert.equal(retryAfter(await signIn('198.51.100.4', email, PASSWORD)), 1);
      clock += 1000;
      assert.equal((await signIn('198.51.100.4', email, PASSWORD)).statusCode, 200);
      // Five more failures from elsewhere go through undelayed: the count started over.
      for (const i of range(5))
        assert.equal((await signIn(`192.0.2.${110 + i}`, email, WRONG, i)).statusCode, 401);

      const mine = await account('clears-pair@example.test');
      for (const i of range(4)) assert.equal((await signIn('198.51.100.14', mine, WRONG, i)).statusCode, 401);
      assert.equal((await signIn('198.51.100.14', mine, PASSWORD)).statusCode, 200, 'the fifth attempt');
      // Without the clear, the pair would be full now.
      for (const i of range(4)) assert.equal((await signIn('198.51.100.14', mine, WRONG, i)).statusCode, 401);
    });

    test('one address gets at most 20 sign-in attempts across emails; the accounts stay open elsewhere', async () => {
      const email = await account('sprayed@example.test');
      const start = hashed();
      const answers = await Promise.all(
        range(25).map((i) => signIn('203.0.113.5', `spray${i}@example.test`, 'Winter2026!', i)),
      );
      assert.deepEqual(statuses(answers), [...times(20, 401), ...times(5, 429)]);
      assert.ok(hashed() - start <= 20);
      assert.ok(retryAfter(await signIn('203.0.113.5', email, PASSWORD)) > 60);
      assert.equal((await signIn('198.51.100.5', email, PASSWORD)).statusCode, 200);
    });

    test('sign-up is throttled per address, 10 an hour, counted before hashing', async () => {
      const start = hashed();
      const answers = await Promise.all(
        range(15).map((i) => signUp('203.0.113.6', `burst${i}@example.test`, i)),
      );
      assert.deepEqual(statuses(answers), [...times(10, 202), ...times(5, 429)]);
      assert.equal(hashed() - start, 10);
      const refused = answers.find((r) => r.statusCode === 429);
      assert.ok(refused);
      assert.match(refused.json<Envelope>().error.message, /too many sign-ups/);
      assert.ok(Number(refused.headers['retry-after']) > 3000);
      assert.equal((await signUp('198.51.100.6', 'burst15@example.test')).statusCode, 202);
    });

    test('20 parallel sign-ups from 20 addresses hash at most 2 passwords at once', async () => {
      passwordHashing.resetPeak();
      const start = hashed();
      const answers = await Promise.all(
        range(20).map((i) => signUp(`10.20.0.${i}`, `crowd${i}@example.test`, i)),
      );
      assert.deepEqual(statuses(answers), times(20, 202));
      assert.equal(hashed() - start, 20);
      assert.equal(passwordHashing.stats().peak, 2);
    });

    test('a full hashing queue answers 503 with Retry-After, and sign-up works again once it drains', async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const blockers = range(passwordHashing.concurrency + passwordHashing.maxWaiting).map(() =>
        passwordHashing.run(() => held),
      );
      try {
        const refused = await signUp('10.30.0.1', 'flood@example.test');
        assert.equal(refused.statusCode, 503);
        assert.equal(refused.headers['retry-after'], '1');
        assert.equal(refused.json<Envelope>().error.code, 'unavailable');
      } finally {
        release();
        await Promise.all(blockers);
      }
      assert.equal((await signUp('10.30.0.1', 'flood@example.test')).statusCode, 202);
    });
  });
}

throttleSuite('dashboard throttles, in memory', () => [new MemoryLimiter()], false);

const prefix = `mi:test:${randomBytes(6).toString('hex')}:`;
throttleSuite(
  'dashboard throttles, two instances sharing Redis',
  () => (REDIS_URL ? [createRedisLimiter(REDIS_URL, prefix), createRedisLimiter(REDIS_URL, prefix)] : []),
  REDIS_URL ? false : 'REDIS_URL is not set (CI sets it on its second pass)',
);
