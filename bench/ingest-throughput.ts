/**
 * Ingest throughput (≥ 20,000 awards/s into native PostgreSQL): a large synthetic
 * bulk-download CSV goes through the path of `ingest usaspending --file` (`importAwardFile`: read →
 * parse → resolve → classify → store → regimes → score with every engine), into the machine's
 * PostgreSQL and into the embedded PostgreSQL as `npm start` runs it (a data directory on disk, in a temporary
 * directory).
 *
 *   npm run bench:ingest -- [--count 300000] [--embedded-count 300000] [--seed 7]
 *                           [--no-pg] [--no-embedded] [--keep-file] [--keep-db] [--stages]
 *                           [--announcements]
 *   npm run bench:ingest -- --generate FILE [--count N] [--offset K] [--from D] [--to D]
 *                           (only write the synthetic CSV; award ids start at K, default 0; award
 *                           dates within D..D, default 2015-01-01..2025-12-31)
 *
 * `--announcements` (embedded run): the shipped DoD announcements (2014–2019) are ingested first, and
 * one synthetic award in a hundred carries a contract number they name, so every batch's announcement
 * link query (store/announcements.ts) finds events to link, as in a database that follows both feeds.
 *
 * The headline import runs as the CLI runs it; `--stages` adds a second import on an emptied database
 * with the resolver, the engines and every query timed (the stage table; the timers cost a few per cent,
 * and the classifier's memo is warm from the first import). The timers wrap the importing thread's
 * context, so an instrumented import runs on that thread alone, without the import's threads
 * (pipeline/import-pool.ts). On the embedded server `--stages` is that instrumented import alone.
 * With `--announcements`, the link query is then timed on its own: run again over the file's award
 * ids, 5,000 at a time as the import runs it, after the import.
 *
 * Recipients: real company names and aliases (with a heavy-tailed popularity) and their
 * subsidiary-style variants, plus tens of thousands of distinct small-business names that match
 * nothing; descriptions, NAICS and PSC from the shipped real awards with task-order/lot suffixes (so
 * few repeat exactly); dates 2015–2025; log-normal values. PostgreSQL: DATABASE_URL (must be an
 * empty, or emptied with --reset, database) or a scratch database created at
 * postgres://postgres@127.0.0.1:5432/market_intel_ingest_bench and dropped at the end.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { classify } from '../src/domain/classifier.ts';
import { normalizeName } from '../src/domain/names.ts';
import type { Resolver } from '../src/domain/resolver.ts';
import type { Engine } from '../src/domain/types.ts';
import { ingestAnnouncements } from '../src/pipeline/announcements.ts';
import { createPipelineContext } from '../src/pipeline/context.ts';
import { type AwardFileResult, importAwardFile } from '../src/pipeline/import.ts';
import { DEMO_DATA_DIR } from '../src/pipeline/seed.ts';
import { parseAnnouncementsCsv } from '../src/sources/announcements.ts';
import { readAwardText } from '../src/sources/award-files.ts';
import { BULK_COLUMNS, loadDemoAwards } from '../src/sources/awards.ts';
import { loadDemoCandles } from '../src/sources/candles.ts';
import { loadDemoCompanies } from '../src/sources/companies.ts';
import { toCsv } from '../src/sources/csv.ts';
import { readTextFile } from '../src/sources/files.ts';
import { linkAnnouncements } from '../src/store/announcements.ts';
import { type Db, type Loader, openDb, removeTemporaryDir } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { insertAliases, upsertCandles, upsertCompanies } from '../src/store/writes.ts';
import { arg, ensureDatabase, flag, fmtInt, numberArg, seededRandom, summary, table } from './common.ts';

const COUNT = Math.floor(numberArg('count', 300_000));
const EMBEDDED_COUNT = Math.floor(numberArg('embedded-count', 300_000));
const SEED = Math.floor(numberArg('seed', 7));
const SCRATCH_URL = 'postgres://postgres@127.0.0.1:5432/market_intel_ingest_bench';

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

// ------------------------------------------------------------------------------ randomness

const { rand, normal } = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
/** Index in [0, n) with P(i) ∝ 1/(i+1)^s (Zipf), by inverse transform on a precomputed table. */
function zipf(n: number, s: number): () => number {
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += 1 / (i + 1) ** s;
    cumulative.push(total);
  }
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 0) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

// ------------------------------------------------------------------------------ the synthetic file

const WORDS = [
  'ACME', 'SUMMIT', 'PIONEER', 'ATLAS', 'VECTOR', 'LIBERTY', 'BLUE RIDGE', 'KEYSTONE', 'HORIZON', 'EAGLE',
  'FALCON', 'PATRIOT', 'CARDINAL', 'MERIDIAN', 'APEX', 'SENTRY', 'GRANITE', 'CHESAPEAKE', 'POTOMAC', 'SIERRA',
  'DELTA', 'OMEGA', 'TRIDENT', 'COASTAL', 'PRAIRIE', 'HIGHLAND', 'RIVERSIDE', 'NORTHSTAR', 'IRONWOOD', 'CEDAR',
  'MAPLE', 'BEACON', 'PINNACLE', 'FRONTIER', 'HERITAGE', 'CAPITOL', 'COMPASS', 'SUNRISE', 'VALLEY', 'LAKESIDE',
]; // biome-ignore format: compact list
const TRADES = [
  'ENGINEERING', 'CONSTRUCTION', 'LOGISTICS', 'CONSULTING', 'MECHANICAL', 'ELECTRIC', 'ROOFING', 'PAVING',
  'MEDICAL SUPPLY', 'JANITORIAL', 'IT SOLUTIONS', 'ANALYTICS', 'MARINE SERVICES', 'AVIATION SERVICES',
  'MACHINE WORKS', 'ENVIRONMENTAL', 'SECURITY SERVICES', 'TRAINING', 'FABRICATION', 'WELDING',
]; // biome-ignore format: compact list
const FORMS = ['LLC', 'INC', 'INC.', 'CORP', 'CORPORATION', 'CO', 'GROUP LLC', 'LTD', 'L.L.C.', 'PLLC'];
const QUALIFIERS = ['FEDERAL SERVICES LLC', 'GOVERNMENT SOLUTIONS INC', 'DEFENSE SYSTEMS LLC', 'USA INC'];

interface Vocabulary {
  matchedNames: string[];
  parentOf: Map<string, string>;
  unmatchedNames: string[];
  texts: { description: string; naics: string | null; psc: string | null }[];
}

async function vocabulary(): Promise<Vocabulary> {
  const [{ companies, aliases }, demo] = await Promise.all([
    loadDemoCompanies(DEMO_DATA_DIR),
    loadDemoAwards(DEMO_DATA_DIR),
  ]);
  // Companies in a shuffled but seeded order: Zipf popularity over them, primes first via aliases.
  const operating = companies.filter((c) => !['SPY', 'XLI', 'ITA'].includes(c.ticker));
  for (let i = operating.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [operating[i], operating[j]] = [
      operating[j] as (typeof operating)[number],
      operating[i] as (typeof operating)[number],
    ];
  }
  const parentOf = new Map<string, string>();
  const matchedNames: string[] = [];
  for (const a of aliases) matchedNames.push(a.alias);
  for (const c of operating.slice(0, 3000)) {
    matchedNames.push(c.name);
    const variant = `${normalizeName(c.name)} ${pick(QUALIFIERS)}`;
    matchedNames.push(variant);
    parentOf.set(variant, c.name);
  }
  const unmatched = new Set<string>();
  while (unmatched.size < 40_000) {
    unmatched.add(`${pick(WORDS)} ${pick(WORDS)} ${pick(TRADES)} ${pick(FORMS)}`);
    unmatched.add(`${pick(WORDS)} ${pick(TRADES)} ${Math.floor(rand() * 900 + 100)} ${pick(FORMS)}`);
  }
  const texts = demo.awards
    .filter((a) => a.description !== null)
    .map((a) => ({ description: a.description ?? '', naics: a.naics, psc: a.psc }));
  return { matchedNames, parentOf, unmatchedNames: [...unmatched], texts };
}

// Award dates: uniform over 2015–2025, or over --from..--to (a daily delta into a long history, say).
function dayArg(name: string, fallback: string): number {
  const value = arg(name) ?? fallback;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(day)) throw new Error(`--${name}: expected a date as YYYY-MM-DD, got "${value}"`);
  return day;
}
const FIRST_DAY = dayArg('from', '2015-01-01');
const SPAN_DAYS = Math.max(1, Math.round((dayArg('to', '2025-12-31') - FIRST_DAY) / 86_400_000));

function syntheticCsv(
  count: number,
  vocab: Vocabulary,
  offset: number,
  announced: readonly string[] = [],
): string {
  const matched = zipf(vocab.matchedNames.length, 1.05);
  const unmatched = zipf(vocab.unmatchedNames.length, 0.6);
  const rows: string[][] = [];
  for (let i = 0; i < count; i++) {
    const isMatched = rand() < 0.6;
    const recipient = isMatched
      ? (vocab.matchedNames[matched()] ?? '')
      : (vocab.unmatchedNames[unmatched()] ?? '');
    const parent = vocab.parentOf.get(recipient) ?? (rand() < 0.3 ? recipient : '');
    const text = pick(vocab.texts);
    const suffix =
      rand() < 0.6
        ? ` - TASK ORDER ${Math.floor(rand() * 1e6)}`
        : rand() < 0.5
          ? ` LOT ${Math.floor(rand() * 40)}`
          : '';
    const date = new Date(FIRST_DAY + Math.floor(rand() * SPAN_DAYS) * 86_400_000).toISOString().slice(0, 10);
    const value = Math.max(100, Math.min(5e10, Math.round(Math.exp(Math.log(250_000) + 2 * normal()))));
    const n = offset + i;
    // One award in a hundred under a contract number an announcement names (each used once).
    const piid = (i % 100 === 0 ? announced[i / 100] : undefined) ?? `SYN${n}`;
    const record: Record<(typeof BULK_COLUMNS)[number], string> = {
      contract_award_unique_key: `CONT_AWD_${piid}_9700_-NONE-_-NONE-`,
      award_id_piid: piid,
      recipient_name: recipient,
      recipient_uei: '',
      recipient_parent_name: parent,
      recipient_parent_uei: '',
      awarding_agency_name: rand() < 0.75 ? 'Department of Defense' : pick(CIVILIAN),
      awarding_sub_agency_name: '',
      current_total_value_of_award: String(value),
      total_obligated_amount: '',
      award_base_action_date: date,
      prime_award_base_transaction_description: `${text.description}${suffix}`,
      naics_code: text.naics ?? '',
      product_or_service_code: text.psc ?? '',
      last_modified_date: '2026-01-15 10:00:00',
    };
    rows.push(BULK_COLUMNS.map((c) => record[c]));
  }
  return toCsv(BULK_COLUMNS, rows);
}

const CIVILIAN = [
  'Department of Veterans Affairs',
  'Department of Health and Human Services',
  'Department of Homeland Security',
  'National Aeronautics and Space Administration',
  'Department of Energy',
  'General Services Administration',
];

// ------------------------------------------------------------------------------ instrumentation

class Stopwatch {
  readonly totals = new Map<string, { ms: number; calls: number }>();
  add(stage: string, ms: number): void {
    const t = this.totals.get(stage) ?? { ms: 0, calls: 0 };
    t.ms += ms;
    t.calls += 1;
    this.totals.set(stage, t);
  }
  time<T>(stage: string, fn: () => T): T {
    const start = performance.now();
    try {
      return fn();
    } finally {
      this.add(stage, performance.now() - start);
    }
  }
  async timeAsync<T>(stage: string, fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await fn();
    } finally {
      this.add(stage, performance.now() - start);
    }
  }
}

function sqlStage(text: string): string {
  const t = text.trimStart();
  if (t.startsWith('INSERT INTO contracts')) return 'db: upsert contracts';
  if (t.startsWith('SELECT id FROM contracts WHERE id = ANY')) return 'db: probe stored contracts';
  if (t.startsWith('SELECT DISTINCT contract_id FROM signals')) return 'db: probe stored signals';
  if (t.startsWith('SELECT c.id, c.ticker, c.contract_value')) return 'db: load contracts to score';
  if (t.startsWith('INSERT INTO unmatched_recipients')) return 'db: tally unmatched';
  if (t.startsWith('INSERT INTO market_regimes')) return 'db: upsert regimes';
  if (t.startsWith('INSERT INTO signals')) return 'db: upsert signals';
  if (/^SELECT c\.ticker, c\.source, c\.award_date/.test(t)) return 'db: load trailing history';
  if (t.startsWith('WITH pairs AS')) return 'db: link announcements';
  if (t.startsWith('CREATE INDEX')) return 'db: build deferred indexes';
  if (t.startsWith('SELECT restore_contract_totals()')) return "db: sum the deferred contracts' totals";
  if (t.startsWith('SELECT c.id, c.unscored FROM')) return 'db: probe stored contracts';
  if (t.startsWith('SELECT c.id, c.available_at FROM')) return "db: new signals' availability";
  if (t.startsWith('SELECT c.ticker, count(*)')) return 'db: count contracts to score';
  if (t.startsWith('SELECT c.id, c.ticker, c.contract_value')) return 'db: load contracts to score';
  if (t.startsWith('INSERT INTO webhook_outbox') || t.includes('webhook_outbox'))
    return 'db: signal.created outbox';
  return 'db: other';
}

function timedLoader(q: Loader, watch: Stopwatch): Loader {
  return {
    query: (text, params) => watch.timeAsync(sqlStage(text), () => q.query(text, params)),
    copyFrom: (table, columns, rows, record) =>
      watch.timeAsync(`db: copy ${table}`, () => q.copyFrom(table, columns, rows, record)),
  };
}

function timedDb(db: Db, watch: Stopwatch): Db {
  return {
    ...db,
    query: (text, params) => watch.timeAsync(sqlStage(text), () => db.query(text, params)),
    transaction: (fn) => db.transaction((tx) => fn(timedLoader(tx, watch))),
  };
}

function timedResolver(resolver: Resolver, watch: Stopwatch): Resolver {
  return { resolve: (input) => watch.time('resolve', () => resolver.resolve(input)) };
}

function timedEngine(engine: Engine, watch: Stopwatch): Engine {
  return {
    ...engine,
    score: (input, earlier) => watch.time(`score: ${engine.name}`, () => engine.score(input, earlier)),
  };
}

// ------------------------------------------------------------------------------ runs

/**
 * CPU ms so far of each PostgreSQL server process working for this run (Linux /proc, local server
 * only; null otherwise): the backends connected to this database and the shared background processes
 * (WAL writer, checkpointer, background writer, autovacuum), by pid. Backends of other databases are
 * left out. A process that ends takes its CPU time with them (see `serverMs`), except on the embedded
 * server, which serves this run alone: there the postmaster's reaped children (backends of connections
 * closed meanwhile, such as an import thread's) are counted too, under the postmaster's negated pid.
 */
async function serverCpu(db: Db): Promise<Map<number, number> | null> {
  const [{ name } = { name: '' }] = await db.query<{ name: string }>('SELECT current_database() AS name');
  const embedded = new URL(db.url).searchParams.get('host')?.startsWith('/') === true;
  const byPid = new Map<number, number>();
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      // A client backend's title is "postgres: <cluster>: <user> <database> <host>(<port>) <state>".
      const title = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      const client = / \S+ \S+ (?:\[local\]|\S+\(\d+\))/.exec(title);
      if (client && !client[0].includes(` ${name} `)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (USER_HZ = 100).
      byPid.set(Number(pid), ((Number(fields[11]) || 0) + (Number(fields[12]) || 0)) * 10);
      // cutime and cstime (16, 17): the children it has waited for; the postmaster's title is its command line.
      if (embedded && !title.startsWith('postgres:'))
        byPid.set(-Number(pid), ((Number(fields[13]) || 0) + (Number(fields[14]) || 0)) * 10);
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid.size > 0 ? byPid : null;
}

/**
 * Server CPU between two readings: what each process seen at the second one used since the first (or
 * since it started). A process gone by the second reading is left out — the pool closes connections
 * that sat idle for ten seconds, so what it used after the first reading is next to nothing; a run is
 * therefore summed phase by phase.
 */
function serverMs(from: Map<number, number> | null, to: Map<number, number> | null): number | null {
  if (from === null || to === null) return null;
  let total = 0;
  for (const [pid, ms] of to) total += ms - (from.get(pid) ?? 0);
  // With reaped children counted (negative keys), a backend that ended brought its whole life's CPU
  // into its postmaster's count: what it had used by the first reading is not this interval's.
  if ([...to.keys()].some((pid) => pid < 0))
    for (const [pid, ms] of from) if (pid > 0 && !to.has(pid)) total -= ms;
  return total;
}

/** Busy and total CPU ticks of the whole machine (/proc/stat), to show how much of it the run used. */
interface MachineCpu {
  busy: number;
  total: number;
}

async function machineCpu(): Promise<MachineCpu | null> {
  try {
    const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

async function prepare(db: Db): Promise<void> {
  await migrate(db);
  const { companies, aliases } = await loadDemoCompanies(DEMO_DATA_DIR);
  for (let i = 0; i < companies.length; i += 5000) await upsertCompanies(db, companies.slice(i, i + 5000));
  await insertAliases(
    db,
    aliases.map((a) => ({ aliasNorm: normalizeName(a.alias), ticker: a.ticker, source: a.source })),
  );
  const candles = await loadDemoCandles(DEMO_DATA_DIR);
  for (const ticker of ['SPY', 'XLI', 'ITA']) {
    const series = candles.get(ticker) ?? [];
    for (let i = 0; i < series.length; i += 5000) await upsertCandles(db, ticker, series.slice(i, i + 5000));
  }
}

/**
 * The shipped DoD announcements, ingested as `ingest announcements --file` does; returns the contract
 * numbers their events name, for synthetic awards to carry.
 */
async function storeAnnouncements(db: Db): Promise<string[]> {
  const t0 = performance.now();
  const { paragraphs } = parseAnnouncementsCsv(await readTextFile(ANNOUNCEMENTS_FILE));
  const ctx = await createPipelineContext(db, { signalThreshold: 75 });
  const counts = await ingestAnnouncements(ctx, paragraphs);
  const piids = await db.query<{ piid: string }>(
    `SELECT DISTINCT piid FROM announcement_piids WHERE piid ~ '^[A-Z0-9]+$' ORDER BY piid`,
  );
  log(
    `announcements: ${fmtInt(counts.events)} awardee events naming ${fmtInt(piids.length)} contract numbers, ` +
      `stored in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return piids.map((r) => r.piid);
}

const ANNOUNCEMENTS_FILE = path.join(
  DEMO_DATA_DIR,
  'announcements',
  'dod_contract_announcements_2014-08_2019-03.csv.gz',
);

/**
 * The announcement link query on its own: run again over every stored synthetic award id, in batches of
 * 5,000 (the import's write batches) in id order, one at a time; its total against the import's wall time.
 * Links made by the import are found again and left alone, so the UPDATEs write nothing.
 */
async function timeLinks(db: Db, importMs: number): Promise<string> {
  const ids = (
    await db.query<{ id: string }>(`SELECT id FROM contracts WHERE id LIKE 'CONT\\_AWD\\_%' ORDER BY id`)
  ).map((r) => r.id);
  const [linked] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM contracts WHERE id LIKE 'CONT\\_AWD\\_%' AND linked_id IS NOT NULL`,
  );
  const start = performance.now();
  for (let i = 0; i < ids.length; i += 5000) {
    await db.transaction((tx) => linkAnnouncements(tx, ids.slice(i, i + 5000)));
  }
  const ms = performance.now() - start;
  return summary('announcement link query (store/announcements.ts linkAnnouncements), timed alone', [
    `${fmtInt(ids.length)} award ids in ${fmtInt(Math.ceil(ids.length / 5000))} batches of 5,000: ` +
      `${(ms / 1000).toFixed(2)} s (${((1000 * ms) / ids.length).toFixed(1)} µs per award) = ` +
      `${((100 * ms) / importMs).toFixed(1)}% of the import's ${(importMs / 1000).toFixed(1)} s; ` +
      `${fmtInt(linked?.n ?? 0)} awards linked by the import`,
  ]);
}

interface RunResult {
  label: string;
  awards: number;
  /** Wall time of importAwardFile: read + parse + resolve + classify + store + regimes + score. */
  importMs: number;
  /** CPU time of this node process during the import (user + system). */
  nodeCpuMs: number;
  /** CPU time of all PostgreSQL server processes during the import (Linux /proc), when readable. */
  serverCpuMs: number | null;
  /** Share of the whole machine's CPU busy during the import (all processes). */
  machineBusy: number | null;
  wal: WalWritten;
  /** 1-minute load average before and after: other work on the machine skews wall times. */
  load: [number, number];
  classifyPassMs: number;
  result: AwardFileResult;
  stages: [string, number, number][];
  phases: PhaseCpu[];
  gc: GcPauses;
}

/**
 * The CLI's `ingest usaspending --file` path, end to end: importAwardFile on the synthetic CSV. With
 * `stages`, the resolver, the engines and every query are wrapped in timers for the stage table (a
 * few per cent of node's CPU); without, the pipeline runs exactly as the CLI runs it, and only CPU
 * counters are read, at the start, where scoring begins and at the end.
 */
async function run(label: string, db: Db, csvPath: string, stages: boolean): Promise<RunResult> {
  const watch = new Stopwatch();
  const base = await createPipelineContext(db, { signalThreshold: 75 });
  const ctx = stages
    ? {
        ...base,
        db: timedDb(db, watch),
        resolver: timedResolver(base.resolver, watch),
        engines: base.engines.map((e) => timedEngine(e, watch)),
      }
    : base;
  log(`${label}: importing ${csvPath}${stages ? ' (timing each stage)' : ''}…`);
  const load = loadavg()[0] ?? 0;
  const walStart = await walSnapshot(db);
  const start = await cpuSnapshot(db, true);
  let phase = 'store';
  let scoring: Promise<CpuSnapshot> | null = null;
  const gc = watchGc(() => phase);
  const result = await importAwardFile(ctx, csvPath, {
    // The stage timers wrap this thread's context: an instrumented import runs on it alone.
    ...(stages ? { threads: 1 } : {}),
    log: (line) => {
      if (line.startsWith('score') && scoring === null) {
        phase = 'score';
        scoring = cpuSnapshot(db);
      }
      log(`${label}: ${line}`);
    },
  });
  const end = await cpuSnapshot(db);
  const wal = walSince(walStart, await walSnapshot(db));
  const importMs = end.at - start.at;
  const gcPauses = await gc.stop();
  const switched = await (scoring ?? Promise.resolve(end));
  if (result.rejectedTotal > 0) throw new Error(`${result.rejectedTotal} synthetic rows rejected`);
  // Classification has no injectable seam: time a separate pass after the run over the parsed file,
  // every text made unique so that a memo the run itself may hit cannot help.
  const { awards } = await readAwardText(await readFile(csvPath, 'utf8'), 'csv');
  const classifyStart = performance.now();
  for (const [i, a] of awards.entries()) {
    classify({ description: `${a.description ?? ''} #${i}`, naics: a.naics, psc: a.psc });
  }
  const classifyPassMs = performance.now() - classifyStart;
  const storingMs = serverMs(start.server, switched.server);
  const scoringMs = serverMs(switched.server, end.server);
  const stagesList = [...watch.totals.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([stage, t]) => [stage, t.ms, t.calls] as [string, number, number]);
  return {
    label,
    awards: result.received,
    importMs,
    nodeCpuMs: nodeMs(start, end),
    serverCpuMs: storingMs === null || scoringMs === null ? null : storingMs + scoringMs,
    machineBusy: start.machine && end.machine ? busyShare(start.machine, end.machine) : null,
    wal,
    load: [load, loadavg()[0] ?? 0],
    classifyPassMs,
    result,
    stages: stagesList,
    phases: [phaseCpu('store', start, switched), phaseCpu('score', switched, end)],
    gc: gcPauses,
  };
}

/** The server's WAL position and checkpoints so far (PostgreSQL 17 moved the count to pg_stat_checkpointer). */
interface WalSnapshot {
  lsn: string;
  checkpoints: number;
  commits: number;
  buffersFull: number;
}

/** What an import cost the server in WAL: its volume, and the checkpoints it set off or ran into. */
interface WalWritten {
  bytes: number;
  checkpoints: number;
  /** Transactions committed in the database: each waits for its WAL to reach the disk. */
  commits: number;
  /** Times a backend had to write WAL out itself because wal_buffers were full. */
  buffersFull: number;
}

async function walSnapshot(db: Db): Promise<WalSnapshot> {
  const [version] = await db.query<{ n: number }>(`SELECT current_setting('server_version_num')::int AS n`);
  const view =
    (version?.n ?? 0) >= 170_000
      ? 'SELECT num_timed + num_requested AS n FROM pg_stat_checkpointer'
      : 'SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter';
  const [lsn] = await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  const [count] = await db.query<{ n: string }>(view);
  const [commits] = await db.query<{ n: string }>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  const [full] = await db.query<{ n: string }>('SELECT wal_buffers_full AS n FROM pg_stat_wal');
  return {
    lsn: lsn?.lsn ?? '0/0',
    checkpoints: Number(count?.n ?? 0),
    commits: Number(commits?.n ?? 0),
    buffersFull: Number(full?.n ?? 0),
  };
}

function walSince(from: WalSnapshot, to: WalSnapshot): WalWritten {
  const position = (lsn: string) => {
    const [high = '0', low = '0'] = lsn.split('/');
    return Number.parseInt(high, 16) * 2 ** 32 + Number.parseInt(low, 16);
  };
  return {
    bytes: position(to.lsn) - position(from.lsn),
    checkpoints: to.checkpoints - from.checkpoints,
    commits: to.commits - from.commits,
    buffersFull: to.buffersFull - from.buffersFull,
  };
}

/** CPU counters at one moment: this process, the PostgreSQL server processes, the whole machine. */
interface CpuSnapshot {
  at: number;
  node: NodeJS.CpuUsage;
  server: Map<number, number> | null;
  machine: MachineCpu | null;
}

/**
 * The /proc reads take a few milliseconds: the wall clock and node's counters are read at the call,
 * or with `clockLast` after them (at the start of a measured interval, so that it leaves them out).
 */
async function cpuSnapshot(db: Db, clockLast = false): Promise<CpuSnapshot> {
  let at = performance.now();
  let node = process.cpuUsage();
  const [server, machine] = await Promise.all([serverCpu(db), machineCpu()]);
  if (clockLast) {
    at = performance.now();
    node = process.cpuUsage();
  }
  return { at, node, server, machine };
}

const nodeMs = (from: CpuSnapshot, to: CpuSnapshot): number =>
  (to.node.user - from.node.user + to.node.system - from.node.system) / 1000;

const busyShare = (from: MachineCpu, to: MachineCpu): number =>
  (to.busy - from.busy) / Math.max(1, to.total - from.total);

/** Mean CPU use over one phase, in cores: node, PostgreSQL, the whole machine. */
interface PhaseCpu {
  phase: string;
  seconds: number;
  node: number;
  server: number | null;
  machine: number | null;
}

function phaseCpu(phase: string, from: CpuSnapshot, to: CpuSnapshot): PhaseCpu {
  const seconds = Math.max(1e-3, (to.at - from.at) / 1000);
  const server = serverMs(from.server, to.server);
  return {
    phase,
    seconds,
    node: nodeMs(from, to) / 1000 / seconds,
    server: server === null ? null : server / 1000 / seconds,
    machine: from.machine && to.machine ? cpus().length * busyShare(from.machine, to.machine) : null,
  };
}

const phaseName = (phase: string): string =>
  phase === 'store' ? 'parsing and storing contracts' : 'scoring and storing signals';

function phaseUse(phases: readonly PhaseCpu[]): string[] {
  const cores = (x: number | null) => (x === null ? '–' : x.toFixed(2));
  return phases
    .filter((p) => p.seconds > 0.01)
    .map(
      (p) =>
        `CPU in use while ${phaseName(p.phase)} (${p.seconds.toFixed(1)} s): node ${cores(p.node)}, ` +
        `PostgreSQL ${cores(p.server)}, whole machine ${cores(p.machine)} of ${cpus().length} cores`,
    );
}

/** Pause time per phase and kind: young-generation (scavenge) and full (mark-compact) collections. */
type GcPauses = Map<string, { young: { n: number; ms: number }; full: { n: number; ms: number } }>;

/**
 * The main thread's garbage-collection pauses during the import, per phase. They vary less with the
 * VM's speed than throughput does, so they show whether a change made fewer objects outlive a
 * collection (what a scavenge costs is what survives it).
 */
function watchGc(phase: () => string): { stop: () => Promise<GcPauses> } {
  const pauses: GcPauses = new Map();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      const key = phase();
      const own = pauses.get(key) ?? { young: { n: 0, ms: 0 }, full: { n: 0, ms: 0 } };
      const bucket = kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? own.young : own.full;
      bucket.n += 1;
      bucket.ms += entry.duration;
      pauses.set(key, own);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    // Entries arrive after the collection; one turn of the event loop lets the last ones in.
    stop: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      observer.disconnect();
      return pauses;
    },
  };
}

function gcLines(pauses: GcPauses): string[] {
  return [...pauses].map(
    ([phase, { young, full }]) =>
      `GC pauses while ${phaseName(phase)}: ` +
      `${young.n} young-generation (${fmtInt(young.ms)} ms), ${full.n} other (${fmtInt(full.ms)} ms)`,
  );
}

function report(r: RunResult): string {
  const rate = (n: number, ms: number) => fmtInt(n / (ms / 1000));
  const perAward = (ms: number) => `${((1000 * ms) / r.awards).toFixed(0)} µs/award`;
  const lines = [
    `awards: ${fmtInt(r.awards)}; matched ${fmtInt(r.result.matched)}, unmatched ${fmtInt(r.result.unmatched)}, ` +
      `inserted ${fmtInt(r.result.inserted)}, scored ${fmtInt(r.result.scored)}, signals created ${fmtInt(r.result.signals_created)}`,
    `importAwardFile (read → parse → resolve → classify → store → regimes → score with every engine): ` +
      `${(r.importMs / 1000).toFixed(2)} s → ${rate(r.awards, r.importMs)} awards/s`,
    `node CPU: ${(r.nodeCpuMs / 1000).toFixed(2)} s = ${perAward(r.nodeCpuMs)}` +
      (r.serverCpuMs === null
        ? ''
        : `; PostgreSQL CPU (all server processes): ${(r.serverCpuMs / 1000).toFixed(2)} s = ${perAward(r.serverCpuMs)}`) +
      (r.machineBusy === null ? '' : `; machine busy ${(100 * r.machineBusy).toFixed(0)}%`) +
      `; load average ${r.load[0].toFixed(2)} → ${r.load[1].toFixed(2)} on ${cpus().length} CPUs`,
    `classify, cold (separate pass after the run, texts made unique): ${(r.classifyPassMs / 1000).toFixed(2)} s`,
    ...phaseUse(r.phases),
    `WAL written: ${(r.wal.bytes / 2 ** 30).toFixed(2)} GB; checkpoints: ${r.wal.checkpoints}; commits: ${fmtInt(r.wal.commits)}; ` +
      `WAL buffers full: ${fmtInt(r.wal.buffersFull)}`,
    ...gcLines(r.gc),
    '',
    ...(r.stages.length === 0
      ? ['per-stage times: run with --stages (a second, instrumented import)']
      : [
          table(
            ['stage (inside the import; wall, overlapping)', 'total ms', 'calls', 'share of import'],
            r.stages.map(([stage, ms, calls]) => [
              stage,
              fmtInt(ms),
              fmtInt(calls),
              `${((100 * ms) / r.importMs).toFixed(1)}%`,
            ]),
          ),
        ]),
  ];
  return summary(`${r.label}: ${rate(r.awards, r.importMs)} awards/s`, lines);
}

/** What an import writes; signals are emptied with contracts by their truncate trigger. */
const emptyImportTables = (db: Db): Promise<void> =>
  db.exec('TRUNCATE contracts, market_regimes, unmatched_recipients CASCADE');

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mi-ingest-'));
  try {
    log(`vocabulary: loading companies, aliases and real award texts from ${DEMO_DATA_DIR}`);
    const vocab = await vocabulary();
    log(
      `vocabulary: ${fmtInt(vocab.matchedNames.length)} company/alias names, ${fmtInt(vocab.unmatchedNames.length)} ` +
        `unmatched names, ${fmtInt(vocab.texts.length)} real descriptions`,
    );
    const generateOnly = arg('generate');
    if (generateOnly !== undefined) {
      await writeFile(generateOnly, syntheticCsv(COUNT, vocab, Math.floor(numberArg('offset', 0))));
      log(`wrote ${generateOnly} (${fmtInt(COUNT)} awards)`);
      return;
    }
    if (!flag('no-pg') && COUNT > 0) {
      const file = path.join(dir, `awards-${COUNT}.csv`);
      const t0 = performance.now();
      await writeFile(file, syntheticCsv(COUNT, vocab, 0));
      log(`generated ${file} (${fmtInt(COUNT)} awards) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const explicit = process.env.DATABASE_URL?.trim();
      const url = explicit || SCRATCH_URL;
      if (!explicit) await ensureDatabase(url, { recreate: true });
      const db = await openDb({ databaseUrl: url, dataDir: '' });
      try {
        await prepare(db);
        const [existing] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts');
        if ((existing?.n ?? 0) > 0) {
          if (!flag('reset'))
            throw new Error(`${url} already holds contracts: use an empty database or --reset`);
          await emptyImportTables(db);
        }
        const label = `PostgreSQL (${explicit ? 'DATABASE_URL' : 'scratch database'})`;
        out(report(await run(label, db, file, false)));
        if (flag('stages')) {
          await emptyImportTables(db);
          out(report(await run(`${label}, timing each stage`, db, file, true)));
        }
      } finally {
        await db.close();
        if (!explicit && !flag('keep-db')) {
          const { default: pg } = await import('pg');
          const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
          await admin.connect();
          await admin.query('DROP DATABASE IF EXISTS market_intel_ingest_bench WITH (FORCE)');
          await admin.end();
          log('dropped the scratch database');
        }
      }
    }
    if (!flag('no-embedded') && EMBEDDED_COUNT > 0) {
      const file = path.join(dir, `awards-embedded-${EMBEDDED_COUNT}.csv`);
      // A data directory of its own, as `npm start` keeps it: a PostgreSQL child process.
      const dataDir = path.join(dir, 'data');
      const db = await openDb({ databaseUrl: null, dataDir });
      try {
        await prepare(db);
        const announced = flag('announcements') ? await storeAnnouncements(db) : [];
        await writeFile(file, syntheticCsv(EMBEDDED_COUNT, vocab, 10_000_000, announced));
        const result = await run('embedded PostgreSQL (DATA_DIR)', db, file, flag('stages'));
        out(report(result));
        if (announced.length > 0) out(await timeLinks(db, result.importMs));
      } finally {
        await db.close();
        // With its cluster, which lives outside DATA_DIR when run as root: a few GB per million awards.
        if (!flag('keep-file')) removeTemporaryDir(dataDir);
      }
    }
  } finally {
    if (flag('keep-file')) log(`kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}

await main();
