/**
 * Throughput and latency of GET /api/v1/events (DESIGN §11) against the real app, in a server process
 * of its own, loaded by autocannon from this process:
 *   (a) embedded PGlite seeded with the demo data,
 *   (b) PostgreSQL holding bench/synthetic.ts's data set (DATABASE_URL, default market_intel_bench),
 * each followed by a bare node:http server returning the same bytes, for the app/bare throughput ratio.
 * Per target: `?limit=50` at full load (autocannon, closed loop), a mix of filtered URLs at full load,
 * and `?limit=50` open loop at a constant half of the full-load rate (the p99 bar; autocannon's own
 * rate limiting sends each second's requests in one burst, so it is not used for this), then the
 * server's RSS. Latencies are per response, every status, in ms with sub-ms precision.
 *
 *   npm run bench:events -- [--duration 15] [--connections 50] [--targets pglite,postgres]
 *                           [--plan developer] [--keys 1000] [--redis]
 *
 * Auth, rate limiting and usage recording are on (DESIGN §11): the server provisions bench users on
 * --plan (default developer) holding --keys live keys (default 1000), and the load rotates over them so
 * that the per-key limits leave headroom; 429s would show as non-2xx. --redis uses the Redis limiter
 * (REDIS_URL, default redis://127.0.0.1:6379) for the PostgreSQL target.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { Pool } from 'undici';
import type { Db } from '../src/store/db.ts';
import {
  arg,
  benchDatabaseUrl,
  databaseExists,
  flag,
  fmtInt,
  fmtMb,
  fmtMs,
  numberArg,
  summary,
  table,
} from './common.ts';

const SELF = fileURLToPath(import.meta.url);
const DURATION = numberArg('duration', 15);
const CONNECTIONS = numberArg('connections', 50);
const TARGETS = (arg('targets') ?? 'pglite,postgres').split(',').map((t) => t.trim());
const EVENTS_PATH = '/api/v1/events?limit=50';
const MIX_PATHS = [
  '/api/v1/events?limit=50&ticker=LMT',
  '/api/v1/events?limit=50&agency=Department%20of%20Defense',
  '/api/v1/events?limit=50&classification=aircraft',
  '/api/v1/events?limit=50&from=2022-01-01&to=2022-12-31',
  '/api/v1/events?limit=50&ticker=RTX&classification=missiles_munitions',
  '/api/v1/events?limit=50&agency=department%20of%20defense&from=2021-01-01',
  '/api/v1/events?limit=50&offset=1000',
  '/api/v1/events?limit=200&ticker=BA',
  '/api/v1/events?limit=50&ticker=GD&from=2023-01-01&to=2023-06-30',
  '/api/v1/events?limit=50&classification=it_services&offset=200',
];
const PLAN_ARG = arg('plan') ?? 'developer';
const KEY_COUNT = Math.max(1, Math.floor(numberArg('keys', 1000)));
const REDIS = flag('redis') ? process.env.REDIS_URL || 'redis://127.0.0.1:6379' : null;
const BENCH_EMAIL = 'bench-%@bench.invalid';

type Mode = 'pglite' | 'postgres' | 'bare';
type ToParent =
  | { type: 'ready'; port: number; note: string; keys: string[] }
  | { type: 'rss'; rss: number; peak: number; loopP99: number; loopMax: number };

// ---------------------------------------------------------------- server side (child process)

async function child(mode: Mode): Promise<void> {
  const send = (message: ToParent) => process.send?.(message);
  let peak = process.memoryUsage.rss();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 100);
  sampler.unref();
  let port: number;
  let note: string;
  let keys: string[] = [];
  let cleanup = async () => {};

  if (mode === 'bare') {
    const body = await readFile(arg('body') ?? '');
    const server = http.createServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    note = `${body.length} bytes`;
  } else {
    const { buildApp } = await import('../src/app.ts');
    const { loadConfig } = await import('../src/config.ts');
    const { openDb, openMemoryDb } = await import('../src/store/db.ts');
    const { migrate } = await import('../src/store/migrate.ts');
    const env: Record<string, string> = { LOG_LEVEL: 'silent' };
    if (REDIS && mode === 'postgres') env.REDIS_URL = REDIS;
    let db: Awaited<ReturnType<typeof openMemoryDb>>;
    if (mode === 'pglite') {
      const { seed } = await import('../src/pipeline/seed.ts');
      db = await openMemoryDb();
      await migrate(db);
      const started = Date.now();
      await seed(db, { signalThreshold: 75 });
      process.stderr.write(`pglite: demo data seeded in ${Date.now() - started} ms\n`);
    } else {
      env.DATABASE_URL = benchDatabaseUrl();
      db = await openDb({ databaseUrl: env.DATABASE_URL, dataDir: '' });
      await migrate(db);
    }
    const [counts] = await db.query<{ contracts: number; events: number }>(
      'SELECT count(*)::int AS contracts, count(ticker)::int AS events FROM contracts',
    );
    note = `${fmtInt(counts?.contracts ?? 0)} contracts, ${fmtInt(counts?.events ?? 0)} with a ticker`;
    const keyDb = db;
    cleanup = () => removeBenchUsers(keyDb);
    await cleanup();
    keys = await provisionKeys(db);
    note += `; ${keys.length} ${PLAN_ARG} keys${env.REDIS_URL ? ', Redis limiter' : ', in-memory limiter'}`;
    const security = arg('security') !== 'off';
    if (!security) note += '; auth, limits and usage OFF';
    const app = await buildApp({ config: loadConfig(env), db, logger: false, security });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  }
  process.on('message', (message: { type: string }) => {
    if (message.type === 'rss') {
      // Event-loop delay since the previous report (or since ready), in ms.
      const loopP99 = loop.percentile(99) / 1e6;
      const loopMax = loop.max / 1e6;
      loop.reset();
      send({ type: 'rss', rss: process.memoryUsage.rss(), peak, loopP99, loopMax });
    }
    if (message.type === 'stop') void cleanup().finally(() => process.exit(0));
  });
  loop.enable();
  send({ type: 'ready', port, note, keys });
}

/** Bench users on PLAN with KEY_COUNT live keys in all (as many users as the plan's key cap needs). */
async function provisionKeys(db: Db): Promise<string[]> {
  const { generateKey } = await import('../src/domain/keys.ts');
  const { isPlan, PLAN_LIMITS } = await import('../src/domain/plans.ts');
  const { createUser, insertKey } = await import('../src/store/accounts.ts');
  const PLAN = PLAN_ARG;
  if (!isPlan(PLAN)) throw new Error(`unknown plan ${PLAN}`);
  const perUser = PLAN_LIMITS[PLAN].maxLiveKeys;
  if (perUser === 0) throw new Error(`the ${PLAN} plan has no live keys`);
  const stamp = `${Date.now()}-${process.pid}`;
  const raws: string[] = [];
  for (let u = 0; raws.length < KEY_COUNT; u++) {
    const user = await createUser(db, {
      email: BENCH_EMAIL.replace('%', `${stamp}-${u}`),
      plan: PLAN,
      isAdmin: false,
      passwordHash: null,
    });
    for (let k = 0; k < perUser && raws.length < KEY_COUNT; k++) {
      const key = generateKey('live');
      await insertKey(db, { userId: user.id, name: `bench ${k}`, mode: 'live', scopes: ['read'], key });
      raws.push(key.raw);
    }
  }
  return raws;
}

/** Leaves the bench database as bench/synthetic.ts made it. */
async function removeBenchUsers(db: Db): Promise<void> {
  await db.query(
    `DELETE FROM usage_minutely WHERE key_id IN
       (SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email LIKE $1)`,
    [BENCH_EMAIL],
  );
  await db.query('DELETE FROM users WHERE email LIKE $1', [BENCH_EMAIL]);
}

// ---------------------------------------------------------------- load side (this process)

interface Server {
  proc: ChildProcess;
  port: number;
  note: string;
  keys: string[];
  rss(): Promise<{ rss: number; peak: number; loopP99: number; loopMax: number }>;
  stop(): Promise<void>;
}

function startServer(mode: Mode, extra: string[] = []): Promise<Server> {
  const passOn = [...(REDIS ? ['--redis', 'true'] : []), '--plan', PLAN_ARG, '--keys', String(KEY_COUNT)];
  const proc = fork(SELF, ['--child', mode, ...passOn, ...extra], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const next = <T extends ToParent['type']>(type: T) =>
    new Promise<Extract<ToParent, { type: T }>>((resolve, reject) => {
      const onMessage = (m: ToParent) => {
        if (m.type !== type) return;
        proc.off('message', onMessage);
        proc.off('exit', onExit);
        resolve(m as Extract<ToParent, { type: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`${mode} server exited with ${code}`));
      proc.on('message', onMessage);
      proc.once('exit', onExit);
    });
  return next('ready').then(({ port, note, keys }) => ({
    proc,
    port,
    note,
    keys,
    rss: async () => {
      const reply = next('rss');
      proc.send({ type: 'rss' });
      const { rss, peak, loopP99, loopMax } = await reply;
      return { rss, peak, loopP99, loopMax };
    },
    stop: async () => {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.send({ type: 'stop' });
      await exited;
    },
  }));
}

interface Measured {
  label: string;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Non-2xx statuses and their counts, e.g. `429×12`. */
  statuses: string;
  /** Server event-loop delay during the run (p99 / max, ms). */
  loop?: string;
  /** The first body of a non-2xx answer, if any. */
  sampleError?: string;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** One autocannon run; latencies are kept raw (every status) for sub-millisecond percentiles. */
async function load(
  label: string,
  port: number,
  paths: string[],
  options: { duration: number; keys?: string[] },
): Promise<Measured> {
  const keys = options.keys?.length ? options.keys : [null];
  const count = Math.max(paths.length, keys.length);
  const requests = Array.from({ length: count }, (_, i) => {
    const key = keys[i % keys.length];
    const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
    return { method: 'GET', path: paths[i % paths.length] ?? '/', headers };
  });
  const latencies: number[] = [];
  let sampleError: string | undefined;
  const instance = autocannon({
    setupClient: (client) => {
      client.on('body', (body: Buffer) => {
        if (sampleError === undefined && body.subarray(0, 9).toString() === '{"error":') {
          sampleError = body.toString().slice(0, 300);
        }
      });
    },
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: options.duration,
    requests,
    timeout: 10,
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
  });
  const result: Result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  return {
    label,
    rps: latencies.length / result.duration,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? (sorted[sorted.length - 1] ?? 0) : Number.NaN,
    requests: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors,
    statuses: Object.entries(result.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, { count }]) => `${code}×${count}`)
      .join(' '),
    sampleError,
  };
}

/**
 * Open-loop load at a constant rate: request i is due at start + i / rate, whatever the earlier ones
 * did, and its latency counts from that due time (so queueing behind a stall is not hidden). Up to
 * CONNECTIONS keep-alive connections.
 */
async function paced(
  label: string,
  port: number,
  paths: string[],
  rate: number,
  keys: string[],
): Promise<Measured> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS, pipelining: 1 });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let sampleError: string | undefined;
  const interval = 1000 / rate;
  const start = performance.now();
  const end = start + DURATION * 1000;
  const pending: Promise<void>[] = [];
  for (let i = 0; ; i++) {
    const due = start + i * interval;
    if (due >= end) break;
    const wait = due - performance.now();
    if (wait > 0.5) await new Promise((resolve) => setTimeout(resolve, wait));
    const key = keys[i % keys.length];
    const request = pool
      .request({
        method: 'GET',
        path: paths[i % paths.length] ?? '/',
        headers: key ? { 'x-api-key': key } : {},
      })
      .then(async (res) => {
        const body = await res.body.text();
        latencies.push(performance.now() - due);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode >= 300 && sampleError === undefined) sampleError = body.slice(0, 300);
      })
      .catch(() => {
        errors++;
      });
    pending.push(request);
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  const non2xx = [...statuses].filter(([code]) => code < 200 || code > 299);
  return {
    label,
    rps: latencies.length / elapsed,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? (sorted[sorted.length - 1] ?? 0) : Number.NaN,
    requests: latencies.length,
    non2xx: non2xx.reduce((n, [, count]) => n + count, 0),
    errors,
    statuses: non2xx.map(([code, count]) => `${code}×${count}`).join(' '),
    sampleError,
  };
}

async function fetchBody(
  port: number,
  urlPath: string,
  key?: string,
): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, { headers: key ? { 'x-api-key': key } : {} });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

interface TargetReport {
  target: string;
  note: string;
  runs: Measured[];
  bare: Measured;
  bodyBytes: number;
  rss: number;
  peakRss: number;
  startMs: number;
}

async function benchTarget(target: 'pglite' | 'postgres', scratch: string): Promise<TargetReport> {
  const log = (line: string) => process.stdout.write(`[${target}] ${line}\n`);
  const t0 = Date.now();
  log('starting the app server…');
  const server = await startServer(target);
  const startMs = Date.now() - t0;
  log(`listening on port ${server.port} after ${startMs} ms (${server.note})`);
  try {
    const keys = server.keys;
    const first = await fetchBody(server.port, EVENTS_PATH, keys[0]);
    if (first.status !== 200) {
      log(`WARNING: GET ${EVENTS_PATH} answered ${first.status}: ${first.body.toString().slice(0, 200)}`);
    }
    for (const [i, p] of MIX_PATHS.entries()) {
      const { status } = await fetchBody(server.port, p, keys[(i + 1) % keys.length]);
      if (status !== 200) log(`WARNING: GET ${p} answered ${status}`);
    }
    const bodyFile = path.join(scratch, `${target}-events.json`);
    await writeFile(bodyFile, first.body);

    /** One run, then the server's event-loop delay over it. */
    const measure = async (run: () => Promise<Measured>) => {
      await server.rss();
      const m = await run();
      const stats = await server.rss();
      return { ...m, loop: `${stats.loopP99.toFixed(1)} / ${stats.loopMax.toFixed(0)} ms` };
    };
    const closed = (label: string, paths: string[]) => () =>
      load(label, server.port, paths, { duration: DURATION, keys });
    log('warm-up 3 s');
    await load('warm-up', server.port, [EVENTS_PATH], { duration: 3, keys });
    const runs: Measured[] = [];
    log(`GET ${EVENTS_PATH}: ${CONNECTIONS} connections, ${DURATION} s`);
    runs.push(await measure(closed('events?limit=50', [EVENTS_PATH])));
    log(`filtered mix of ${MIX_PATHS.length} URLs: ${CONNECTIONS} connections, ${DURATION} s`);
    runs.push(await measure(closed('filtered mix', MIX_PATHS)));
    const half = Math.max(1, Math.round((runs[0]?.rps ?? 2) / 2));
    log(`GET ${EVENTS_PATH} at a constant ${half} req/s (half the full-load rate), ${DURATION} s`);
    runs.push(
      await measure(() =>
        paced(`events?limit=50 paced @ ${half} req/s`, server.port, [EVENTS_PATH], half, keys),
      ),
    );
    const { rss, peak } = await server.rss();
    await server.stop();

    // The same app built without keys, limits and usage counting: what they cost, in this run.
    log(`GET ${EVENTS_PATH} with auth, limits and usage OFF: ${CONNECTIONS} connections, ${DURATION} s`);
    const open = await startServer(target, ['--security', 'off']);
    try {
      await load('warm-up', open.port, [EVENTS_PATH], { duration: 3, keys });
      runs.push(
        await load('events?limit=50, security OFF', open.port, [EVENTS_PATH], { duration: DURATION, keys }),
      );
    } finally {
      await open.stop();
    }

    log(`bare node:http server returning the same ${first.body.length} bytes`);
    const bareServer = await startServer('bare', ['--body', bodyFile]);
    try {
      await load('warm-up', bareServer.port, ['/'], { duration: 3 });
      const bare = await load('bare node:http', bareServer.port, [EVENTS_PATH], { duration: DURATION });
      return {
        target,
        note: server.note,
        runs,
        bare,
        bodyBytes: first.body.length,
        rss,
        peakRss: peak,
        startMs,
      };
    } finally {
      await bareServer.stop();
    }
  } finally {
    if (server.proc.exitCode === null) server.proc.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  const startLoad = loadavg()[0] ?? 0;
  const scratch = await mkdtemp(path.join(tmpdir(), 'market-intel-bench-'));
  const reports: TargetReport[] = [];
  try {
    for (const target of TARGETS) {
      if (target !== 'pglite' && target !== 'postgres') throw new Error(`unknown target ${target}`);
      if (target === 'postgres' && !(await databaseExists(benchDatabaseUrl()))) {
        console.log(
          `[postgres] skipped: ${benchDatabaseUrl()} does not exist (run npm run bench:synthetic first)`,
        );
        continue;
      }
      reports.push(await benchTarget(target, scratch));
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  const lines: string[] = [
    `load average (1 min) at start ${startLoad.toFixed(2)}, at end ${loadavg()[0]?.toFixed(2)} (2 cores; other work on the machine skews figures)`,
    `load: autocannon, ${CONNECTIONS} connections, ${DURATION} s per run, same machine (${process.arch}); auth on: x-api-key rotating over ${KEY_COUNT} ${PLAN_ARG} keys`,
  ];
  for (const r of reports) {
    const main = r.runs[0];
    const ratio = main && r.bare.rps > 0 ? main.rps / r.bare.rps : Number.NaN;
    const halfRun = r.runs[2];
    lines.push(
      '',
      `## ${r.target} (${r.note}); server ready in ${r.startMs} ms; response ${fmtInt(r.bodyBytes)} bytes`,
      table(
        [
          'run',
          'req/s',
          'p50',
          'p90',
          'p99',
          'max',
          'requests',
          'non-2xx',
          'errors',
          'server loop delay p99/max',
        ],
        [...r.runs, r.bare].map((m) => [
          m.label,
          fmtInt(m.rps),
          fmtMs(m.p50),
          fmtMs(m.p90),
          fmtMs(m.p99),
          fmtMs(m.max),
          fmtInt(m.requests),
          fmtInt(m.non2xx) + (m.statuses ? ` (${m.statuses})` : ''),
          fmtInt(m.errors),
          m.loop ?? '',
        ]),
      ),
      ...r.runs.flatMap((m) => (m.sampleError ? [`first error body in "${m.label}": ${m.sampleError}`] : [])),
      `app / bare throughput: ${(100 * ratio).toFixed(1)} % (DESIGN §11 bar: ≥ 50 % in PostgreSQL mode)`,
      `p99 at half load: ${halfRun ? fmtMs(halfRun.p99) : 'n/a'} (bar: ≤ 10 ms)`,
      `auth + limiter + usage on / off throughput: ${
        main && r.runs[3]
          ? `${fmtInt(main.rps)} / ${fmtInt(r.runs[3].rps)} = ${((100 * main.rps) / r.runs[3].rps).toFixed(1)} %`
          : 'n/a'
      }`,
      `max latency at 50 connections: ${main ? fmtMs(main.max) : 'n/a'}${
        r.target === 'pglite' ? ' (embedded bar: ≤ 50 ms, on 100k contracts)' : ''
      }`,
      `server RSS after the runs: ${fmtMb(r.rss)}, peak ${fmtMb(r.peakRss)} (bar: ≤ 200 MB in PostgreSQL mode)`,
    );
  }
  console.log(summary('bench:events', lines));
}

if (arg('child')) await child(arg('child') as Mode);
else await main();
