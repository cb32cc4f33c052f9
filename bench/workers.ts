/**
 * `serve --workers 1` against `serve --workers N`: GET /api/v1/events?limit=50 with auth, limits and
 * usage on, keys rotating over --keys developer live keys (so no key nears its 600 a minute), each
 * server spawned as an operator starts it (`bin/market-intel.js serve`, LOG_LEVEL=warn) on a
 * PostgreSQL database holding data (DATABASE_URL: the demo seed or bench/synthetic.ts's set). A bare
 * node:http process returning the same bytes is measured in the same run, for the app/bare ratio.
 * Runs alternate (bare, 1, N, bare, 1, N …) so drift on a shared machine touches every target.
 *
 *   DATABASE_URL=postgres://… npm run bench:workers -- [--workers 2] [--duration 10]
 *                 [--connections 50] [--keys 1000] [--repeat 1] [--redis]
 *
 * --redis puts the limits in Redis (REDIS_URL, default redis://127.0.0.1:6379) instead of the
 * primary's IPC limiter.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { generateKey } from '../src/domain/keys.ts';
import { PLAN_LIMITS } from '../src/domain/plans.ts';
import { createUser, insertKey } from '../src/store/accounts.ts';
import { type Db, openDb } from '../src/store/db.ts';
import { arg, benchDatabaseUrl, flag, fmtInt, fmtMs, numberArg, summary, table } from './common.ts';
import { freePort, sleep } from './server-process.ts';

const SELF = fileURLToPath(import.meta.url);
const BIN = fileURLToPath(new URL('../bin/market-intel.js', import.meta.url));
const WORKERS = Math.max(2, Math.floor(numberArg('workers', 2)));
const DURATION = numberArg('duration', 10);
const CONNECTIONS = numberArg('connections', 50);
const KEY_COUNT = Math.max(1, Math.floor(numberArg('keys', 1000)));
const REPEAT = Math.max(1, Math.floor(numberArg('repeat', 1)));
const REDIS = flag('redis') ? process.env.REDIS_URL || 'redis://127.0.0.1:6379' : null;
const EVENTS_PATH = '/api/v1/events?limit=50';
const BENCH_EMAIL = 'bench-workers-%@bench.invalid';

// ---------------------------------------------------------------- bare node:http (child process)

async function bare(bodyFile: string): Promise<void> {
  const body = await readFile(bodyFile);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(Number(arg('port')), '127.0.0.1', resolve));
  process.send?.('ready');
}

// ---------------------------------------------------------------- load side (this process)

async function provisionKeys(db: Db): Promise<string[]> {
  const perUser = PLAN_LIMITS.developer.maxLiveKeys;
  const raws: string[] = [];
  for (let u = 0; raws.length < KEY_COUNT; u++) {
    const user = await createUser(db, {
      email: BENCH_EMAIL.replace('%', `${process.pid}-${u}`),
      plan: 'developer',
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

async function removeBenchUsers(db: Db): Promise<void> {
  const owned = `(SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email LIKE $1)`;
  await db.query(`DELETE FROM usage_minutely WHERE key_id IN ${owned}`, [BENCH_EMAIL]);
  await db.query('DELETE FROM users WHERE email LIKE $1', [BENCH_EMAIL]);
}

/** CPU seconds (user + system) used so far by `pid` and its descendants, from /proc (Linux). */
async function treeCpu(pid: number): Promise<{ total: number; own: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / 100;
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  let total = own;
  for (const child of children.split(' ').filter(Boolean)) total += (await treeCpu(Number(child))).total;
  return { total, own };
}

interface Target {
  label: string;
  proc: ChildProcess;
  port: number;
}

async function startServe(workers: number, databaseUrl: string): Promise<Target> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [
      '--max-semi-space-size=64',
      BIN,
      'serve',
      '--no-seed',
      '--workers',
      String(workers),
      '--port',
      String(port),
    ],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        SECRET_KEY: process.env.SECRET_KEY || 'bench-workers-secret',
        REDIS_URL: REDIS ?? '',
        LOG_LEVEL: 'warn',
        HTTP_WORKERS: '',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`serve --workers ${workers} exited with ${proc.exitCode}`);
    const answered = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`).then(
      (r) => r.arrayBuffer().then(() => true),
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline) throw new Error(`serve --workers ${workers} did not start`);
    await sleep(200);
  }
  // The first worker answers before the others listen: give them time, the warm-up does the rest.
  await sleep(workers > 1 ? 3000 : 0);
  return { label: `serve --workers ${workers}${REDIS ? ' (Redis limits)' : ''}`, proc, port };
}

async function startBare(bodyFile: string): Promise<Target> {
  const port = await freePort();
  const proc = fork(SELF, ['--bare', bodyFile, '--port', String(port)], { execArgv: ['--import', 'tsx'] });
  await new Promise<void>((resolve, reject) => {
    proc.once('message', () => resolve());
    proc.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { label: 'bare node:http, same bytes', proc, port };
}

async function stop(target: Target): Promise<void> {
  if (target.proc.exitCode !== null) return;
  const exited = new Promise((resolve) => target.proc.once('exit', resolve));
  target.proc.kill('SIGTERM');
  await exited;
}

interface Measured {
  label: string;
  rps: number;
  /** Server CPU (every process of it) per request, ms; and the primary's share of it. */
  cpuMs: number;
  primaryShare: number;
  p50: number;
  p99: number;
  non2xx: string;
  errors: number;
}

async function load(target: Target, keys: string[], duration: number): Promise<Measured> {
  const requests = keys.map((key) => ({ method: 'GET', path: EVENTS_PATH, headers: { 'x-api-key': key } }));
  const pid = target.proc.pid ?? 0;
  const cpuBefore = await treeCpu(pid);
  const result: Result = await autocannon({
    url: `http://127.0.0.1:${target.port}`,
    connections: CONNECTIONS,
    duration,
    requests,
    timeout: 10,
  });
  const non2xx = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => `${code}×${count}`)
    .join(' ');
  const cpuAfter = await treeCpu(pid);
  const responses = result['2xx'] + result.non2xx;
  const cpu = cpuAfter.total - cpuBefore.total;
  return {
    label: target.label,
    rps: responses / result.duration,
    cpuMs: (1000 * cpu) / responses,
    primaryShare: target.label.includes(`--workers ${WORKERS}`)
      ? (cpuAfter.own - cpuBefore.own) / cpu
      : Number.NaN,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function main(): Promise<void> {
  const databaseUrl = benchDatabaseUrl();
  const db = await openDb({ databaseUrl, dataDir: '' });
  const scratch = await mkdtemp(path.join(tmpdir(), 'market-intel-bench-workers-'));
  const startLoad = loadavg()[0] ?? 0;
  const runs: Measured[] = [];
  let note = '';
  try {
    await removeBenchUsers(db);
    const keys = await provisionKeys(db);
    const [counts] = await db.query<{ contracts: number }>(
      'SELECT count(*)::int AS contracts FROM contracts',
    );
    note = `${fmtInt(counts?.contracts ?? 0)} contracts; ${keys.length} developer keys`;

    // The bytes the bare server returns: one real answer of the app.
    const probe = await startServe(1, databaseUrl);
    const response = await fetch(`http://127.0.0.1:${probe.port}${EVENTS_PATH}`, {
      headers: { 'x-api-key': keys[0] ?? '' },
    });
    const body = Buffer.from(await response.arrayBuffer());
    await stop(probe);
    if (response.status !== 200) throw new Error(`GET ${EVENTS_PATH} answered ${response.status}: ${body}`);
    const bodyFile = path.join(scratch, 'events.json');
    await writeFile(bodyFile, body);
    note += `; response ${fmtInt(body.length)} bytes`;

    for (let round = 0; round < REPEAT; round++) {
      for (const start of [
        () => startBare(bodyFile),
        () => startServe(1, databaseUrl),
        () => startServe(WORKERS, databaseUrl),
      ]) {
        const target = await start();
        try {
          process.stdout.write(`${target.label}: warm-up 3 s, then ${DURATION} s\n`);
          await load(target, keys, 3);
          runs.push(await load(target, keys, DURATION));
        } finally {
          await stop(target);
        }
      }
    }
  } finally {
    await removeBenchUsers(db).catch(() => {});
    await db.close();
    await rm(scratch, { recursive: true, force: true });
  }

  const rows: string[][] = [];
  for (let i = 0; i < runs.length; i += 3) {
    const bareRun = runs[i];
    for (const m of runs.slice(i, i + 3)) {
      rows.push([
        m.label,
        fmtInt(m.rps),
        bareRun ? `${((100 * m.rps) / bareRun.rps).toFixed(1)} %` : '',
        fmtMs(m.p50),
        fmtMs(m.p99),
        `${m.cpuMs.toFixed(3)} ms`,
        Number.isNaN(m.primaryShare) ? '' : `${(100 * m.primaryShare).toFixed(1)} %`,
        m.non2xx || '—',
        String(m.errors),
      ]);
    }
  }
  console.log(
    summary(`GET ${EVENTS_PATH}: serve --workers 1 vs ${WORKERS}`, [
      `load average (1 min) at start ${startLoad.toFixed(2)}, at end ${loadavg()[0]?.toFixed(2)}; ${note}`,
      `autocannon in this process, ${CONNECTIONS} connections, ${DURATION} s per run after 3 s warm-up; same machine`,
      '',
      'server CPU: user + system of every server process over the run, per response; primary: its share',
      '',
      table(['target', 'req/s', 'of bare', 'p50', 'p99', 'server CPU', 'primary', 'non-2xx', 'errors'], rows),
    ]),
  );
}

const bareFile = arg('bare');
if (bareFile) await bare(bareFile);
else await main();
