/** The report of bench:events: per target, its runs against the bare baselines; then the bars, PASS/FAIL. */
import { loadavg } from 'node:os';
import { fmtInt, fmtMb, fmtMs, summary, table } from './common.ts';
import type { Measured } from './load.ts';
import type { Memory } from './proc-mem.ts';

/** Peak memory under load: the server's node processes, PostgreSQL's processes. */
export interface Sample {
  node: Memory;
  postgres: Memory;
}

export interface Report {
  target: 'embedded' | 'postgres';
  readyMs: number;
  urls: number;
  single: Measured;
  mix: Measured;
  half: Measured;
  /** The same open loop against the bare server. */
  bareHalf: Measured;
  bareSingle: Measured;
  bareMix: Measured;
  memory: Sample;
  /** Which PostgreSQL processes `memory.postgres` counts. */
  postgresNote: string;
}

interface Context {
  startLoad: number;
  connections: number;
  duration: number;
  /** The keys and server options, in words. */
  keys: string;
}

type Verdict = 'PASS' | 'FAIL' | 'n/a' | 'INVALID';

const MIN_URLS = 600;
const pct = (ratio: number) => `${(100 * ratio).toFixed(1)} %`;

function runRows(r: Report): string[][] {
  return [r.single, r.mix, r.half, r.bareSingle, r.bareMix, r.bareHalf].map((m) => [
    m.label,
    fmtInt(m.rps),
    fmtMs(m.p50),
    fmtMs(m.p90),
    fmtMs(m.p99),
    fmtMs(m.max),
    fmtInt(m.requests),
    fmtInt(m.non2xx) + (m.statuses ? ` (${m.statuses})` : ''),
    fmtInt(m.errors),
  ]);
}

const memoryLine = (m: Memory) =>
  `${m.processes} process${m.processes === 1 ? '' : 'es'}, RSS ${fmtMb(m.rss)}, PSS ${fmtMb(m.pss)}` +
  (m.pssMissing ? ` (${m.pssMissing} without smaps_rollup: PSS = RSS there)` : '');

function section(r: Report, context: Context): string[] {
  const single = r.single.rps / r.bareSingle.rps;
  const mix = r.mix.rps / r.bareMix.rps;
  return [
    '',
    `## ${r.target}: healthy ${(r.readyMs / 1000).toFixed(2)} s after spawn; mix of ${r.urls} URLs`,
    table(['run', 'req/s', 'p50', 'p90', 'p99', 'max', 'requests', 'non-2xx', 'errors'], runRows(r)),
    ...[r.single, r.mix, r.half, r.bareSingle, r.bareMix, r.bareHalf].flatMap((m) =>
      m.sampleError ? [`first error body in "${m.label}": ${m.sampleError}`] : [],
    ),
    `events?limit=50 app / bare: ${fmtInt(r.single.rps)} / ${fmtInt(r.bareSingle.rps)} req/s = ${pct(single)}`,
    `URL mix app / bare:        ${fmtInt(r.mix.rps)} / ${fmtInt(r.bareMix.rps)} req/s = ${pct(mix)}`,
    `open loop at half load:    p99 ${fmtMs(r.half.p99)}, max ${fmtMs(r.half.max)} (bare at the same rate: p99 ${fmtMs(r.bareHalf.p99)}, max ${fmtMs(r.bareHalf.max)})`,
    `max at ${context.connections} connections:    ${fmtMs(r.single.max)} (events?limit=50), ${fmtMs(r.mix.max)} (mix)`,
    `server node processes, peak under load: ${memoryLine(r.memory.node)}`,
    `PostgreSQL, peak under load (${r.postgresNote}): ${
      r.memory.postgres.processes ? memoryLine(r.memory.postgres) : 'none found'
    }`,
  ];
}

function bars(r: Report, context: Context): string[][] {
  const runs = [r.single, r.mix, r.half, r.bareSingle, r.bareMix, r.bareHalf];
  const invalid = runs.some((m) => m.non2xx > 0 || m.errors > 0 || m.requests === 0);
  const judge = (ok: boolean): Verdict => (invalid ? 'INVALID' : ok ? 'PASS' : 'FAIL');
  const single = r.single.rps / r.bareSingle.rps;
  const mix = r.mix.rps / r.bareMix.rps;
  const at50 = context.connections === 50;
  return [
    [r.target, 'events?limit=50 req/s ≥ 50 % of bare', pct(single), judge(single >= 0.5)],
    [
      r.target,
      `URL mix (≥ ${MIN_URLS} URLs) req/s ≥ 10 % of bare`,
      `${pct(mix)} (${r.urls} URLs)`,
      r.urls < MIN_URLS ? 'n/a' : judge(mix >= 0.1),
    ],
    [r.target, 'p99 ≤ 10 ms at half load, open loop', fmtMs(r.half.p99), judge(r.half.p99 <= 10)],
    [
      r.target,
      'max ≤ 50 ms at 50 connections (embedded)',
      `${fmtMs(r.single.max)} at ${context.connections}`,
      r.target !== 'embedded' || !at50 ? 'n/a' : judge(r.single.max <= 50),
    ],
    [
      r.target,
      'server RSS ≤ 300 MB under load (node, summed)',
      fmtMb(r.memory.node.rss),
      judge(r.memory.node.rss <= 300 * 1024 * 1024),
    ],
  ];
}

/** Prints the report; false when a run was INVALID (non-2xx or errors under load). */
export function printReport(reports: Report[], notes: string[], context: Context): boolean {
  const rows = reports.flatMap((r) => bars(r, context));
  const lines = [
    `load average (1 min) at start ${context.startLoad.toFixed(2)}, at end ${loadavg()[0]?.toFixed(2)} ` +
      '(other work on the machine skews the figures)',
    `load: ${context.connections} connections, ${context.duration} s per run, from this process; ` +
      `auth, limits and usage on: ${context.keys}, rotating`,
    'bare: one node:http process answering each URL with the same headers and body as the app',
    ...reports.flatMap((r) => section(r, context)),
    '',
    table(['target', 'bar', 'measured', 'result'], rows),
    ...notes.map((n) => `NOTE: ${n}`),
  ];
  if (rows.some((row) => row[3] === 'INVALID'))
    lines.push(
      'INVALID: non-2xx answers or errors under load (see the tables); 429s mean more --keys are needed',
    );
  if (context.duration < 10) lines.push(`NOTE: ${context.duration} s runs: indicative only`);
  console.log(summary('bench:events', lines));
  return !rows.some((row) => row[3] === 'INVALID');
}
