/**
 * Throughput, latency and memory of the read API against the real server, started the way
 * `npm start` starts it (package.json's `start` script, spawned; see server-process.ts), and loaded from
 * this process. Targets:
 *   embedded  `serve` on a fresh DATA_DIR in a temp dir (seeds the demo data on first start), whatever
 *             storage it embeds (a PostgreSQL child process): only the removal of a temporary DATA_DIR
 *             with its cluster (removeTemporaryDir) is imported here;
 *   postgres  `serve` with DATABASE_URL (--database-url, else $DATABASE_URL, else the 1 M-contract
 *             market_intel_bench of `npm run bench:synthetic`); skipped, saying why, when it is absent.
 * Auth, rate limiting and usage recording are on: an admin key is made with the CLI, then --keys live
 * keys on --plan through the admin API (plus institutional keys for the intelligence-tier URLs when
 * --plan is below that tier); the load rotates over them so that the per-key limits never bind — any
 * non-2xx under load makes the run INVALID. Per target, each against a bare node:http server (one
 * process, bare-server.ts) answering the same URLs with the same headers and bodies, in the same run:
 *   1. GET /api/v1/events?limit=50, closed loop at --connections: req/s, ratio to bare (bar ≥ 60 %),
 *      max latency (bar at 50 connections: ≤ 2× bare's max in the same run);
 *   2. a mix of --urls (≥ 600) distinct filtered and paged URLs over events, signals, regimes and
 *      candles, derived from the served data (url-mix.ts), each checked to answer 200 first: req/s,
 *      ratio to bare (bar ≥ 50 %), max latency (bar as in 1);
 *   3. (1) open loop at a constant half of its full-load rate: p99 (bar ≤ 2× bare's p99 at the same
 *      rate in the same run, or ≤ 10 ms, whichever is larger) and max;
 *   4. memory under load, sampled every second over runs 1–2 (not during the open loop: a reading walks
 *      the server's page tables and stalled its answers there): the server's node processes (the
 *      serve process and its node descendants, e.g. --workers) summed, RSS judged (bar ≤ 300 MB);
 *      PostgreSQL's processes apart, PSS summed (shared buffers split among the processes sharing
 *      them): for embedded, postgres processes under the server or working in its DATA_DIR; for postgres, the postmaster, its auxiliary processes and the backends connected to
 *      the bench database.
 * With --request-metrics, then (1) again on four fresh servers of the target, REQUEST_METRICS=off, on,
 * on, off: what counting and timing each request for /metrics costs (req/s off, on, and their ratio).
 * Ends with a table of bars (issue 35's; events-report.ts, BARS) and PASS/FAIL, the absolute bars of
 * before as information. Servers are stopped, temp dirs and bench users removed, on
 * success, failure and Ctrl-C. Exit status 1 when a target failed or a run was INVALID.
 *
 *   npm run bench:events -- [--targets embedded,postgres] [--duration 15] [--warmup 3]
 *       [--connections 50] [--urls 1000] [--plan developer] [--keys 2000] [--workers N] [--redis]
 *       [--database-url URL] [--log-level warn] [--seed 17] [--node-args="--trace-gc"] [--keep]
 *
 * Every measured run follows a warm-up of --warmup seconds under the same load (closed or open loop).
 * --urls below 600 leaves the mix bar unjudged; --seed seeds the mix. --workers N is passed to `serve`
 * only when given. --redis gives the servers REDIS_URL (default
 * redis://127.0.0.1:6379): the Redis limiter. --log-level sets the servers' LOG_LEVEL (default warn:
 * `info` logs every request). --node-args go to the app server's node (e.g. --trace-gc, --cpu-prof);
 * --keep keeps the scratch directory and says where it is: each server's serve.log, and for the app's
 * half-load run its GC pauses (gc.jsonl, gc-observer.mjs) and each answer's due time and latency
 * (half-answers.txt).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';
import { isPlan, PLAN_LIMITS, type Plan } from '../src/domain/plans.ts';
import { removeTemporaryDir } from '../src/store/db.ts';
import { startBare } from './bare-server.ts';
import { cliAdminKey, provisionKeys, removeBenchUsers } from './bench-keys.ts';
import { arg, benchDatabaseUrl, databaseExists, flag, fmtInt, numberArg } from './common.ts';
import { printReport, type Report, type Sample } from './events-report.ts';
import { closedLoop, openLoop, openWarmUp, type Shot } from './load.ts';
import { memoryOf, NO_MEMORY, type Proc, readProc } from './proc-mem.ts';
import {
  cleanupDepth,
  onCleanup,
  type RunningServer,
  runCleanups,
  startServer,
  wasInterrupted,
} from './server-process.ts';
import { buildMix, type Captured, type MixUrl, verify } from './url-mix.ts';

const DURATION = numberArg('duration', 15);
const WARMUP = numberArg('warmup', 3);
const CONNECTIONS = Math.max(1, Math.floor(numberArg('connections', 50)));
const URLS = Math.max(1, Math.floor(numberArg('urls', 1000)));
const SEED = Math.floor(numberArg('seed', 17));
const KEY_COUNT = Math.max(1, Math.floor(numberArg('keys', 2000)));
const PLAN = arg('plan') ?? 'developer';
const WORKERS = arg('workers');
const REDIS = flag('redis') ? process.env.REDIS_URL || 'redis://127.0.0.1:6379' : null;
const DATABASE_URL = arg('database-url') ?? benchDatabaseUrl();
const REQUEST_METRICS = flag('request-metrics');
const LOG_LEVEL = arg('log-level') ?? 'warn';
const NODE_ARGS = (arg('node-args') ?? '').split(/\s+/).filter(Boolean);
const KEEP = flag('keep');
const GC_OBSERVER = fileURLToPath(new URL('./gc-observer.mjs', import.meta.url));
const TARGETS = (arg('targets') ?? 'embedded,postgres')
  .split(',')
  .map((t) => (t.trim() === 'pglite' ? 'embedded' : t.trim()));
const EVENTS_PATH = '/api/v1/events?limit=50';

type Target = 'embedded' | 'postgres';

/** url without its password, for messages. */
function safe(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** Why the postgres target cannot run, or null when it can. */
async function postgresMissing(url: string): Promise<string | null> {
  try {
    if (!(await databaseExists(url)))
      return `${safe(url)} does not exist (run npm run bench:synthetic, or pass --database-url)`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const [row] = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts')).rows;
      return row?.n ? null : `${safe(url)} holds no contracts (run npm run bench:synthetic)`;
    } finally {
      await client.end();
    }
  } catch (error) {
    return `${safe(url)} unusable: ${(error as Error).message}`;
  }
}

/** The machine's PostgreSQL processes serving the bench database: backends on it, auxiliaries, postmaster. */
async function machinePostgres(url: string): Promise<{ pids(): Promise<number[]>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    pids: async () => {
      const { rows } = await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
          WHERE (datname = current_database() AND pid <> pg_backend_pid()) OR backend_type <> 'client backend'`,
      );
      // Only postgres processes of this machine: a remote server's pids name nothing here.
      const procs = rows.map((r) => readProc(r.pid)).filter((p): p is Proc => p?.comm === 'postgres');
      const postmaster = procs[0] && readProc(procs[0].ppid);
      return [...(postmaster?.comm === 'postgres' ? [postmaster] : []), ...procs].map((p) => p.pid);
    },
    close: () => client.end(),
  };
}

/** Samples memory every second until stopped; keeps the peaks. */
function sampleMemory(server: RunningServer, postgresPids: () => Promise<number[]>) {
  const peak: Sample = { node: NO_MEMORY, postgres: NO_MEMORY };
  const take = async () => {
    const [node, postgres] = await Promise.all([memoryOf(server.nodePids()), postgresPids().then(memoryOf)]);
    if (node.rss > peak.node.rss) peak.node = node;
    if (postgres.pss > peak.postgres.pss) peak.postgres = postgres;
  };
  const timer = setInterval(() => void take().catch(() => {}), 1000);
  let stopped: Promise<Sample> | null = null;
  return () => {
    clearInterval(timer);
    stopped ??= take().then(() => peak);
    return stopped;
  };
}

/** The shots of a run: `paths` in order, each with the next key of its tier's pool. */
function shots(urls: MixUrl[], keys: Record<MixUrl['tier'], string[]>, length: number): Shot[] {
  const used = { developer: 0, intelligence: 0 };
  return Array.from({ length }, (_, i) => {
    const url = urls[i % urls.length] as MixUrl;
    const pool = keys[url.tier];
    return { path: url.path, key: pool[used[url.tier]++ % pool.length] };
  });
}

async function benchTarget(target: Target, scratch: string): Promise<Report> {
  const log = (line: string) => process.stdout.write(`[${target}] ${line}\n`);
  const dir = await mkdtemp(path.join(scratch, `${target}-`));
  const env: Record<string, string> = { DATA_DIR: path.join(dir, 'data'), LOG_LEVEL };
  // With --keep the server records its GC pauses (gc-observer.mjs) beside the answers of the half-load run.
  const gcEnv: Record<string, string> = KEEP ? { GC_TRACE_FILE: path.join(dir, 'gc.jsonl') } : {};
  // Run as root, the embedded cluster lives outside DATA_DIR (under the state directory): removing the
  // scratch directory alone would leave it behind. Registered first, so it runs after the server stopped.
  if (!KEEP) onCleanup(async () => removeTemporaryDir(env.DATA_DIR as string));
  if (REDIS) env.REDIS_URL = REDIS;
  if (target === 'postgres') {
    env.DATABASE_URL = DATABASE_URL;
    env.SECRET_KEY = randomBytes(32).toString('base64url');
    const stale = await removeBenchUsers(DATABASE_URL, 'stale');
    if (stale) log(`removed ${stale} bench users left by earlier runs`);
    onCleanup(async () => {
      const n = await removeBenchUsers(DATABASE_URL, 'this run');
      log(`removed this run's ${n} bench users from ${new URL(DATABASE_URL).pathname.slice(1)}`);
    });
  }
  log('admin key through the CLI…');
  const adminKey = await cliAdminKey(env);
  const args = WORKERS ? ['--workers', WORKERS] : [];
  log(`starting ${['node', 'bin/market-intel.js', 'serve', ...args].join(' ')} (as npm start)…`);
  const server = await startServer({
    label: target,
    env: { ...env, ...gcEnv },
    args,
    nodeArgs: KEEP ? ['--import', GC_OBSERVER, ...NODE_ARGS] : NODE_ARGS,
    logFile: path.join(dir, 'serve.log'),
    dataDir: target === 'embedded' ? env.DATA_DIR : undefined,
  });
  log(`healthy on port ${server.port} after ${(server.readyMs / 1000).toFixed(2)} s`);
  const plan = PLAN as Plan;
  const keys = await provisionKeys(server.port, adminKey, plan, KEY_COUNT, 'k');
  const intelligence =
    PLAN_LIMITS[plan].tier === 'intelligence'
      ? keys
      : await provisionKeys(
          server.port,
          adminKey,
          'institutional',
          Math.max(10, Math.ceil(KEY_COUNT / 10)),
          'i',
        );
  const pools = { developer: keys, intelligence };
  const room = (n: number, p: Plan) => fmtInt((n * (PLAN_LIMITS[p].liveRpm ?? 0)) / 60);
  log(
    `${keys.length} ${plan} keys (per-key limits bind above ${room(keys.length, plan)} req/s), ` +
      (intelligence === keys
        ? 'the same for intelligence-tier URLs'
        : `${intelligence.length} institutional for intelligence-tier URLs (${room(intelligence.length, 'institutional')} req/s)`),
  );

  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: 4 });
  const single: MixUrl[] = [{ path: EVENTS_PATH, tier: 'developer' }];
  let singleAnswers: Map<string, Captured>;
  let mixAnswers: Map<string, Captured>;
  let mix: MixUrl[];
  try {
    singleAnswers = await verify(pool, shots(single, pools, 1) as Array<{ path: string; key: string }>);
    log(`deriving ${URLS} URLs from the data…`);
    mix = await buildMix(pool, intelligence[0] as string, URLS, SEED);
    mixAnswers = await verify(pool, shots(mix, pools, mix.length) as Array<{ path: string; key: string }>);
  } finally {
    await pool.close();
  }
  const count = (prefix: string) => mix.filter((u) => u.path.startsWith(prefix)).length;
  log(
    `${mix.length} URLs all answered 200 (events ${count('/api/v1/events')}, signals ${count('/api/v1/signals')}, ` +
      `regimes ${count('/api/v1/regimes')}, candles ${count('/api/v1/market/candles')})`,
  );

  const postgres = target === 'postgres' ? await machinePostgres(DATABASE_URL) : null;
  const stopSampling = sampleMemory(
    server,
    postgres ? postgres.pids : async () => server.embeddedPostgresPids(),
  );
  const loadOptions = { connections: CONNECTIONS, duration: DURATION };
  const singleShots = shots(single, pools, keys.length);
  const mixShots = shots(mix, pools, Math.max(mix.length, keys.length));
  const closed = async (label: string, port: number, list: Shot[]) => {
    if (WARMUP > 0) await closedLoop('warm-up', port, list, { ...loadOptions, duration: WARMUP });
    log(`${label}: ${CONNECTIONS} connections, ${DURATION} s`);
    return closedLoop(label, port, list, loadOptions);
  };
  let app: Pick<Report, 'single' | 'mix' | 'half' | 'memory'>;
  let rate = 1;
  try {
    const full = await closed('events?limit=50', server.port, singleShots);
    const mixed = await closed(`mix of ${mix.length} URLs`, server.port, mixShots);
    rate = Math.max(1, Math.round(full.rps / 2));
    // Memory is read over the full-load runs only: each reading walks the server's and PostgreSQL's
    // page tables (smaps_rollup), and once a second that stalled the server's answers for several ms
    // under the open loop — the tail measured there (docs/EVALUATION.md "Read-path tail"). The bare
    // server is never read, so its open loop ran without it. Memory peaks at full load anyway.
    const memory = await stopSampling();
    log(`events?limit=50 open loop at ${rate} req/s (half the full-load rate), ${DURATION} s`);
    await openWarmUp(server.port, singleShots, { connections: CONNECTIONS, seconds: WARMUP, rate });
    const trace: string[] = [];
    const half = await openLoop(`events?limit=50 @ ${rate} req/s`, server.port, singleShots, {
      ...loadOptions,
      rate,
      // With --keep, each answer's due time (ms since the epoch) and latency, for bench:tail's analysis.
      onAnswer: KEEP
        ? (due, ms) => trace.push(`${(performance.timeOrigin + due).toFixed(3)} ${ms.toFixed(3)}`)
        : undefined,
    });
    if (KEEP) await writeFile(path.join(dir, 'half-answers.txt'), `${trace.join('\n')}\n`);
    app = { single: full, mix: mixed, half, memory };
  } finally {
    await stopSampling();
    await postgres?.close();
    await server.stop();
  }
  if (REQUEST_METRICS) {
    // Off, on, on, off, each on a fresh server: a server warms up (JIT, caches, PostgreSQL's buffers)
    // as the runs go on, and this order gives each setting the same share of early and late runs.
    const sum = { off: 0, on: 0 };
    const runs: string[] = [];
    for (const [i, setting] of (['off', 'on', 'on', 'off'] as const).entries()) {
      const again = await startServer({
        label: `${target}-metrics-${setting}`,
        env: { ...env, REQUEST_METRICS: setting },
        args,
        logFile: path.join(dir, `serve-metrics-${i}-${setting}.log`),
        dataDir: target === 'embedded' ? env.DATA_DIR : undefined,
      });
      try {
        const run = await closed(`events?limit=50, REQUEST_METRICS=${setting}`, again.port, singleShots);
        sum[setting] += run.rps;
        runs.push(`${setting} ${fmtInt(run.rps)}`);
      } finally {
        await again.stop();
      }
    }
    log(
      `request metrics, req/s per run: ${runs.join(', ')}; on/off ${((100 * sum.on) / sum.off).toFixed(1)} %`,
    );
  }
  const bare = async (label: string, answers: Map<string, Captured>, list: Shot[], openRate?: number) => {
    const server = await startBare(answers, path.join(dir, 'bare.json'));
    const keyless = list.map((s) => ({ path: s.path }));
    try {
      if (openRate === undefined) return await closed(label, server.port, keyless);
      log(`${label}: open loop, ${DURATION} s`);
      await openWarmUp(server.port, keyless, { connections: CONNECTIONS, seconds: WARMUP, rate: openRate });
      return await openLoop(label, server.port, keyless, { ...loadOptions, rate: openRate });
    } finally {
      await server.stop();
    }
  };
  return {
    target,
    readyMs: server.readyMs,
    urls: mix.length,
    ...app,
    bareSingle: await bare('bare: events?limit=50', singleAnswers, singleShots),
    bareMix: await bare(`bare: mix of ${mix.length} URLs`, mixAnswers, mixShots),
    // The same open loop against the bare server: what the machine and the load generator add.
    bareHalf: await bare(`bare: events?limit=50 @ ${rate} req/s`, singleAnswers, singleShots, rate),
    postgresNote:
      target === 'postgres'
        ? 'postmaster, auxiliary processes and the backends on the bench database'
        : 'postgres processes under the server or in its DATA_DIR',
  };
}

async function main(): Promise<void> {
  if (!isPlan(PLAN)) throw new Error(`--plan: unknown plan ${PLAN}`);
  if (PLAN_LIMITS[PLAN].maxLiveKeys === 0) throw new Error(`--plan: the ${PLAN} plan has no live keys`);
  const startLoad = loadavg()[0] ?? 0;
  const scratch = await mkdtemp(path.join(tmpdir(), 'market-intel-bench-'));
  if (KEEP) console.log(`scratch directory kept: ${scratch}`);
  else onCleanup(() => rm(scratch, { recursive: true, force: true }));
  const depth = cleanupDepth();
  const reports: Report[] = [];
  const notes: string[] = [];
  try {
    for (const target of TARGETS) {
      if (target !== 'embedded' && target !== 'postgres')
        throw new Error(`--targets: unknown target ${target}`);
      const missing = target === 'postgres' ? await postgresMissing(DATABASE_URL) : null;
      if (missing) {
        notes.push(`postgres target skipped: ${missing}`);
        console.log(`[postgres] SKIPPED: ${missing}`);
        continue;
      }
      try {
        reports.push(await benchTarget(target, scratch));
      } catch (error) {
        if (wasInterrupted()) return;
        notes.push(`${target} target FAILED: ${(error as Error).message}`);
        console.error(`[${target}] FAILED: ${(error as Error).stack ?? error}`);
        process.exitCode = 1;
      }
      await runCleanups(depth);
    }
  } finally {
    await runCleanups();
  }
  if (wasInterrupted()) return;
  const ok = printReport(reports, notes, {
    startLoad,
    connections: CONNECTIONS,
    duration: DURATION,
    keys: `${KEY_COUNT} ${PLAN} keys${REDIS ? ', Redis limiter' : ''}${WORKERS ? `, --workers ${WORKERS}` : ''}`,
  });
  if (!ok) process.exitCode = 1;
}

await main();
