/**
 * Where the read path's tail comes from: starts `serve` as bench:events does (embedded, or --target
 * postgres on the bench database) with every garbage collection of the server recorded (gc-observer.mjs,
 * wall-clock aligned), finds the closed-loop rate of one URL, then runs bench:events' open loop at half
 * of it (after 3 s of it as a warm-up, as bench:events) and lines the slow answers up with the server's GC pauses:
 *   - GC in the open-loop window: count, total and largest pause by kind, share of the window;
 *   - the answers slower than --slow ms (default: the run's p99): how many were in flight during a pause
 *     (a pause that started between their due time and their answer);
 *   - the worst 100 ms windows: slow answers and GC pauses in each, so that a periodic cause (a timer,
 *     a flush) shows as a period.
 *
 *   npm run bench:tail -- [--target embedded|postgres] [--duration 10] [--rate N] [--connections 50]
 *       [--path /api/v1/events?limit=50] [--keys 2000] [--node-args="--max-semi-space-size=32"]
 *       [--cpu-prof] [--cpu-window] [--slow MS] [--keep] [--alloc[=survivors]]
 *
 * Then the bare server (bench:events' baseline, the same bytes) under the same closed loop and the same
 * open loop, and a table of what each run cost per answer: the server's CPU (its node processes, from
 * /proc), PostgreSQL's, the generator's (this process), and how late the generator sent requests after
 * their due time (its timer firing late counts as the server's latency). --cpu-window profiles the
 * server's closed loop and its open loop apart (cpu-sampler.mjs) and lists the functions whose cost per
 * answer grew most in the open loop.
 *
 * --node-args are passed to the server's node before the start script's (try V8 heap flags); --cpu-prof
 * profiles the server over the whole run and prints where its profile went; --keep keeps the scratch
 * directory; --alloc samples every allocation the server makes during the open loop (alloc-sampler.mjs)
 * and prints the bytes per answer by allocating function (=survivors: only what outlived the young
 * generation, or is live at the end). The directory holds the server's log (with --node-args=--trace-gc V8's own GC lines), answers.txt (each answer's
 * due time, ms since the epoch, and latency), closed-answers.txt (the closed loop's answers: send time
 * and latency) and pauses.jsonl (the pauses above).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { removeTemporaryDir } from '../src/store/db.ts';
import { startBare } from './bare-server.ts';
import { cliAdminKey, provisionKeys, removeBenchUsers } from './bench-keys.ts';
import { arg, benchDatabaseUrl, flag, fmtInt, fmtMs, numberArg, summary, table } from './common.ts';
import { closedLoop, type Measured, openLoop, openWarmUp } from './load.ts';
import { cpuMs, procsNamed } from './proc-mem.ts';
import { onCleanup, runCleanups, sleep, startServer } from './server-process.ts';
import { fetchRaw } from './url-mix.ts';

const TARGET = arg('target') ?? 'embedded';
const DURATION = numberArg('duration', 10);
const CONNECTIONS = numberArg('connections', 50);
const PATH = arg('path') ?? '/api/v1/events?limit=50';
const KEYS = numberArg('keys', 2000);
const RATE = arg('rate');
const NODE_ARGS = (arg('node-args') ?? '').split(/\s+/).filter(Boolean);
const CPU_PROF = flag('cpu-prof');
const SLOW = arg('slow');
const KEEP = flag('keep');
const ALLOC = arg('alloc');
const CPU_WINDOW = flag('cpu-window');
const OBSERVER = fileURLToPath(new URL('./gc-observer.mjs', import.meta.url));
const SAMPLER = fileURLToPath(new URL('./alloc-sampler.mjs', import.meta.url));
const CPU_SAMPLER = fileURLToPath(new URL('./cpu-sampler.mjs', import.meta.url));

interface Gc {
  at: number;
  ms: number;
  kind: string;
}

interface Answer {
  /** Due time, ms since the epoch. */
  at: number;
  ms: number;
}

const GC_KINDS: Record<number, string> = {
  1: 'scavenge',
  2: 'mark-compact',
  4: 'incremental',
  8: 'weak-callbacks',
};
const gcKind = (detail: unknown) => GC_KINDS[(detail as { kind?: number } | undefined)?.kind ?? 0] ?? 'gc';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

function gcTable(gcs: Gc[], windowMs: number): string[][] {
  const kinds = [...new Set(gcs.map((g) => g.kind))];
  return kinds.map((kind) => {
    const pauses = gcs
      .filter((g) => g.kind === kind)
      .map((g) => g.ms)
      .sort((a, b) => a - b);
    const total = pauses.reduce((a, b) => a + b, 0);
    return [
      kind,
      fmtInt(pauses.length),
      `${(pauses.length / (windowMs / 1000)).toFixed(1)}/s`,
      fmtMs(percentile(pauses, 50)),
      fmtMs(percentile(pauses, 99)),
      fmtMs(pauses.at(-1) ?? 0),
      fmtMs(total),
      `${((100 * total) / windowMs).toFixed(1)} %`,
    ];
  });
}

/** The slow answers during which a pause began (due ≤ GC start ≤ answer). */
function inGc(slow: Answer[], gcs: Gc[]): number {
  const starts = gcs.map((g) => g.at).sort((a, b) => a - b);
  return slow.filter((a) => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((starts[mid] as number) < a.at) lo = mid + 1;
      else hi = mid;
    }
    return lo < starts.length && (starts[lo] as number) <= a.at + a.ms;
  }).length;
}

function worstWindows(slow: Answer[], gcs: Gc[], start: number): string[][] {
  const windows = new Map<number, number>();
  for (const a of slow) {
    const w = Math.floor((a.at - start) / 100);
    windows.set(w, (windows.get(w) ?? 0) + 1);
  }
  return [...windows]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .sort((a, b) => a[0] - b[0])
    .map(([w, n]) => {
      const from = start + w * 100 - 50;
      const pauses = gcs.filter((g) => g.at >= from && g.at < from + 150);
      return [
        `${(w / 10).toFixed(1)} s`,
        String(n),
        pauses
          .filter((g) => g.ms >= 1)
          .map((g) => `${g.kind} ${g.ms.toFixed(1)}`)
          .join(', ') || '-',
      ];
    });
}

interface AllocNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocNode[];
}

/** Bytes allocated per answer, by allocating function (self), from a sampling heap profile. */
function allocationLines(text: string, answers: number): string[] {
  if (!text) return ['no allocation profile was written'];
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocNode) => {
    const f = node.callFrame;
    const file = f.url.includes('node_modules/') ? f.url.split('node_modules/').pop() : path.basename(f.url);
    const site = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk((JSON.parse(text) as { head: AllocNode }).head);
  const perAnswer = (bytes: number) => `${fmtInt(bytes / Math.max(1, answers))} B`;
  return [
    '',
    `server allocations during the open loop${ALLOC === 'survivors' ? ' that outlived the young generation' : ''}: ` +
      `${perAnswer(total)} per answer (${fmtInt(answers)} answers)`,
    table(
      ['allocating function', 'per answer'],
      [...bySite]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 30)
        .map(([site, bytes]) => [site, perAnswer(bytes)]),
    ),
  ];
}

/** CPU used by the server's processes, this process (the generator) and PostgreSQL's, ms so far. */
interface Cpu {
  server: number;
  postgres: number;
  generator: number;
}

/**
 * What one load run cost each side, per answer: the server's CPU (node), PostgreSQL's and the
 * generator's, in µs. Closed and open loops at the same answers differ in how many requests each
 * event-loop turn of the server carries (≈ the connections in a closed loop, ≈ 1 in an open loop at
 * half load), so a cost paid per turn rather than per request shows as a higher figure in the open loop.
 */
function cpuLine(label: string, run: Measured, before: Cpu, after: Cpu): string[] {
  const per = (ms: number) => `${((1000 * ms) / Math.max(1, run.requests)).toFixed(1)} µs`;
  const late = run.sendLate
    ? `; generator sent late by p99 ${fmtMs(run.sendLate.p99)}, max ${fmtMs(run.sendLate.max)}`
    : '';
  return [
    label,
    fmtInt(run.rps),
    `${fmtMs(run.p50)} / ${fmtMs(run.p90)} / ${fmtMs(run.p99)} / ${fmtMs(run.max)}`,
    per(after.server - before.server),
    per(after.postgres - before.postgres),
    per(after.generator - before.generator) + late,
  ];
}

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Self time by function (name file:line), ms, of a V8 CPU profile. */
function selfTimes(text: string): Map<string, number> {
  const profile = JSON.parse(text) as { nodes: CpuNode[]; samples: number[]; timeDeltas: number[] };
  const site = new Map<number, string>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const file = f.url.includes('node_modules/')
      ? f.url.split('node_modules/').pop()
      : f.url
        ? path.basename(f.url)
        : '';
    site.set(node.id, `${f.functionName || '(anonymous)'}${file ? ` ${file}:${f.lineNumber + 1}` : ''}`);
  }
  const times = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const name = site.get(id) ?? '?';
    times.set(name, (times.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return times;
}

/**
 * The server's CPU per answer by function, closed loop against open loop (profiles of each window
 * alone, cpu-sampler.mjs): the functions whose cost per answer grew most in the open loop first.
 */
function cpuWindowLines(closed: string, open: string, closedAnswers: number, openAnswers: number): string[] {
  if (!closed || !open) return ['', 'no CPU profile of the windows was written'];
  const a = selfTimes(closed);
  const b = selfTimes(open);
  const us = (ms: number, n: number) => (1000 * ms) / Math.max(1, n);
  const busy = (m: Map<string, number>, n: number) =>
    us(
      [...m].filter(([k]) => k !== '(idle)').reduce((t, [, ms]) => t + ms, 0),
      n,
    );
  const rows = [...new Set([...a.keys(), ...b.keys()])]
    .filter((k) => k !== '(idle)')
    .map((k) => {
      const closedUs = us(a.get(k) ?? 0, closedAnswers);
      const openUs = us(b.get(k) ?? 0, openAnswers);
      return { k, closedUs, openUs };
    })
    .sort((x, y) => y.openUs - y.closedUs - (x.openUs - x.closedUs))
    .slice(0, 30);
  return [
    '',
    `server CPU per answer in the profiles (idle left out): closed loop ${busy(a, closedAnswers).toFixed(1)} µs, ` +
      `open loop ${busy(b, openAnswers).toFixed(1)} µs; the functions (self time) that grew most:`,
    table(
      ['function', 'closed µs/answer', 'open µs/answer', 'growth'],
      rows.map((r) => [r.k, r.closedUs.toFixed(2), r.openUs.toFixed(2), (r.openUs - r.closedUs).toFixed(2)]),
    ),
  ];
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mi-tail-'));
  const gcFile = path.join(dir, 'gc.jsonl');
  const allocFile = path.join(dir, 'alloc.heapprofile');
  const env: Record<string, string> = { DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'warn' };
  // DATA_DIR with its cluster, which lives outside it when run as root; after the server stopped.
  if (!KEEP)
    onCleanup(async () => {
      removeTemporaryDir(env.DATA_DIR as string);
      await rm(dir, { recursive: true, force: true });
    });
  if (TARGET === 'postgres') {
    env.DATABASE_URL = benchDatabaseUrl();
    env.SECRET_KEY = randomBytes(32).toString('base64url');
    onCleanup(async () => {
      await removeBenchUsers(env.DATABASE_URL as string, 'this run');
    });
  } else if (TARGET !== 'embedded') throw new Error(`--target: unknown target ${TARGET}`);
  const adminKey = await cliAdminKey(env);
  const profiles = path.join(tmpdir(), `mi-tail-prof-${Date.now()}`);
  const server = await startServer({
    label: `tail-${TARGET}`,
    env: {
      ...env,
      GC_TRACE_FILE: gcFile,
      ALLOC_PROFILE_FILE: allocFile,
      ALLOC_SURVIVORS: ALLOC === 'survivors' ? '1' : '0',
      CPU_PROFILE_PREFIX: path.join(dir, 'window'),
    },
    nodeArgs: [
      '--import',
      OBSERVER,
      ...(ALLOC ? ['--import', SAMPLER] : CPU_WINDOW ? ['--import', CPU_SAMPLER] : []),
      ...NODE_ARGS,
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : []),
    ],
    logFile: path.join(dir, 'serve.log'),
    dataDir: TARGET === 'embedded' ? env.DATA_DIR : undefined,
  });
  const startLoad = loadavg()[0] ?? 0;
  const keys = await provisionKeys(server.port, adminKey, 'developer', KEYS, 'tail');
  const shots = keys.map((key) => ({ path: PATH, key }));
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: 1 });
  const captured = await fetchRaw(pool, PATH, keys[0]).finally(() => pool.close());
  const postgresPids = () => (TARGET === 'postgres' ? procsNamed('postgres') : server.embeddedPostgresPids());
  const cpu = (serverPids: number[]): Cpu => {
    const own = process.cpuUsage();
    return {
      server: cpuMs(serverPids),
      postgres: cpuMs(postgresPids()),
      generator: (own.user + own.system) / 1000,
    };
  };
  const options = { connections: CONNECTIONS, duration: DURATION };
  const cpuRows: string[][] = [];
  await closedLoop('warm-up', server.port, shots, { ...options, duration: 3 });
  let before = cpu(server.nodePids());
  if (CPU_WINDOW) process.kill(server.pid, 'SIGUSR2');
  const closedTrace: string[] = [];
  const full = await closedLoop('closed', server.port, shots, {
    ...options,
    onAnswer: (sent, ms) =>
      closedTrace.push(`${(performance.timeOrigin + sent).toFixed(3)} ${ms.toFixed(3)}`),
  });
  await writeFile(path.join(dir, 'closed-answers.txt'), `${closedTrace.join('\n')}\n`);
  if (CPU_WINDOW) process.kill(server.pid, 'SIGUSR2');
  cpuRows.push(cpuLine('app, closed loop', full, before, cpu(server.nodePids())));
  const rate = RATE ? Number(RATE) : Math.max(1, Math.round(full.rps / 2));
  await openWarmUp(server.port, shots, { connections: CONNECTIONS, seconds: 3, rate });
  // Preallocated: objects per answer would add this process's own GC to what is measured.
  const capacity = Math.ceil(rate * DURATION) + 1;
  const dues = new Float64Array(capacity);
  const latencies = new Float64Array(capacity);
  let answered = 0;
  const origin = performance.timeOrigin;
  // This process is the load generator: its own pauses delay sends, and count as the server's latency.
  const own: Gc[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      own.push({
        at: origin + e.startTime,
        ms: e.duration,
        kind: `bench ${gcKind((e as { detail?: unknown }).detail)}`,
      });
  });
  observer.observe({ entryTypes: ['gc'] });
  // …and so do its timers firing late (the CPU given to others): the lateness of a 5 ms timer.
  const late: Gc[] = [];
  let expected = performance.now() + 5;
  const lateness = setInterval(() => {
    const now = performance.now();
    if (now - expected > 2)
      late.push({ at: origin + expected, ms: now - expected, kind: 'bench timer late' });
    expected = now + 5;
  }, 5);
  if (ALLOC || CPU_WINDOW) process.kill(server.pid, 'SIGUSR2');
  before = cpu(server.nodePids());
  const half = await openLoop(`open @ ${rate}`, server.port, shots, {
    ...options,
    rate,
    onAnswer: (due, ms) => {
      if (answered >= capacity) return;
      dues[answered] = origin + due;
      latencies[answered++] = ms;
    },
  });
  cpuRows.push(cpuLine(`app, open loop @ ${fmtInt(rate)}`, half, before, cpu(server.nodePids())));
  clearInterval(lateness);
  observer.disconnect();
  if (ALLOC || CPU_WINDOW) {
    process.kill(server.pid, 'SIGUSR2');
    await sleep(2000);
  }
  await server.stop();
  // The bare server (bench:events' baseline) under the same two loops: what the machine, the kernel's
  // sockets and the generator cost on their own, per answer.
  const bare = await startBare(new Map([[PATH, captured]]), path.join(dir, 'bare.json'));
  try {
    const keyless = shots.map((s) => ({ path: s.path }));
    await closedLoop('warm-up', bare.port, keyless, { ...options, duration: 3 });
    before = cpu([bare.pid]);
    const bareFull = await closedLoop('bare closed', bare.port, keyless, options);
    cpuRows.push(cpuLine('bare, closed loop', bareFull, before, cpu([bare.pid])));
    await openWarmUp(bare.port, keyless, { connections: CONNECTIONS, seconds: 3, rate });
    before = cpu([bare.pid]);
    const bareHalf = await openLoop('bare open', bare.port, keyless, { ...options, rate });
    cpuRows.push(cpuLine(`bare, open loop @ ${fmtInt(rate)}`, bareHalf, before, cpu([bare.pid])));
  } finally {
    await bare.stop();
  }
  const serverGcs = (await readFile(gcFile, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Gc);
  const gcs = [...serverGcs, ...own, ...late];
  const absolute: Answer[] = Array.from({ length: answered }, (_, i) => ({
    at: dues[i] as number,
    ms: latencies[i] as number,
  }));
  const base = absolute.reduce((min, a) => Math.min(min, a.at), Number.POSITIVE_INFINITY);
  if (KEEP) {
    const rows = absolute.map((a) => `${a.at.toFixed(3)} ${a.ms.toFixed(3)}`).join('\n');
    await writeFile(path.join(dir, 'answers.txt'), `${rows}\n`);
    await writeFile(path.join(dir, 'pauses.jsonl'), `${gcs.map((g) => JSON.stringify(g)).join('\n')}\n`);
  }
  const windowMs = DURATION * 1000;
  const serverInWindow = serverGcs.filter((g) => g.at >= base && g.at < base + windowMs + 1000);
  const inWindow = gcs.filter((g) => g.at >= base && g.at < base + windowMs + 1000);
  const threshold = SLOW ? Number(SLOW) : half.p99;
  const slow = absolute.filter((a) => a.ms >= threshold);
  const lines = [
    `target ${TARGET}, ${PATH}, ${KEYS} developer keys; server node args: ${NODE_ARGS.join(' ') || '(none)'}`,
    `load average (1 min) at start ${startLoad.toFixed(2)}, at end ${loadavg()[0]?.toFixed(2)}`,
    `closed loop, ${CONNECTIONS} connections: ${fmtInt(full.rps)} req/s, p99 ${fmtMs(full.p99)}, max ${fmtMs(full.max)}`,
    `open loop @ ${fmtInt(rate)} req/s: p50 ${fmtMs(half.p50)}, p90 ${fmtMs(half.p90)}, p99 ${fmtMs(half.p99)}, max ${fmtMs(half.max)}`,
    '',
    'CPU per answer (server: its node processes; PostgreSQL: the embedded one, or every postgres process of the machine):',
    table(['run', 'req/s', 'p50 / p90 / p99 / max', 'server', 'PostgreSQL', 'generator'], cpuRows),
    '',
    `GC pauses of the server and of this process (the load generator), and its 5 ms timer firing > 2 ms late, during the open loop (${DURATION} s):`,
    table(['kind', 'count', 'rate', 'p50', 'p99', 'max', 'total', 'of window'], gcTable(inWindow, windowMs)),
    '',
    `answers ≥ ${fmtMs(threshold)}: ${fmtInt(slow.length)}; a server GC pause began while in flight: ` +
      `${fmtInt(inGc(slow, serverInWindow))} (${((100 * inGc(slow, serverInWindow)) / Math.max(1, slow.length)).toFixed(1)} %); ` +
      `of all answers: ${((100 * inGc(absolute, serverInWindow)) / Math.max(1, absolute.length)).toFixed(1)} %`,
    'worst 100 ms windows (slow answers due in each; GC pauses beginning within ±50 ms):',
    table(['window', 'slow', 'pauses ≥ 1 ms (ms)'], worstWindows(slow, inWindow, base)),
    ...(CPU_PROF ? [`server CPU profile: ${profiles}`] : []),
    ...(KEEP ? [`server log (and GC trace): ${dir}`] : []),
    ...(ALLOC ? allocationLines(await readFile(allocFile, 'utf8').catch(() => ''), half.requests) : []),
    ...(CPU_WINDOW
      ? cpuWindowLines(
          await readFile(path.join(dir, 'window-1.cpuprofile'), 'utf8').catch(() => ''),
          await readFile(path.join(dir, 'window-2.cpuprofile'), 'utf8').catch(() => ''),
          full.requests,
          half.requests,
        )
      : []),
  ];
  console.log(summary('bench:tail', lines));
}

try {
  await main();
} finally {
  await runCleanups();
}
