/**
 * bench:export — the bulk exports' throughput and memory. A scratch embedded PostgreSQL gets N events
 * (default 1,000,000, each with a materiality signal) from generate_series; a server process of its own
 * (the app without keys, so that the rate limit's charge does not set the pace) answers:
 *
 *   - /api/v1/events/export as CSV and as NDJSON, for 100k rows (`limit`) and for all N;
 *   - /api/v1/signals/export likewise;
 *   - the baseline: the same rows through /api/v1/events, 200 a page (offset paging), for 100k rows
 *     (offset paging over N rows is quadratic: page k skips k·200 rows).
 *
 * For each: rows/s at the client, and the server's RSS at the start and its peak during the run
 * (sampled every 10 ms from /proc). Usage: npm run bench:export [-- --rows 1000000]
 *
 * The same for /api/v1/signals/export (the default engine's signals, best first).
 *
 * With --database, the database of bench/synthetic.ts (DATABASE_URL, default market_intel_bench) is
 * exported instead, nothing filled: every event (9 M of 10 M contracts have a ticker) and every signal
 * of the default engine as CSV and as NDJSON (--formats csv for one; --lists signals for one list;
 * --cap N for the first N rows only), plus the 100k-row runs above; RSS is also reported at every tenth
 * of each run, so its flatness shows.
 *
 *   npm run bench:export -- --database [--formats csv,ndjson] [--lists events,signals] [--cap N]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { defaultEngine } from '../src/domain/engines/index.ts';
import { openDb, openTemporaryDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import {
  arg,
  benchDatabaseUrl,
  databaseExists,
  flag,
  fmtInt,
  fmtMb,
  numberArg,
  summary,
  table,
} from './common.ts';
import { onCleanup, runCleanups } from './server-process.ts';

const SELF = fileURLToPath(import.meta.url);

/** The child: the app on `url`'s database, keys off, listening on a free port it reports. */
async function serve(url: string): Promise<void> {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url });
  const db = await openDb(config);
  const app = await buildApp({
    config,
    db: db.withDeadline(config.queryTimeoutMs),
    logger: false,
    security: false,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  process.on('disconnect', () => process.exit(0));
}

const rssOf = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
};

/** Samples `pid`'s RSS while `run` runs; its start and peak, and the RSS every second. */
async function sampled<T>(
  pid: number,
  run: () => Promise<T>,
): Promise<{ result: T; start: number; peak: number; trace: number[] }> {
  const start = rssOf(pid);
  let peak = start;
  const trace: number[] = [];
  let ticks = 0;
  const timer = setInterval(() => {
    const rss = rssOf(pid);
    peak = Math.max(peak, rss);
    if (++ticks % 100 === 0) trace.push(rss);
  }, 10);
  try {
    const result = await run();
    peak = Math.max(peak, rssOf(pid));
    return { result, start, peak, trace };
  } finally {
    clearInterval(timer);
  }
}

/** The RSS trace at every tenth of the run, in MB. */
function deciles(trace: readonly number[]): string {
  if (trace.length < 10) return trace.map((b) => (b / 1048576).toFixed(0)).join(' ');
  return Array.from({ length: 10 }, (_, k) =>
    ((trace[Math.floor(((k + 1) * trace.length) / 10) - 1] ?? 0) / 1048576).toFixed(0),
  ).join(' ');
}

/** GETs `path` and counts the LF bytes of the body (one per row, plus the CSV header). */
function countLines(port: number, path: string): Promise<{ lines: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
        let lines = 0;
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
        });
        res.on('end', () => resolve({ lines, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The list endpoint, 200 a page, until `rows` items came: the baseline. */
async function pageList(port: number, rows: number): Promise<{ lines: number; bytes: number }> {
  let lines = 0;
  let bytes = 0;
  for (let offset = 0; offset < rows; offset += 200) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/events?limit=200&offset=${offset}`);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`list page ${offset}: ${res.status} ${text.slice(0, 200)}`);
    bytes += text.length;
    lines += (JSON.parse(text) as { pagination: { count: number } }).pagination.count;
  }
  return { lines, bytes };
}

async function fill(rows: number): Promise<{ url: string; close: () => Promise<void> }> {
  const db = await openTemporaryDb();
  onCleanup(() => db.close());
  await migrate(db);
  const engine = defaultEngine();
  const t0 = performance.now();
  await db.query(
    `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
       awarding_sub_agency, description, naics, psc, nlp_classification, match_confidence, match_method)
     SELECT 'CONT_AWD_' || n, (ARRAY['LMT','NOC','GD','RTX','BA'])[1 + n % 5], 'Recipient, Inc. ' || (n % 997),
       date '2010-01-01' + (n % 5000), 10000 + n * 37, 'Department of Defense', 'Department of the Navy',
       'Engineering and "logistics" support, option year ' || (n % 5), '336411', 'AC12', 'aircraft', 0.95, 'exact'
     FROM generate_series(1, $1::int) n`,
    [rows],
  );
  await db.query(
    `INSERT INTO signals (id, contract_id, ticker, engine_name, engine_version, engine_tier, signal_score,
       importance_score, confidence_score, risk_score, rationale, computed_at, available_at)
     SELECT gen_random_uuid(), c.id, c.ticker, $1, $2, 'developer', n % 101, n % 97, n % 89, n % 83,
       '[["agency",10,1,10,"Department of Defense"]]', now() - (n % 1000) * interval '1 minute', c.available_at
     FROM contracts c, LATERAL (SELECT substr(c.id, 10)::int AS n) x`,
    [engine.name, engine.version],
  );
  await db.exec('VACUUM ANALYZE contracts');
  await db.exec('VACUUM ANALYZE signals');
  process.stderr.write(
    `filled ${fmtInt(rows)} events and signals in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return { url: db.url, close: () => db.close() };
}

async function startChild(url: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = fork(SELF, ['--export-server', url], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  onCleanup(async () => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m: { port: number }) => resolve(m.port));
    proc.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { proc, port };
}

async function main(): Promise<void> {
  const existing = flag('database');
  const rows = numberArg('rows', 1_000_000);
  const formats = (arg('formats') ?? 'csv,ndjson').split(',');
  const lists = (arg('lists') ?? 'events,signals').split(',');
  const cap = numberArg('cap', Number.POSITIVE_INFINITY);
  const small = Math.min(100_000, rows);
  let url: string;
  const engine = defaultEngine();
  const total = { events: rows, signals: rows };
  if (existing) {
    url = benchDatabaseUrl();
    if (!(await databaseExists(url))) throw new Error(`${url} does not exist: run npm run bench:synthetic`);
    const db = await openDb(loadConfig({ DATABASE_URL: url }));
    const [count] = await db.query<{ events: number; signals: number }>(
      `SELECT (SELECT count(*)::int FROM contracts WHERE ticker IS NOT NULL) AS events,
         (SELECT count(*)::int FROM signals WHERE engine_name = $1 AND engine_version = $2) AS signals`,
      [engine.name, engine.version],
    );
    await db.close();
    total.events = count?.events ?? 0;
    total.signals = count?.signals ?? 0;
    process.stderr.write(
      `exporting from ${url.replace(/:[^:@/]*@/, ':***@')}: ${fmtInt(total.events)} events, ${fmtInt(total.signals)} ${engine.name} signals\n`,
    );
  } else {
    url = (await fill(rows)).url;
  }
  const { proc, port } = await startChild(url);
  const pid = proc.pid ?? 0;
  // Warm-up: the code paths compiled, the pool's connections open.
  await countLines(port, `/api/v1/events/export?limit=${small}&format=ndjson`);
  await pageList(port, 2000);
  type Run = [label: string, rows: number, run: () => Promise<{ lines: number; bytes: number }>];
  const runs: Run[] = [];
  for (const list of lists as ('events' | 'signals')[]) {
    // The large run: every row of the list, or its first --cap.
    const all = Math.min(total[list], cap);
    const whole = all < total[list] ? `limit=${all}` : '';
    const query = (...parts: string[]) => parts.filter(Boolean).join('&');
    if (list === 'events') runs.push(['list, 200 a page (baseline)', small, () => pageList(port, small)]);
    runs.push(
      [`${list} export CSV`, small, () => countLines(port, `/api/v1/${list}/export?limit=${small}`)],
      [
        `${list} export NDJSON`,
        small,
        () => countLines(port, `/api/v1/${list}/export?limit=${small}&format=ndjson`),
      ],
      [`${list} export CSV`, all, () => countLines(port, `/api/v1/${list}/export?${query(whole)}`)],
      [
        `${list} export NDJSON`,
        all,
        () => countLines(port, `/api/v1/${list}/export?${query(whole, 'format=ndjson')}`),
      ],
    );
  }
  const out: string[][] = [];
  const traces: string[] = [];
  for (const [label, n, run] of runs) {
    if (n > small && !formats.includes(label.includes('CSV') ? 'csv' : 'ndjson')) continue;
    const t0 = performance.now();
    const { result, start, peak, trace } = await sampled(pid, run);
    const seconds = (performance.now() - t0) / 1000;
    const got = label.startsWith('list') ? result.lines : result.lines - (label.includes('CSV') ? 1 : 0);
    if (got !== n) throw new Error(`${label}: ${got} rows, expected ${n}`);
    process.stderr.write(
      `${label}, ${fmtInt(n)} rows: ${fmtInt(n / seconds)} rows/s, RSS ${fmtMb(start)} → peak ${fmtMb(peak)}\n`,
    );
    out.push([
      label,
      fmtInt(n),
      fmtInt(n / seconds),
      fmtMb(result.bytes),
      fmtMb(start),
      fmtMb(peak),
      (peak / start).toFixed(2),
      fmtMb(peak - start),
    ]);
    if (n > small)
      traces.push(
        `${label} (${fmtInt(n)} rows, ${seconds.toFixed(0)} s): RSS MB at each tenth: ${deciles(trace)}`,
      );
  }
  proc.kill('SIGKILL');
  console.log(
    summary(
      `bench:export — ${fmtInt(total.events)} events, ${fmtInt(total.signals)} signals, server RSS sampled every 10 ms`,
      [
        table(['run', 'rows', 'rows/s', 'body', 'RSS start', 'RSS peak', 'peak/start', 'growth'], out),
        '',
        ...traces,
      ],
    ),
  );
}

const flagAt = process.argv.indexOf('--export-server');
if (flagAt >= 0) {
  await serve(process.argv[flagAt + 1] ?? '');
} else {
  try {
    await main();
  } finally {
    await runCleanups();
  }
}
