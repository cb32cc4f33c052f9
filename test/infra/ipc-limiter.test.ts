import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { IpcLimiter, LIMITER_TAG, LimiterHost } from '../../src/infra/ipc-limiter.ts';
import { type LimitDecision, LimiterUnavailableError } from '../../src/infra/limiter.ts';
import { MemoryLimiter } from '../../src/infra/memory-limiter.ts';
import type { Db } from '../../src/store/db.ts';
import { testApp } from '../support/app.ts';
import { freshDb } from '../support/db.ts';
import { FakeChannel } from '../support/fake-ipc.ts';

const CHILD = new URL('../support/ipc-limiter-child.ts', import.meta.url).pathname;

describe('IpcLimiter fails closed', () => {
  test('a primary that does not answer: the call fails after the timeout, not later, and is forgotten', async () => {
    const channel = new FakeChannel(null, false);
    const limiter = new IpcLimiter(channel, { timeoutMs: 60 });
    try {
      const started = performance.now();
      await assert.rejects(limiter.hit('b', 5, 1000), (error: Error) => {
        assert.ok(error instanceof LimiterUnavailableError);
        assert.match(error.message, /did not answer within 60 ms/);
        return true;
      });
      const waited = performance.now() - started;
      assert.ok(waited >= 59 && waited < 500, `failed after ${waited.toFixed(0)} ms`);
      assert.equal(limiter.pendingCount, 0);
      // A reply arriving after the timeout is dropped.
      channel.deliver([LIMITER_TAG, 1, 1, 4, 0]);
      assert.equal(limiter.pendingCount, 0);
    } finally {
      await limiter.close();
    }
  });

  test('a reply that arrived while this process was blocked past the timeout still counts', async () => {
    const host = new LimiterHost(new MemoryLimiter());
    // The reply travels three turns of the event loop after the block (the fake channel's hops), and must
    // arrive before the limiter's next tick (a quarter of the timeout): 200 ms gives those turns 50 ms,
    // which held with a second suite running beside this one; 40 ms (a 10 ms tick) did not.
    const limiter = new IpcLimiter(new FakeChannel(host), { timeoutMs: 200 });
    try {
      const decision = limiter.hit('b', 5, 1000);
      const until = performance.now() + 500;
      while (performance.now() < until) {
        // Blocks the event loop: the expiry timer is due before the reply is read.
      }
      assert.equal((await decision).allowed, true);
      // Unanswered calls still expire once the process runs normally again.
      const silent = new IpcLimiter(new FakeChannel(null, false), { timeoutMs: 40 });
      await assert.rejects(silent.hit('b', 5, 1000), LimiterUnavailableError);
      await silent.close();
    } finally {
      await limiter.close();
      await host.close();
    }
  });

  test('once the channel has closed, calls fail at once and nothing is sent', async () => {
    const channel = new FakeChannel(null, false);
    const limiter = new IpcLimiter(channel, { timeoutMs: 10_000 });
    const waiting = limiter.backoff('b', { free: 1, baseMs: 1, maxMs: 1, windowMs: 1000 });
    channel.close();
    await assert.rejects(waiting, /cluster primary closed the channel/);
    const sent = channel.sent;
    await assert.rejects(limiter.reset('b'), LimiterUnavailableError);
    assert.equal(channel.sent, sent);
    await limiter.close();
  });

  test('close() fails the calls still waiting; later calls fail too', async () => {
    const limiter = new IpcLimiter(new FakeChannel(null, false), { timeoutMs: 10_000 });
    const waiting = limiter.hit('b', 5, 1000);
    await limiter.close();
    await assert.rejects(waiting, LimiterUnavailableError);
    await assert.rejects(limiter.hit('b', 5, 1000), /closed/);
  });

  test('replies are matched by id, whatever their order', async () => {
    const channel = new FakeChannel(null, false);
    const limiter = new IpcLimiter(channel);
    try {
      const first = limiter.hit('a', 7, 1000, 10);
      const second = limiter.backoff('b', { free: 1, baseMs: 1, maxMs: 1, windowMs: 1000 }, 10);
      channel.deliver([LIMITER_TAG, 2, 0, 99]);
      channel.deliver([LIMITER_TAG, 1, 1, 6, 1010]);
      assert.deepEqual(await first, { allowed: true, limit: 7, remaining: 6, resetAt: 1010 });
      assert.deepEqual(await second, { allowed: false, retryAt: 99 });
    } finally {
      await limiter.close();
    }
  });

  test('calls made in one turn travel as one message, and each gets its own answer', async () => {
    const host = new LimiterHost(new MemoryLimiter());
    const channel = new FakeChannel(host);
    const limiter = new IpcLimiter(channel);
    try {
      const decisions = await Promise.all([
        limiter.hit('batch', 2, 60_000),
        limiter.hit('batch', 2, 60_000),
        limiter.hit('batch', 2, 60_000),
        limiter.backoff('other', { free: 0, baseMs: 1000, maxMs: 1000, windowMs: 60_000 }),
      ]);
      assert.equal(channel.sent, 1, 'one message for the four calls');
      assert.deepEqual(
        decisions.slice(0, 3).map((d) => [(d as LimitDecision).allowed, (d as LimitDecision).remaining]),
        [
          [true, 1],
          [true, 0],
          [false, 0],
        ],
        'decided one by one, in the order they were made',
      );
      assert.equal((await limiter.hit('batch', 2, 60_000)).allowed, false);
      assert.equal(channel.sent, 2, 'a call alone is sent alone');
    } finally {
      await limiter.close();
      await host.close();
    }
  });

  test('a batch with a malformed request: that one fails, the others are answered', async () => {
    const host = new LimiterHost(new MemoryLimiter());
    const limiter = new IpcLimiter(new FakeChannel(host));
    try {
      const [bad, good] = await Promise.allSettled([
        limiter.hit('b', Number.NaN, 1000),
        limiter.hit('b', 1, 1000),
      ]);
      assert.equal(bad.status, 'rejected');
      assert.match(String((bad as PromiseRejectedResult).reason), /must be numbers/);
      assert.equal(good.status === 'fulfilled' && good.value.allowed, true);
    } finally {
      await limiter.close();
      await host.close();
    }
  });

  test('the host refuses a malformed request with an error reply, not a crash', async () => {
    const host = new LimiterHost(new MemoryLimiter());
    const limiter = new IpcLimiter(new FakeChannel(host));
    try {
      await assert.rejects(
        limiter.hit('b', Number.NaN, 1000),
        (error: Error) =>
          !(error instanceof LimiterUnavailableError) && /must be numbers/.test(error.message),
      );
      assert.equal((await limiter.hit('b', 1, 1000)).allowed, true);
    } finally {
      await limiter.close();
      await host.close();
    }
  });
});

describe('IpcLimiter between processes', () => {
  const host = new LimiterHost(new MemoryLimiter());
  const children: ChildProcess[] = [];
  const inbox = new Map<ChildProcess, ((message: { decisions: LimitDecision[] }) => void)[]>();

  before(async () => {
    for (let i = 0; i < 2; i++) {
      const child = fork(CHILD, {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const peer = { send: (m: unknown) => child.send(m as object), isConnected: () => child.connected };
      const ready = new Promise<void>((resolve) => {
        child.on('message', (message: { ready?: boolean; done?: boolean; decisions: LimitDecision[] }) => {
          if (host.handle(message, peer)) return;
          if (message.ready) resolve();
          if (message.done) inbox.get(child)?.shift()?.(message);
        });
      });
      inbox.set(child, []);
      children.push(child);
      await ready;
    }
  });
  after(async () => {
    for (const child of children) child.disconnect();
    await Promise.all(
      children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
    );
    await host.close();
  });

  const run = (child: ChildProcess, bucket: string, limit: number, count: number) =>
    new Promise<LimitDecision[]>((resolve) => {
      inbox.get(child)?.push((message) => resolve(message.decisions));
      child.send({ go: true, bucket, limit, count });
    });

  test('two forked processes hammering one bucket get exactly `limit` admissions between them', async () => {
    const [a, b] = children;
    if (!a || !b) throw new Error('children not started');
    // Either alone fits in the limit, both together do not: whatever the interleaving, each is admitted some.
    const results = await Promise.all([run(a, 'shared', 150, 100), run(b, 'shared', 150, 100)]);
    const admitted = results.flat().filter((d) => d.allowed);
    assert.equal(admitted.length, 150);
    assert.ok(results.every((r) => r.length === 100 && r.some((d) => d.allowed)));
    assert.deepEqual(
      admitted.map((d) => d.remaining).sort((x, y) => y - x),
      Array.from({ length: 150 }, (_, i) => 149 - i),
    );
  });
});

describe('a limiter that cannot decide, over HTTP', () => {
  let db: Db;
  before(async () => {
    db = await freshDb();
  });
  after(async () => db.close());

  test('is a 503 with Retry-After, not a pass and not a hang', async () => {
    const limiter = new IpcLimiter(new FakeChannel(null, false), { timeoutMs: 30 });
    const app = await testApp(db, {}, { limiter });
    try {
      const res = await app.inject('/api/v1/health');
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '1');
      assert.match(res.json().error.message, /rate limiting is unavailable/);
    } finally {
      await app.close();
      await limiter.close();
    }
  });
});
