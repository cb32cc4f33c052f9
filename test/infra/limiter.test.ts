import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { IpcLimiter, LimiterHost } from '../../src/infra/ipc-limiter.ts';
import type { BackoffPolicy, RateLimiter } from '../../src/infra/limiter.ts';
import { MemoryLimiter } from '../../src/infra/memory-limiter.ts';
import { createRedisLimiter, type RedisLimiter } from '../../src/infra/redis-limiter.ts';
import { FakeChannel } from '../support/fake-ipc.ts';

const WINDOW = 60_000;
const T0 = Date.UTC(2025, 0, 6, 12, 0, 0);
const REDIS_URL = process.env.REDIS_URL || null;

const allowedCount = (decisions: { allowed: boolean }[]) => decisions.filter((d) => d.allowed).length;
const DELAY: BackoffPolicy = { free: 3, baseMs: 1000, maxMs: 5000, windowMs: 60_000 };
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * The behaviour every limiter must show. `pick(i)` chooses the limiter serving the i-th
 * request, so the Redis variant can spread one bucket over two instances.
 */
function sharedBehaviour(pick: (i: number) => RateLimiter, bucket: () => string): void {
  test('admits exactly L of N concurrent requests, remaining counting down L-1..0', async () => {
    const b = bucket();
    const decisions = await Promise.all(range(100).map((i) => pick(i).hit(b, 30, WINDOW, T0)));
    assert.equal(allowedCount(decisions), 30);
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining);
    assert.deepEqual(
      remaining.sort((x, y) => y - x),
      range(30).map((i) => 29 - i),
    );
    for (const d of decisions) {
      assert.equal(d.limit, 30);
      assert.equal(d.resetAt, T0 + WINDOW);
      if (!d.allowed) assert.equal(d.remaining, 0);
    }
  });

  test('refused requests do not count, and capacity returns exactly as old requests expire', async () => {
    const b = bucket();
    const hit = (i: number, at: number) => pick(i).hit(b, 3, 1000, T0 + at);
    // One after another: requests with explicit times must reach the limiter in time order, and two
    // clients' messages have no order between them (an IpcLimiter sends a turn's calls together).
    for (const [i, at] of [
      [0, 0],
      [1, 100],
      [2, 200],
    ] as const) {
      assert.equal((await hit(i, at)).allowed, true);
    }
    // Five refusals inside the window: if they were counted they would block until t=1500.
    for (const i of range(5)) assert.equal((await hit(i, 500)).allowed, false);
    assert.equal((await hit(0, 999)).allowed, false, 'the request at t=0 still counts at t=999');
    const first = await hit(1, 1000);
    assert.equal(first.allowed, true, 'the request at t=0 leaves the window at t=1000');
    assert.equal(first.remaining, 0);
    assert.equal((await hit(0, 1000)).allowed, false, 'only one slot came back');
    assert.equal((await hit(1, 1099)).allowed, false);
    assert.equal((await hit(0, 1100)).allowed, true);
    assert.equal((await hit(1, 1200)).allowed, true);
    assert.equal((await hit(0, 1200)).allowed, false);
  });

  test('resetAt is when the oldest counted request leaves the window', async () => {
    const b = bucket();
    const hit = (i: number, at: number) => pick(i).hit(b, 3, 1000, T0 + at);
    const alone = await hit(0, 0);
    assert.deepEqual(alone, { allowed: true, limit: 3, remaining: 2, resetAt: T0 + 1000 });
    assert.equal((await hit(1, 400)).resetAt, T0 + 1000);
    assert.equal((await hit(0, 700)).resetAt, T0 + 1000);
    assert.deepEqual(await hit(1, 800), { allowed: false, limit: 3, remaining: 0, resetAt: T0 + 1000 });
    assert.deepEqual(await hit(0, 1000), { allowed: true, limit: 3, remaining: 0, resetAt: T0 + 1400 });
    // Long idle: everything expired, the new request is the oldest.
    assert.deepEqual(await hit(1, 5000), { allowed: true, limit: 3, remaining: 2, resetAt: T0 + 6000 });
  });

  test('backoff admits `free` attempts, then one per base·2^k after the newest, capped at max', async () => {
    const b = bucket();
    const attempt = (i: number, at: number) => pick(i).backoff(b, DELAY, T0 + at);
    for (const i of range(3)) assert.deepEqual(await attempt(i, 0), { allowed: true, retryAt: T0 });
    assert.deepEqual(await attempt(0, 999), { allowed: false, retryAt: T0 + 1000 });
    assert.equal((await attempt(1, 1000)).allowed, true);
    assert.deepEqual(await attempt(0, 1000), { allowed: false, retryAt: T0 + 3000 }, '2 s after the 4th');
    assert.equal((await attempt(1, 3000)).allowed, true);
    assert.deepEqual(await attempt(0, 3000), { allowed: false, retryAt: T0 + 7000 }, '4 s after the 5th');
    assert.equal((await attempt(1, 7000)).allowed, true);
    assert.deepEqual(await attempt(0, 7001), { allowed: false, retryAt: T0 + 12_000 }, 'capped at 5 s');
    // Refusals are not counted: the delay stays 5 s after the newest admitted attempt.
    for (const i of range(20)) await attempt(i, 8000 + i);
    assert.equal((await attempt(0, 12_000)).allowed, true);
  });

  test('backoff admits exactly `free` of 100 concurrent attempts, the rest told when to retry', async () => {
    const b = bucket();
    const decisions = await Promise.all(range(100).map((i) => pick(i).backoff(b, DELAY, T0)));
    assert.equal(allowedCount(decisions), 3);
    for (const d of decisions) assert.equal(d.retryAt, d.allowed ? T0 : T0 + 1000);
  });

  test('backoff attempts leave the count as they leave the window', async () => {
    const b = bucket();
    for (const i of range(3)) await pick(i).backoff(b, DELAY, T0 + i * 1000);
    assert.equal((await pick(0).backoff(b, DELAY, T0 + 2500)).allowed, false);
    // At T0+60000 the first attempt has left: two are counted, under `free`.
    assert.equal((await pick(1).backoff(b, DELAY, T0 + 60_000)).allowed, true);
  });

  test('a peek decides without counting, and reset forgets a bucket', async () => {
    const b = bucket();
    for (const i of range(10)) assert.equal((await pick(i).backoff(b, DELAY, T0, true)).allowed, true);
    for (const i of range(3)) await pick(i).backoff(b, DELAY, T0);
    assert.deepEqual(await pick(0).backoff(b, DELAY, T0, true), { allowed: false, retryAt: T0 + 1000 });
    await pick(1).reset(b);
    assert.deepEqual(await pick(0).backoff(b, DELAY, T0), { allowed: true, retryAt: T0 });
    const h = bucket();
    await pick(0).hit(h, 1, WINDOW, T0);
    await pick(1).reset(h);
    assert.equal((await pick(0).hit(h, 1, WINDOW, T0)).allowed, true, 'reset empties a hit bucket too');
  });

  test('buckets are independent', async () => {
    const [a, b] = [bucket(), bucket()];
    for (const i of range(2)) assert.equal((await pick(i).hit(a, 2, WINDOW, T0)).allowed, true);
    assert.equal((await pick(0).hit(a, 2, WINDOW, T0)).allowed, false);
    assert.equal((await pick(1).hit(b, 2, WINDOW, T0)).allowed, true);
  });
}

describe('MemoryLimiter', () => {
  const limiter = new MemoryLimiter();
  after(() => limiter.close());
  let n = 0;
  sharedBehaviour(
    () => limiter,
    () => `b${n++}`,
  );

  test('matches a naive sliding log over many hits, growing and wrapping its ring buffer', async () => {
    const naive: number[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let now = T0;
    for (const i of range(20_000)) {
      now += Math.floor(random() * 3);
      const limit = i < 10_000 ? 40 : 300;
      const windowMs = 500;
      const live = naive.filter((t) => t > now - windowMs);
      const expected = live.length < limit;
      const d = await limiter.hit('naive', limit, windowMs, now);
      assert.equal(d.allowed, expected, `hit ${i}`);
      if (expected) live.push(now);
      naive.splice(0, naive.length, ...live);
      assert.equal(d.remaining, expected ? limit - live.length : 0, `remaining at hit ${i}`);
      assert.equal(d.resetAt, (live[0] ?? now) + windowMs, `resetAt at hit ${i}`);
    }
  });

  test('sweep drops buckets idle for longer than their window and keeps active ones', async () => {
    const own = new MemoryLimiter();
    try {
      await own.hit('idle', 5, 1000, T0);
      await own.hit('active', 5, 1000, T0 + 500);
      await own.hit('long-window', 5, 10_000, T0);
      own.sweep(T0 + 1000);
      assert.equal(own.bucketCount, 2);
      own.sweep(T0 + 1500);
      assert.equal(own.bucketCount, 1);
      // A swept bucket starts over with full capacity.
      assert.equal((await own.hit('idle', 5, 1000, T0 + 1600)).remaining, 4);
    } finally {
      await own.close();
    }
  });

  test('the periodic sweep runs by itself, and close() empties the limiter', async () => {
    const own = new MemoryLimiter({ sweepIntervalMs: 5 });
    for (const i of range(50)) await own.hit(`ip-${i}`, 10, 10);
    assert.equal(own.bucketCount, 50);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(own.bucketCount, 0);
    await own.hit('x', 10, WINDOW);
    await own.close();
    assert.equal(own.bucketCount, 0);
  });
});

describe('IpcLimiter', () => {
  // Two workers' limiters asking one primary, each message JSON-encoded and delivered a turn later.
  const host = new LimiterHost(new MemoryLimiter());
  const workers = [new IpcLimiter(new FakeChannel(host)), new IpcLimiter(new FakeChannel(host))];
  after(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await host.close();
  });
  const pick = (i: number) => {
    const limiter = workers[i % 2];
    if (!limiter) throw new Error('no IPC limiter');
    return limiter;
  };
  let n = 0;
  sharedBehaviour(pick, () => `b${n++}`);

  test('without `now`, the primary decides on its own clock', async () => {
    const before = Date.now();
    const d = await pick(0).hit('clock', 5, WINDOW);
    assert.ok(d.resetAt >= before + WINDOW && d.resetAt <= Date.now() + WINDOW, `resetAt ${d.resetAt}`);
    const b = await pick(1).backoff('clock-backoff', DELAY);
    assert.equal(b.allowed, true);
    assert.ok(b.retryAt >= before && b.retryAt <= Date.now());
  });
});

describe('RedisLimiter', {
  skip: REDIS_URL ? false : 'REDIS_URL is not set (CI sets it on its second pass)',
}, () => {
  const prefix = `mi:test:${randomBytes(6).toString('hex')}:`;
  // Two instances on two connections, sharing one Redis: the cluster case.
  const limiters: RedisLimiter[] = REDIS_URL
    ? [createRedisLimiter(REDIS_URL, prefix), createRedisLimiter(REDIS_URL, prefix)]
    : [];
  after(async () => {
    const [first] = limiters;
    if (first) {
      const keys = await first.redis.keys(`${prefix}*`);
      if (keys.length > 0) await first.redis.del(...keys);
    }
    await Promise.all(limiters.map((l) => l.close()));
  });
  const pick = (i: number) => {
    const limiter = limiters[i % 2];
    if (!limiter) throw new Error('no Redis limiter');
    return limiter;
  };
  let n = 0;
  sharedBehaviour(pick, () => `b${n++}`);

  test('uses two separate connections', () => {
    assert.notEqual(pick(0).redis, pick(1).redis);
  });

  test('keys carry the prefix and expire with the window', async () => {
    await pick(0).hit('ttl', 5, 2000, Date.now());
    const ttl = await pick(1).redis.pttl(`${prefix}ttl`);
    assert.ok(ttl > 0 && ttl <= 2000, `pttl ${ttl}`);
  });

  test('backoff keys carry the prefix and expire with the window', async () => {
    await pick(0).backoff('backoff-ttl', { ...DELAY, windowMs: 2000 }, Date.now());
    const ttl = await pick(1).redis.pttl(`${prefix}backoff-ttl`);
    assert.ok(ttl > 0 && ttl <= 2000, `pttl ${ttl}`);
  });

  test('requests in the same millisecond from both instances are all recorded', async () => {
    const decisions = await Promise.all(range(200).map((i) => pick(i).hit('same-ms', 150, WINDOW, T0)));
    assert.equal(allowedCount(decisions), 150);
    assert.equal(await pick(0).redis.zcard(`${prefix}same-ms`), 150);
  });
});
