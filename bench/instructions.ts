/**
 * Instructions per answer, counted: the CPU figure that does not move with the machine's load. Starts
 * `serve` as bench:tail does (embedded, a fresh DATA_DIR, LOG_LEVEL=warn; here without the webhook
 * worker, whose poll every 250 ms would be counted over valgrind's long window), provisions developer keys,
 * then starts it again under valgrind's callgrind with counting off, warms it up, and counts the
 * instructions the server's process executes while it answers exactly --requests requests (one URL,
 * keys rotating, --connections at a time); with --bare the bare node:http server of bench:events is
 * counted the same way on the captured answer. Slow (valgrind runs node some 50× slower): keep the counts
 * small. What runs while counting besides the answers is counted too — the usage flush, the notification
 * heartbeat, key cache entries expiring and read again (45–60 s), all stretched over valgrind's window;
 * --idle counts the server doing nothing for as long as the run took, to subtract. The main thread's
 * count (the event loop: what an answer costs) is given whole and without what V8's optimizing compiler
 * took of it (below), and apart from all threads' (with the GC's helpers).
 *
 *   npm run bench:instructions -- [--path /api/v1/events?limit=50] [--requests 2000] [--warmup 20000]
 *       [--keys 100] [--connections 8] [--bare] [--idle] [--keep] [--node-args="--perf-basic-prof"]
 *
 * --keep keeps the scratch directory with callgrind's files (read them with callgrind_annotate; with
 * --node-args=--perf-basic-prof, /tmp/perf-<pid>.map names the JIT-compiled functions' addresses).
 * --node-args go to the server's node (both servers') before its script's.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import { removeTemporaryDir } from '../src/store/db.ts';
import { startBare } from './bare-server.ts';
import { cliAdminKey, provisionKeys } from './bench-keys.ts';
import { arg, flag, fmtInt, numberArg, summary } from './common.ts';
import type { Shot } from './load.ts';
import { onCleanup, runCleanups, sleep, startServer } from './server-process.ts';
import { fetchRaw } from './url-mix.ts';

const PATH = arg('path') ?? '/api/v1/events?limit=50';
const REQUESTS = numberArg('requests', 2000);
const WARMUP = numberArg('warmup', 20000);
const KEYS = numberArg('keys', 100);
const CONNECTIONS = numberArg('connections', 8);
const BARE = flag('bare');
const IDLE = flag('idle');
const KEEP = flag('keep');
/**
 * V8 optimizes on the main thread, at once: under valgrind its compiler threads run so slowly that
 * functions ran unoptimized for minutes after the warm-up (V8's inline-cache builtins were a third of the
 * count), which a native server, optimized within a second, never does. The warm-up is long for the
 * same reason: after 6,000 answers V8 was still optimizing (40 % of the count); natively, after 15,000
 * answers it optimizes next to nothing more.
 */
const V8_ARGS = ['--no-concurrent-recompilation'];
const NODE_ARGS = [...V8_ARGS, ...(arg('node-args') ?? '').split(/\s+/).filter(Boolean)];

const run = promisify(execFile);
const SERVE_ARGS = ['--no-worker'];

// valgrind names the pipes callgrind_control talks through after $HOST, which bench servers are given
// (127.0.0.1, their listening address): the bare server and callgrind_control must see the same.
process.env.HOST = '127.0.0.1';

/** valgrind's callgrind with counting off until callgrind_control turns it on. */
const callgrind = (outFile: string) => [
  'valgrind',
  '--tool=callgrind',
  '--instr-atstart=no',
  '--separate-threads=yes',
  '--fair-sched=yes',
  `--callgrind-out-file=${outFile}`,
];

/** Sends `count` requests, `connections` at a time, each answer read whole; throws on a non-200. */
async function send(port: number, shots: Shot[], count: number, connections: number): Promise<void> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const shot = shots[i % shots.length] as Shot;
      const res = await pool.request({
        method: 'GET',
        path: shot.path,
        headers: shot.key ? { 'x-api-key': shot.key } : {},
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`GET ${shot.path} answered ${res.statusCode}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    await pool.close();
  }
}

/**
 * Instructions counted: by the main thread (the event loop), the part of it spent in V8's optimizing
 * compiler, and by all threads (with the GC's helpers).
 */
interface Instructions {
  main: number;
  compiling: number;
  all: number;
}

/**
 * The main thread's instructions inside `Runtime_CompileOptimized` (inclusive): a few functions were
 * still optimized after the warm-up, 7 M instructions each, which over valgrind's window of 1,000
 * answers was a quarter of the count; natively the same compiles are spread over a second's answers.
 */
async function compilingInstructions(dump: string): Promise<number> {
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], {
    maxBuffer: 256 * 1024 * 1024,
  });
  const line = /^\s*([\d,]+) .*Runtime_CompileOptimized\(/m.exec(stdout);
  return line ? Number((line[1] as string).replaceAll(',', '')) : 0;
}

const totalsOf = (text: string): number | null => {
  const totals = /^totals: (\d+)/m.exec(text);
  return totals ? Number(totals[1]) : null;
};

/**
 * Instructions counted since counting was turned on: asks for a dump of the process's counts and waits
 * for callgrind to write it — one file per thread, `<out>.1-01` the main thread's (callgrind_control
 * returns before they are written).
 */
async function dumpedInstructions(pid: number, outFile: string): Promise<Instructions> {
  await run('callgrind_control', ['--dump', String(pid)]);
  const dir = path.dirname(outFile);
  const prefix = `${path.basename(outFile)}.1-`;
  for (let waited = 0; waited < 120_000; waited += 250) {
    await sleep(250);
    const main = totalsOf(await readFile(`${outFile}.1-01`, 'utf8').catch(() => ''));
    if (main === null) continue;
    await sleep(1000);
    const files = (await readdir(dir)).filter((name) => name.startsWith(prefix));
    const texts = await Promise.all(files.map((name) => readFile(path.join(dir, name), 'utf8')));
    const compiling = await compilingInstructions(`${outFile}.1-01`);
    return { main, compiling, all: texts.reduce((sum, text) => sum + (totalsOf(text) ?? 0), 0) };
  }
  throw new Error(`callgrind wrote no dump to ${outFile}.1-01 within 2 minutes`);
}

interface Counted {
  label: string;
  requests: number;
  instructions: Instructions;
  seconds: number;
}

/** Warms a process under callgrind up, then counts what it executes over `requests` answers (or idle). */
async function count(
  label: string,
  pid: number,
  outFile: string,
  load: (n: number) => Promise<void>,
  requests: number,
  idleMs?: number,
): Promise<Counted> {
  await load(WARMUP);
  await run('callgrind_control', ['--instr=on', String(pid)]);
  const started = performance.now();
  if (idleMs === undefined) await load(requests);
  else await sleep(idleMs);
  const seconds = (performance.now() - started) / 1000;
  const instructions = await dumpedInstructions(pid, outFile);
  return { label, requests, instructions, seconds };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mi-instructions-'));
  const env: Record<string, string> = { DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'warn' };
  if (!KEEP)
    onCleanup(async () => {
      removeTemporaryDir(env.DATA_DIR as string);
      await rm(dir, { recursive: true, force: true });
    });
  const load0 = loadavg()[0] ?? 0;
  const adminKey = await cliAdminKey(env);
  const plain = await startServer({
    label: 'keys',
    env,
    logFile: path.join(dir, 'keys.log'),
    dataDir: env.DATA_DIR,
  });
  const keys = await provisionKeys(plain.port, adminKey, 'developer', KEYS, 'instructions');
  const probe = new Pool(`http://127.0.0.1:${plain.port}`, { connections: 1 });
  const captured = await fetchRaw(probe, PATH, keys[0]).finally(() => probe.close());
  await plain.stop();
  if (captured.status !== 200) throw new Error(`GET ${PATH} answered ${captured.status}`);

  const results: Counted[] = [];
  const appOut = path.join(dir, 'callgrind.app');
  const app = await startServer({
    label: 'callgrind',
    env,
    args: SERVE_ARGS,
    wrapper: callgrind(appOut),
    nodeArgs: NODE_ARGS,
    logFile: path.join(dir, 'serve.log'),
    dataDir: env.DATA_DIR,
  });
  const shots = keys.map((key) => ({ path: PATH, key }));
  const appLoad = (n: number) => send(app.port, shots, n, CONNECTIONS);
  const counted = await count('app', app.pid, appOut, appLoad, REQUESTS);
  results.push(counted);
  if (IDLE) {
    const idleOut = `${appOut}.idle`;
    await app.stop();
    const idle = await startServer({
      label: 'callgrind idle',
      env,
      args: SERVE_ARGS,
      wrapper: callgrind(idleOut),
      nodeArgs: NODE_ARGS,
      logFile: path.join(dir, 'idle.log'),
      dataDir: env.DATA_DIR,
    });
    const idleLoad = (n: number) => send(idle.port, shots, n, CONNECTIONS);
    results.push(await count('app, idle', idle.pid, idleOut, idleLoad, 0, counted.seconds * 1000));
    await idle.stop();
  } else await app.stop();

  if (BARE) {
    const bareOut = path.join(dir, 'callgrind.bare');
    const bare = await startBare(
      new Map([[PATH, captured]]),
      path.join(dir, 'bare.json'),
      NODE_ARGS,
      callgrind(bareOut),
    );
    const bareLoad = (n: number) => send(bare.port, [{ path: PATH }], n, CONNECTIONS);
    results.push(await count('bare', bare.pid, bareOut, bareLoad, REQUESTS));
    await bare.stop();
  }

  const perAnswer = (n: number, r: Counted) => (r.requests ? ` = ${fmtInt(n / r.requests)} per answer` : '');
  const lines = results.map(
    (r) =>
      `${r.label}: ${r.requests ? `${fmtInt(r.requests)} answers` : 'idle as long'} in ${r.seconds.toFixed(1)} s: ` +
      `main thread ${fmtInt(r.instructions.main)} instructions${perAnswer(r.instructions.main, r)}, ` +
      `without optimizing compiles ${fmtInt(r.instructions.main - r.instructions.compiling)}` +
      `${perAnswer(r.instructions.main - r.instructions.compiling, r)}; ` +
      `all threads ${fmtInt(r.instructions.all)}${perAnswer(r.instructions.all, r)}`,
  );
  const load1 = loadavg()[0] ?? 0;
  lines.push(
    `${PATH}, ${KEYS} keys, ${CONNECTIONS} at a time, after ${fmtInt(WARMUP)} warm-up answers; node args: ${NODE_ARGS.join(' ') || '(none)'}; load ${load0.toFixed(2)} → ${load1.toFixed(2)}`,
  );
  if (KEEP) lines.push(`callgrind's files: ${dir}`);
  console.log(summary('instructions per answer (callgrind)', lines));
}

try {
  await main();
} finally {
  await runCleanups();
}
