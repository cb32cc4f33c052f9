/**
 * Faults of the dependencies, injected with a TCP proxy in front of the real PostgreSQL and Redis the
 * suite runs on: refused (stopped), hanging (no answers), and back. What must hold: no request waits
 * past its deadline, no 500, /api/v1/health names what failed within a second, /api/v1/health/live
 * stays 200, and recovery needs no restart.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/types.ts';
import { FailoverLimiter } from '../../src/infra/failover-limiter.ts';
import { type Db, openDb, POOL_WAIT_MS } from '../../src/store/db.ts';
import { type Envelope, makeKey, testApp } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { postgresTarget, TcpProxy, throughProxy } from '../support/proxy.ts';

interface HealthBody {
  ok: boolean;
  failing: string[];
  db: { ok: boolean; detail?: string };
  limiter: { ok: boolean; store: string; detail?: string };
}

let address = 0;
/** A request from an address of its own: the keyless allowance (10 a minute) never binds here. */
async function timed(
  app: App,
  url: string,
  key?: string,
): Promise<{ res: LightMyRequestResponse; ms: number }> {
  address += 1;
  const started = performance.now();
  const res = await app.inject({
    url,
    headers: key ? { 'x-api-key': key } : {},
    remoteAddress: `10.66.${(address >> 8) & 255}.${address & 255}`,
  });
  return { res, ms: performance.now() - started };
}

async function eventually(what: string, ok: () => Promise<boolean>, ms = 15_000): Promise<number> {
  const started = performance.now();
  while (!(await ok())) {
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return performance.now() - started;
}

function assertUnavailable(res: LightMyRequestResponse, what: string): void {
  assert.equal(res.statusCode, 503, `${what}: ${res.statusCode} ${res.body}`);
  assert.equal(res.json<Envelope>().error.code, 'unavailable', what);
  assert.ok(Number(res.headers['retry-after']) >= 1, `${what}: Retry-After`);
}

/** One series' value in a /metrics scrape (admin key, as a Bearer token, as Prometheus sends it). */
async function metric(app: App, db: Db, series: string): Promise<number> {
  const admin = (await makeKey(db, { admin: true, scopes: ['admin'] })).raw;
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${admin}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const line = res.body.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line, `${series} in the scrape`);
  return Number(line.slice(series.length + 1));
}

/** A port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function redisReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(500, () => socket.destroy());
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

describe('PostgreSQL stopped, hanging, and back', () => {
  let direct: Db;
  let proxied: Db;
  let proxy: TcpProxy;
  let app: App;
  let key: string;

  before(async () => {
    direct = await seededDb();
    proxy = await TcpProxy.start(postgresTarget(direct.url ?? ''));
    proxied = await openDb({ databaseUrl: throughProxy(direct.url ?? '', proxy), dataDir: '' });
    app = await testApp(proxied);
    key = (await makeKey(direct, { plan: 'institutional' })).raw;
  });
  after(async () => {
    await app?.close();
    await proxied?.close();
    await proxy?.stop();
    await direct?.close();
  });

  test('stopped: 503 with Retry-After at once, health names the database, live stays 200, then recovery', async (t) => {
    assert.equal((await timed(app, '/api/v1/events?limit=3', key)).res.statusCode, 200);
    await proxy.cut();
    for (const url of ['/api/v1/events?limit=4', '/api/v1/signals?limit=2', '/api/v1/companies']) {
      const { res, ms } = await timed(app, url, key);
      assertUnavailable(res, url);
      assert.ok(ms < 2000, `${url} answered in ${Math.round(ms)} ms`);
    }
    const health = await timed(app, '/api/v1/health');
    assert.equal(health.res.statusCode, 503);
    const body = health.res.json<HealthBody>();
    assert.deepEqual(body.failing, ['db']);
    assert.equal(body.db.ok, false);
    assert.ok(health.ms < 1000, `health answered in ${Math.round(health.ms)} ms`);
    assert.equal((await timed(app, '/api/v1/health/live')).res.statusCode, 200);

    await proxy.restore();
    const recovered = await eventually('reads answer again', async () => {
      const { res } = await timed(app, '/api/v1/events?limit=5', key);
      assert.notEqual(res.statusCode, 500, res.body);
      return res.statusCode === 200;
    });
    assert.ok(recovered < 15_000);
    t.diagnostic(`PostgreSQL back → reads answer again: ${Math.round(recovered)} ms`);
    assert.equal((await timed(app, '/api/v1/health')).res.statusCode, 200);
    // The scrape needs the admin key checked, so it works once the database answers; the 503s of the
    // outage were counted meanwhile.
    assert.ok(
      (await metric(app, direct, 'market_intel_unavailable_responses_total{cause="db"}')) >= 3,
      'the 503s are counted by cause',
    );
    assert.equal(await metric(app, direct, 'market_intel_db_up'), 1);
  });

  test('hanging: health answers within a second, requests get 503 within the pool wait, never hang', async (t) => {
    await proxy.hang();
    try {
      // The first may fail at once on a pooled connection the hang dropped; the second waits for a
      // new one that never answers, and the health deadline cuts it short.
      await timed(app, '/api/v1/health');
      const health = await timed(app, '/api/v1/health');
      assert.equal(health.res.statusCode, 503, health.res.body);
      assert.deepEqual(health.res.json<HealthBody>().failing, ['db']);
      assert.match(health.res.json<HealthBody>().db.detail ?? '', /no answer within/);
      assert.ok(health.ms < 1200, `health answered in ${Math.round(health.ms)} ms`);
      assert.equal((await timed(app, '/api/v1/health/live')).res.statusCode, 200);
      const { res, ms } = await timed(app, '/api/v1/events?limit=6', key);
      assertUnavailable(res, 'a read while PostgreSQL hangs');
      assert.ok(ms < POOL_WAIT_MS + 2000, `answered in ${Math.round(ms)} ms`);
      t.diagnostic(
        `while PostgreSQL hangs: health ${Math.round(health.ms)} ms, a read 503 in ${Math.round(ms)} ms`,
      );
    } finally {
      await proxy.restore();
    }
    await eventually('reads answer again', async () => {
      const { res } = await timed(app, '/api/v1/events?limit=7', key);
      assert.notEqual(res.statusCode, 500, res.body);
      return res.statusCode === 200;
    });
  });

  test('silent on a live connection: a statement past the deadline is 503, its connection replaced', async (t) => {
    const DEADLINE_MS = 1000;
    const bounded = await testApp(proxied.withDeadline(DEADLINE_MS));
    try {
      // A pooled connection is open and idle: the next read takes it, and PostgreSQL never answers.
      assert.equal((await timed(bounded, '/api/v1/signals?limit=3', key)).res.statusCode, 200);
      await proxy.stall();
      try {
        const { res, ms } = await timed(bounded, '/api/v1/signals?limit=4', key);
        assertUnavailable(res, 'a read on a stalled connection');
        assert.ok(ms >= DEADLINE_MS - 50 && ms < DEADLINE_MS + 1500, `answered in ${Math.round(ms)} ms`);
        t.diagnostic(`PostgreSQL silent on a live connection: a read answered 503 in ${Math.round(ms)} ms`);
      } finally {
        await proxy.restore();
      }
      const recovered = await eventually('reads answer again', async () => {
        const { res } = await timed(bounded, '/api/v1/signals?limit=5', key);
        assert.notEqual(res.statusCode, 500, res.body);
        return res.statusCode === 200;
      });
      t.diagnostic(`PostgreSQL answering again → reads 200 after ${Math.round(recovered)} ms`);
    } finally {
      await bounded.close();
    }
  });
});

describe('webhook deliveries that no worker sends', () => {
  let db: Db;
  let app: App;

  before(async () => {
    db = await seededDb();
    app = await testApp(db);
  });
  after(async () => {
    await app?.close();
    await db?.close();
  });

  test('health names `webhooks` once the oldest due delivery has waited over a minute', async () => {
    const { userId } = await makeKey(db);
    const [hook] = await db.query<{ id: string }>(
      "INSERT INTO webhooks (id, user_id, url, secret) VALUES (gen_random_uuid(), $1, 'https://receiver.invalid/h', 'plain:s') RETURNING id",
      [userId],
    );
    const due = (ago: string) =>
      db.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event, payload, status, next_attempt_at)
         VALUES (gen_random_uuid(), $1, 'signal.created', '{}', 'pending', now() - $2::interval)`,
        [hook?.id, ago],
      );
    await due('10 seconds');
    const fresh = await timed(app, '/api/v1/health');
    assert.equal(fresh.res.statusCode, 200, 'a delivery due for 10 s is normal');
    await due('5 minutes');
    const late = await timed(app, '/api/v1/health');
    assert.equal(late.res.statusCode, 503);
    const body = late.res.json<HealthBody & { webhooks: { ok: boolean; detail?: string } }>();
    assert.deepEqual(body.failing, ['webhooks']);
    assert.match(body.webhooks.detail ?? '', /waited 30\d s/);
    assert.equal(body.db.ok, true);

    // An endpoint with an attempt in flight works through its backlog at its allowance: not lag.
    await db.query(
      `UPDATE webhook_deliveries SET status = 'delivering', locked_until = now() + interval '20 seconds'
       WHERE id = (SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY next_attempt_at DESC LIMIT 1)`,
      [hook?.id],
    );
    const working = await timed(app, '/api/v1/health');
    assert.equal(working.res.statusCode, 200, working.res.body);
  });
});

describe('a scheduled ingest that makes no progress', () => {
  let db: Db;
  let app: App;
  const BASE = 'https://usaspending.example.test';

  before(async () => {
    db = await seededDb();
    app = await testApp(db, { INGEST_SCHEDULE: '30m', USASPENDING_BASE_URL: BASE });
  });
  after(async () => {
    await app?.close();
    await db?.close();
  });

  const progress = (ago: string, baseUrl = BASE) =>
    db.query(
      `INSERT INTO ingest_checkpoints (source_key, base_url, date_type, start_date, end_date, last_page, awards, finished, updated_at)
       VALUES ($1, $2, 'last_modified_date', '2026-01-01', '2026-01-02', 1, 10, true, now() - $3::interval)`,
      [`${baseUrl} ${ago}`, baseUrl, ago],
    );

  test('health names `ingest` once it has saved nothing for two intervals; fresh progress clears it', async () => {
    const first = await timed(app, '/api/v1/health');
    assert.equal(first.res.statusCode, 200, 'before its first tick, the clock starts with the process');
    const body = first.res.json<HealthBody & { ingest: { scheduled: boolean } }>();
    assert.equal(body.ingest.scheduled, true);

    await progress('61 minutes');
    await progress('1 minute', 'https://another-server.example.test');
    const late = await timed(app, '/api/v1/health');
    assert.equal(late.res.statusCode, 503);
    const lateBody = late.res.json<HealthBody & { ingest: { detail?: string; last_progress_at: string } }>();
    assert.deepEqual(lateBody.failing, ['ingest']);
    assert.match(lateBody.ingest.detail ?? '', /no progress for 61 min \(schedule: every 30 min\)/);
    assert.ok(late.ms < 1000);

    await progress('2 minutes');
    const fresh = await timed(app, '/api/v1/health');
    assert.equal(fresh.res.statusCode, 200, fresh.res.body);
  });

  test('without INGEST_SCHEDULE there is nothing to be overdue', async () => {
    const plain = await testApp(db);
    try {
      const res = await timed(plain, '/api/v1/health');
      assert.equal(res.res.statusCode, 200, res.res.body);
      assert.equal(res.res.json<{ ingest: { scheduled: boolean } }>().ingest.scheduled, false);
    } finally {
      await plain.close();
    }
  });
});

describe('Redis never there', () => {
  let db: Db;
  let app: App;

  before(async () => {
    db = await seededDb();
    app = await testApp(db, { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
  });
  after(async () => {
    await app?.close();
    await db?.close();
  });

  test('requests are served at once with per-process limits, which still bind; health names the limiter', async () => {
    const { raw } = await makeKey(db, { plan: 'developer', mode: 'test' });
    const started = performance.now();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const { res } = await timed(app, '/api/v1/events?limit=1', raw);
      statuses.push(res.statusCode);
      if (i === 0) assert.equal(res.headers['x-ratelimit-limit'], '30');
    }
    const ms = performance.now() - started;
    assert.deepEqual(statuses, [...Array(30).fill(200), 429], 'the test key limit (30 a minute) binds');
    assert.ok(ms < 3000, `31 requests took ${Math.round(ms)} ms`);
    const health = await timed(app, '/api/v1/health');
    assert.equal(health.res.statusCode, 503);
    const body = health.res.json<HealthBody>();
    assert.deepEqual(body.failing, ['limiter']);
    assert.equal(body.limiter.store, 'redis');
    assert.match(body.limiter.detail ?? '', /per process/);
    assert.ok(health.ms < 1000);
    assert.equal(await metric(app, db, 'market_intel_limiter_ok{store="redis"}'), 0);
    assert.ok((await metric(app, db, 'market_intel_limiter_local_decisions_total')) >= 31);
    assert.equal(await metric(app, db, 'market_intel_db_up'), 1);
  });
});

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

describe('Redis lost mid-run and back', {
  skip: !(await redisReachable(REDIS_URL)) && 'no Redis to proxy',
}, () => {
  let db: Db;
  let proxy: TcpProxy;
  let app: App;

  before(async () => {
    db = await seededDb();
    const { hostname, port } = new URL(REDIS_URL);
    proxy = await TcpProxy.start({ host: hostname, port: Number(port || 6379) });
    app = await testApp(db, { REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
  });
  after(async () => {
    await app?.close();
    await proxy?.stop();
    await db?.close();
  });

  test('limits fall back to this process within the command deadline and go back to Redis by themselves', async (t) => {
    const { raw } = await makeKey(db, { plan: 'developer' });
    const limiter = app.limiter as FailoverLimiter;
    assert.ok(limiter instanceof FailoverLimiter);
    assert.equal((await timed(app, '/api/v1/events?limit=1', raw)).res.statusCode, 200);
    assert.equal((await timed(app, '/api/v1/health')).res.statusCode, 200);
    assert.equal(limiter.degraded, false);

    await proxy.cut();
    for (let i = 0; i < 5; i++) {
      const { res, ms } = await timed(app, '/api/v1/events?limit=1', raw);
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(ms < 1000, `answered in ${Math.round(ms)} ms while Redis is away`);
      assert.ok(res.headers['x-ratelimit-remaining'], 'limit headers still sent');
    }
    assert.equal(limiter.degraded, true);
    const health = await timed(app, '/api/v1/health');
    assert.equal(health.res.statusCode, 503);
    assert.deepEqual(health.res.json<HealthBody>().failing, ['limiter']);

    await proxy.restore();
    const back = await eventually('Redis decides again', async () => {
      await timed(app, '/api/v1/events?limit=1', raw);
      return !limiter.degraded;
    });
    assert.ok(back < 10_000);
    t.diagnostic(`Redis back → shared limits again: ${Math.round(back)} ms`);
    assert.equal((await timed(app, '/api/v1/health')).res.statusCode, 200);
  });
});
