/**
 * `serve --workers 2` as an operator runs it: several worker processes answer on one port, a key's
 * per-minute limit holds exactly across them (the primary's limiter over IPC, or Redis), a killed
 * worker is replaced, and SIGTERM to the primary stops them all.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { availableParallelism } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { workerCount } from '../src/cluster.ts';
import { loadConfig } from '../src/config.ts';
import { TEST_KEY_RPM } from '../src/domain/plans.ts';
import { type Db, openDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { makeKey } from './support/app.ts';
import { admin, appUrl } from './support/db.ts';
import { type LogLine, type Server, startServe } from './support/serve.ts';

const REDIS_URL = process.env.REDIS_URL || null;

/** One GET on a connection of its own (no keep-alive), so the cluster hands each to some worker. */
function get(port: number, path: string, key: string): Promise<{ status: number; remaining: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path, agent: false, headers: { 'x-api-key': key } },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            remaining: Number(response.headers['x-ratelimit-remaining']),
          }),
        );
      },
    );
    request.on('error', reject);
  });
}

/** GET with an admin key; the body as text. */
function scrape(port: number, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: '/metrics', agent: false, headers: { 'x-api-key': key } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
  });
}

/** The value of the one sample of `series` whose line starts with it (name and labels as written). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const PATH = '/api/v1/events?limit=1';
const completed = (line: LogLine) => line.msg === 'request completed';

/**
 * Hammers `key` with 2 × its limit at once, each request on a fresh connection: exactly `limit` 200s
 * (remaining L-1 … 0, one window) and the rest 429, answered by both workers.
 */
async function assertExactLimit(server: Server, port: number, key: string, workerPids: number[]) {
  const before = server.lines.filter(completed).length;
  const results = await Promise.all(Array.from({ length: 2 * TEST_KEY_RPM }, () => get(port, PATH, key)));
  const ok = results.filter((r) => r.status === 200);
  assert.equal(ok.length, TEST_KEY_RPM, `statuses ${results.map((r) => r.status).join(',')}`);
  assert.equal(results.filter((r) => r.status === 429).length, TEST_KEY_RPM);
  assert.deepEqual(
    ok.map((r) => r.remaining).sort((x, y) => x - y),
    Array.from({ length: TEST_KEY_RPM }, (_, i) => i),
  );
  await server.waitFor(
    () => server.lines.filter(completed).length >= before + results.length,
    'every request logged',
    10_000,
  );
  const answeredBy = new Set(
    server.lines
      .filter(completed)
      .slice(before)
      .map((l) => l.pid),
  );
  assert.deepEqual([...answeredBy].sort(), [...workerPids].sort(), 'both workers answered');
}

describe('workerCount', () => {
  const config = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'postgres://db/x', ...env });

  test('--workers, else HTTP_WORKERS, else one per core', () => {
    assert.equal(workerCount(config({}), undefined), availableParallelism());
    assert.equal(workerCount(config({ HTTP_WORKERS: '3' }), undefined), 3);
    assert.equal(workerCount(config({ HTTP_WORKERS: '3' }), '1'), 1);
    assert.throws(() => workerCount(config({}), '1.5'), /invalid --workers/);
    assert.throws(() => workerCount(config({}), '65'), /invalid --workers: expected 1\.\.64/);
    assert.throws(() => config({ HTTP_WORKERS: '0' }), /invalid HTTP_WORKERS/);
  });

  test('a PostgreSQL on this machine (embedded or a local DATABASE_URL) is left a core unless told otherwise', () => {
    const fewer = Math.max(1, availableParallelism() - 1);
    assert.equal(workerCount(loadConfig({}), undefined), fewer);
    assert.equal(workerCount(loadConfig({ HTTP_WORKERS: '2' }), undefined), 2);
    assert.equal(workerCount(loadConfig({}), '3'), 3);
    for (const local of [
      'postgres://postgres@127.0.0.1:5432/test',
      'postgresql://localhost/test',
      'postgres://[::1]:5432/test',
      'postgres:///test',
      'postgres:///test?host=%2Fvar%2Frun%2Fpostgresql',
    ]) {
      assert.equal(workerCount(config({ DATABASE_URL: local }), undefined), fewer, local);
    }
    for (const remote of [
      'postgres://db.internal/x',
      'postgres://10.0.0.5/x',
      'postgres://127.example.com/x',
    ]) {
      assert.equal(workerCount(config({ DATABASE_URL: remote }), undefined), availableParallelism(), remote);
    }
  });
});

describe('serve --workers', () => {
  let databaseUrl = '';
  let db: Db;
  const running: Server[] = [];
  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: databaseUrl,
    SECRET_KEY: 'cluster-test-secret-key',
    REDIS_URL: '',
    ...extra,
  });
  /** A test key (TEST_KEY_RPM a minute) no other test has spent. */
  const freshKey = async () => (await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] })).raw;

  before(async () => {
    const name = `market_intel_cluster_${process.pid}_${randomBytes(3).toString('hex')}`;
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    databaseUrl = appUrl(name);
    db = await openDb({ databaseUrl, dataDir: '' });
    await migrate(db);
  });
  after(async () => {
    for (const server of running) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await db?.close();
    const name = new URL(databaseUrl).pathname.slice(1);
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  test('without Redis: exact limits across workers, one background worker, a killed worker replaced, SIGTERM stops all', async () => {
    const server = startServe(['--workers', '2'], env());
    running.push(server);
    const up = await server.waitFor((l) => l.msg === '2 HTTP workers listening', 'cluster listening');
    const port = (up.address as { port: number }).port;
    const pids = up.workers as number[];
    assert.equal(new Set(pids).size, 2);
    assert.ok(!pids.includes(server.child.pid ?? -1), 'the primary answers no HTTP');
    for (const pid of pids) assert.ok(alive(pid));

    const key = await freshKey();
    await assertExactLimit(server, port, key, pids);

    // Webhook delivery (and the ingest schedule) run in exactly one worker.
    const background = server.lines.filter((l) => l.msg === 'webhook delivery runs in this process');
    assert.equal(background.length, 1);
    const backgroundPid = background[0]?.pid ?? -1;
    assert.ok(pids.includes(backgroundPid));

    // Kill that worker: the primary logs it and starts a replacement, which takes over the role.
    process.kill(backgroundPid, 'SIGKILL');
    const exit = await server.waitFor(
      (l) => l.msg === 'HTTP worker exited; starting a replacement' && l.worker === backgroundPid,
      'the crash logged',
    );
    assert.equal(exit.signal, 'SIGKILL');
    const replaced = await server.waitFor(
      (l) => l.msg === 'replacement HTTP worker listening',
      'replacement',
    );
    const replacement = replaced.worker as number;
    assert.ok(!pids.includes(replacement));
    await server.waitFor(
      (l) => l.msg === 'webhook delivery runs in this process' && l.pid === replacement,
      'the replacement delivers webhooks',
    );
    // The counts live in the primary: the crash lost none, the key is still spent.
    const now = [...pids.filter((p) => p !== backgroundPid), replacement];
    const after = await Promise.all(Array.from({ length: 6 }, () => get(port, PATH, key)));
    assert.deepEqual(
      after.map((r) => r.status),
      Array(6).fill(429),
    );
    const other = await freshKey();
    const served = await Promise.all(Array.from({ length: 6 }, () => get(port, PATH, other)));
    assert.deepEqual(
      served.map((r) => r.status),
      Array(6).fill(200),
    );

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());
    for (const pid of now) assert.equal(alive(pid), false, `worker ${pid} still running`);
  });

  test('/metrics answered by any worker reports the requests of every worker', async () => {
    const server = startServe(['--workers', '2'], env());
    running.push(server);
    const up = await server.waitFor((l) => l.msg === '2 HTTP workers listening', 'cluster listening');
    const port = (up.address as { port: number }).port;
    const pids = up.workers as number[];
    const admin = (await makeKey(db, { admin: true, scopes: ['admin'] })).raw;
    const live = '/api/v1/health/live';
    const before = server.lines.filter(completed).length;
    const results = await Promise.all(Array.from({ length: 40 }, () => get(port, live, admin)));
    assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
    await server.waitFor(
      () => server.lines.filter(completed).length >= before + results.length,
      'every request logged',
    );
    const answeredBy = new Set(
      server.lines
        .filter(completed)
        .slice(before)
        .map((l) => l.pid),
    );
    assert.equal(answeredBy.size, 2, 'both workers served the requests');

    // Several scrapes, each on its own connection: whichever worker answers, it counts all 40.
    const series = `market_intel_http_requests_total{method="GET",route="${live}",status_code="200"}`;
    const histogram = `market_intel_http_request_duration_seconds_count{method="GET",route="${live}",status_code="200"}`;
    const scrapedBy = new Set<unknown>();
    for (let i = 0; i < 8; i++) {
      const mark = server.lines.filter(completed).length;
      const res = await scrape(port, admin);
      assert.equal(res.status, 200, res.body);
      assert.equal(sample(res.body, series), 40, `scrape ${i}`);
      assert.equal(sample(res.body, histogram), 40);
      assert.equal(sample(res.body, 'market_intel_cluster_workers{state="reporting"}'), 2);
      assert.equal(sample(res.body, 'market_intel_cluster_workers{state="missing"}'), 0);
      // Gauges merged as declared: the database is up (min over the workers), once.
      assert.equal(sample(res.body, 'market_intel_db_up'), 1);
      assert.equal(sample(res.body, 'market_intel_db_pool_max_connections'), 20, 'two pools of 10');
      await server.waitFor(() => server.lines.filter(completed).length > mark, 'scrape logged');
      scrapedBy.add(server.lines.filter(completed).at(-1)?.pid);
    }
    assert.deepEqual([...scrapedBy].sort(), [...pids].sort(), 'the scrapes reached both workers');
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());
  });

  test('with Redis: exact limits across workers; SIGTERM stops all', {
    skip: REDIS_URL ? false : 'REDIS_URL is not set',
  }, async () => {
    const server = startServe(['--workers', '2'], env({ REDIS_URL: REDIS_URL ?? '' }));
    running.push(server);
    const up = await server.waitFor((l) => l.msg === '2 HTTP workers listening', 'cluster listening');
    assert.equal(server.lines.find((l) => l.msg === 'starting 2 HTTP workers')?.limiter, 'redis');
    const pids = up.workers as number[];
    await assertExactLimit(server, (up.address as { port: number }).port, await freshKey(), pids);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());
    for (const pid of pids) assert.equal(alive(pid), false, `worker ${pid} still running`);
  });

  test('--workers 1 is the single process serve always was', async () => {
    const server = startServe(['--workers', '1'], env());
    running.push(server);
    const listening = await server.waitFor((l) => l.msg.startsWith('Server listening at'), 'listening');
    assert.equal(listening.pid, server.child.pid);
    assert.equal(server.lines.filter((l) => l.msg.startsWith('Server listening at')).length, 1);
    assert.equal(
      server.lines.some((l) => /HTTP workers/.test(l.msg)),
      false,
    );
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());
  });
});
