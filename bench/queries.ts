/**
 * Latency of the list queries as the API issues them, uncached (no response cache: the store functions
 * themselves, on a pool of the bench database): every documented filter combination of GET /events,
 * /signals, /regimes and of the two exports, each run --runs times with values drawn afresh each time
 * (tickers and agencies by how many events they have, and uniformly, so rare values are in; dates,
 * instants, scores, engines at random), one query at a time. A list is its first page (the default
 * limit of 50, the `limit + 1` the store reads); an export is its first batch — the cursor opened and
 * 1,000 rows read, what the client waits for before the first byte. p50 and p99 per combination, and
 * the combinations over --max-p99 (default 25 ms), which make the exit status 1.
 *
 *   npm run bench:queries -- [--runs 30] [--only events,signals,regimes,exports] [--max-p99 25]
 *                            [--seed 7] [--slowest 15] [--json file]
 *
 * Reads the database of bench/synthetic.ts (DATABASE_URL, default market_intel_bench on 127.0.0.1).
 * The first run of each combination warms nothing on purpose: PostgreSQL's and the kernel's caches are
 * whatever the previous combinations left, as for a server taking varied requests.
 */
import { writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { ENGINES } from '../src/domain/engines/index.ts';
import { CLASSIFICATION_LABELS, REGIME_NAMES } from '../src/domain/types.ts';
import { CONTRACT_SOURCES } from '../src/shapes/resources.ts';
import type { Db } from '../src/store/db.ts';
import { eventsJson } from '../src/store/events.ts';
import { eventExport, openExport, signalExport } from '../src/store/export.ts';
import { regimesJson } from '../src/store/market.ts';
import { signalsJson } from '../src/store/signals.ts';
import {
  arg,
  benchDatabaseUrl,
  fmtInt,
  numberArg,
  openSyntheticDb,
  seededRandom,
  summary,
  table,
} from './common.ts';
import { sampler } from './synthetic-rows.ts';

const RUNS = Math.max(1, Math.floor(numberArg('runs', 30)));
const MAX_P99 = numberArg('max-p99', 25);
const SLOWEST = Math.floor(numberArg('slowest', 15));
const ONLY = new Set((arg('only') ?? 'events,signals,regimes,exports').split(',').map((s) => s.trim()));
const JSON_OUT = arg('json');
/** A combination whose first run takes longer than this gets 3 runs, not --runs (the table says so). */
const SLOW_MS = 1_000;
/** A query is cut off after this long (the API's own QUERY_TIMEOUT_MS is 10 s): it counts as this long. */
const DEADLINE_MS = numberArg('deadline', 3_000);
const { rand } = seededRandom(Math.floor(numberArg('seed', 7)));

/** The filters of GET /events and its export (docs/API.md), `engine` included. */
const EVENT_FILTERS = [
  'engine',
  'ticker',
  'agency',
  'classification',
  'from',
  'to',
  'source',
  'available_from',
  'available_to',
] as const;
/** The filters of GET /signals and its export. */
const SIGNAL_FILTERS = ['engine', 'min_score', 'ticker', 'since', 'available_from', 'available_to'] as const;
const REGIME_FILTERS = ['contract_id', 'dominant'] as const;

type Filter = (typeof EVENT_FILTERS)[number] | (typeof SIGNAL_FILTERS)[number];

/** Every subset of the keys, smallest first. */
function subsets<K extends string>(keys: readonly K[]): K[][] {
  const out: K[][] = [];
  for (let mask = 0; mask < 1 << keys.length; mask++) out.push(keys.filter((_, i) => mask & (1 << i)));
  return out.sort((a, b) => a.length - b.length);
}

const DAY = 86_400_000;
const EARLIEST = Date.UTC(2001, 0, 1);

interface Population {
  tickers: { pick: () => string; uniform: () => string };
  agencies: { pick: () => string; uniform: () => string };
  latest: number;
  computedFirst: number;
  computedLast: number;
  contractIds: string[];
}

/** What the values are drawn from: the bench database's own tickers, agencies, dates and ids. */
async function population(db: Db): Promise<Population> {
  const counts = await db.query<{ ticker: string; agency: string; n: number }>(
    `SELECT ticker, awarding_agency AS agency, count(*)::int AS n FROM contracts WHERE ticker IS NOT NULL
     GROUP BY 1, 2`,
  );
  if (counts.length === 0) throw new Error('the bench database has no events: run npm run bench:synthetic');
  const marginal = (key: 'ticker' | 'agency') => {
    const totals = new Map<string, number>();
    for (const row of counts) totals.set(row[key], (totals.get(row[key]) ?? 0) + row.n);
    const names = [...totals.keys()].sort();
    const byCount = sampler(
      names,
      names.map((n) => totals.get(n) ?? 0),
    );
    return {
      pick: () => byCount(rand()),
      uniform: () => names[Math.floor(rand() * names.length)] as string,
    };
  };
  const [span] = await db.query<{ latest: string; first: string; last: string }>(
    `SELECT (SELECT max(available_at) FROM contracts WHERE ticker IS NOT NULL) AS latest,
       (SELECT min(computed_at) FROM signals) AS first, (SELECT max(computed_at) FROM signals) AS last`,
  );
  const ids = await db.query<{ id: string }>(
    'SELECT id FROM contracts TABLESAMPLE SYSTEM (0.1) REPEATABLE (7) WHERE ticker IS NOT NULL LIMIT 2000',
  );
  return {
    tickers: marginal('ticker'),
    agencies: marginal('agency'),
    latest: new Date(span?.latest ?? Date.now()).getTime(),
    computedFirst: new Date(span?.first ?? Date.now()).getTime(),
    computedLast: new Date(span?.last ?? Date.now()).getTime(),
    contractIds: ids.map((r) => r.id),
  };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const instant = (ms: number) => new Date(ms).toISOString();
const between = (lo: number, hi: number) => lo + rand() * (hi - lo);
const pickOf = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

/** Fresh values for a combination: a range's two bounds are ordered when both are given. */
function draw(p: Population, keys: readonly Filter[]): Record<string, string | number> {
  const has = (k: Filter) => keys.includes(k);
  const v: Record<string, string | number> = {};
  if (has('engine')) v.engine = pickOf(ENGINES).name;
  if (has('ticker')) v.ticker = rand() < 0.7 ? p.tickers.pick() : p.tickers.uniform();
  if (has('agency')) v.agency = (rand() < 0.7 ? p.agencies.pick() : p.agencies.uniform()).toLowerCase();
  if (has('classification')) v.classification = pickOf(CLASSIFICATION_LABELS);
  if (has('source')) v.source = pickOf(CONTRACT_SOURCES);
  if (has('min_score')) v.min_score = Math.floor(rand() * 101);
  const range = (lo: number, hi: number, both: boolean): [number, number] => {
    const a = between(lo, hi);
    const b = between(lo, hi);
    return both ? [Math.min(a, b), Math.max(a, b)] : [a, b];
  };
  const [from, to] = range(EARLIEST, p.latest, has('from') && has('to'));
  if (has('from')) v.from = day(from);
  if (has('to')) v.to = day(to);
  const [af, at] = range(EARLIEST, p.latest, has('available_from') && has('available_to'));
  if (has('available_from')) v.available_from = instant(af);
  if (has('available_to')) v.available_to = instant(at);
  // `since` mostly within the span the signals were computed over, sometimes before it (everything).
  if (has('since')) v.since = instant(between(p.computedFirst - 30 * DAY, p.computedLast));
  return v;
}

function engineOf(v: Record<string, string | number>) {
  const name = (v.engine as string | undefined) ?? 'materiality';
  const engine = ENGINES.find((e) => e.name === name);
  if (!engine) throw new Error(`no engine ${name}`);
  return engine;
}

const eventFilter = (v: Record<string, string | number>) => ({
  engine: engineOf(v).name,
  withRationale: false,
  ticker: v.ticker as string | undefined,
  agency: v.agency as string | undefined,
  classification: v.classification as string | undefined,
  from: v.from as string | undefined,
  to: v.to as string | undefined,
  source: v.source as string | undefined,
  availableFrom: v.available_from as string | undefined,
  availableTo: v.available_to as string | undefined,
});

const signalFilter = (v: Record<string, string | number>) => ({
  engine: engineOf(v).name,
  engineVersion: engineOf(v).version,
  withRationale: false,
  minScore: v.min_score as number | undefined,
  ticker: v.ticker as string | undefined,
  since: v.since as string | undefined,
  availableFrom: v.available_from as string | undefined,
  availableTo: v.available_to as string | undefined,
});

interface Case {
  endpoint: string;
  keys: readonly string[];
  /** One request: its rows, what it ran. */
  run: (v: Record<string, string | number>) => Promise<number>;
  draw: () => Record<string, string | number>;
}

const EXPORT_BATCH = 1000;

async function firstBatch(db: Db, query: { text: string; params: unknown[] }): Promise<number> {
  const cursor = await openExport(db, query, { batchRows: EXPORT_BATCH, idleMs: 60_000 });
  try {
    return (await cursor.read()).length;
  } finally {
    await cursor.close();
  }
}

function cases(db: Db, p: Population): Case[] {
  const out: Case[] = [];
  if (ONLY.has('events') || ONLY.has('exports')) {
    for (const keys of subsets(EVENT_FILTERS)) {
      const drawn = () => draw(p, keys);
      if (ONLY.has('events'))
        out.push({
          endpoint: 'events',
          keys,
          draw: drawn,
          run: async (v) => (await eventsJson(db, { ...eventFilter(v), limit: 50, offset: 0 })).count,
        });
      if (ONLY.has('exports'))
        out.push({
          endpoint: 'events/export',
          keys,
          draw: drawn,
          run: (v) => firstBatch(db, eventExport({ ...eventFilter(v), limit: null }, 'csv')),
        });
    }
  }
  if (ONLY.has('signals') || ONLY.has('exports')) {
    for (const keys of subsets(SIGNAL_FILTERS)) {
      const drawn = () => draw(p, keys);
      if (ONLY.has('signals'))
        out.push({
          endpoint: 'signals',
          keys,
          draw: drawn,
          run: async (v) => (await signalsJson(db, { ...signalFilter(v), limit: 50, offset: 0 })).count,
        });
      if (ONLY.has('exports'))
        out.push({
          endpoint: 'signals/export',
          keys,
          draw: drawn,
          run: (v) => firstBatch(db, signalExport({ ...signalFilter(v), limit: null }, 'csv')),
        });
    }
  }
  if (ONLY.has('regimes')) {
    for (const keys of subsets(REGIME_FILTERS)) {
      out.push({
        endpoint: 'regimes',
        keys,
        draw: () => ({
          ...(keys.includes('contract_id') ? { contract_id: pickOf(p.contractIds) } : {}),
          ...(keys.includes('dominant') ? { dominant: pickOf(REGIME_NAMES) } : {}),
        }),
        run: async (v) =>
          (
            await regimesJson(db, {
              limit: 50,
              contractId: v.contract_id as string | undefined,
              dominant: v.dominant as string | undefined,
            })
          ).count,
      });
    }
  }
  return out;
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;

interface Result {
  endpoint: string;
  filters: string;
  runs: number;
  p50: number;
  p99: number;
  max: number;
  rows: number;
  slowestValues: Record<string, string | number>;
}

async function measure(c: Case): Promise<Result> {
  const ms: number[] = [];
  let rows = 0;
  let worst = { ms: -1, values: {} as Record<string, string | number> };
  for (let i = 0; i < RUNS; i++) {
    const values = c.draw();
    const start = performance.now();
    rows += await c.run(values).catch((error: Error) => {
      if (!/deadline|timeout|unavailable/i.test(error.message)) throw error;
      return 0;
    });
    const took = performance.now() - start;
    ms.push(took);
    if (took > worst.ms) worst = { ms: took, values };
    if (i === 0 && took > SLOW_MS && RUNS > 3) {
      for (let k = 0; k < 2; k++) {
        const more = c.draw();
        const s = performance.now();
        rows += await c.run(more).catch(() => 0);
        const t = performance.now() - s;
        ms.push(t);
        if (t > worst.ms) worst = { ms: t, values: more };
      }
      break;
    }
  }
  ms.sort((a, b) => a - b);
  return {
    endpoint: c.endpoint,
    filters: c.keys.join('+') || '(none)',
    runs: ms.length,
    p50: quantile(ms, 0.5),
    p99: quantile(ms, 0.99),
    max: ms[ms.length - 1] ?? 0,
    rows: rows / ms.length,
    slowestValues: worst.values,
  };
}

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  const db = await openSyntheticDb();
  try {
    const started = performance.now();
    const [{ n }] = (await db.query<{ n: number }>(
      `SELECT reltuples::bigint AS n FROM pg_class WHERE relname = 'contracts'`,
    )) as [{ n: number }];
    const p = await population(db);
    const all = cases(db.withDeadline(DEADLINE_MS), p);
    process.stdout.write(`${all.length} combinations × ${RUNS} runs on ${fmtInt(n)} contracts\n`);
    const results: Result[] = [];
    for (const [k, c] of all.entries()) {
      const r = await measure(c);
      results.push(r);
      if (r.p99 > MAX_P99 || (k + 1) % 50 === 0)
        process.stdout.write(
          `  [${k + 1}/${all.length}] ${r.endpoint} ${r.filters}: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms\n`,
        );
    }
    const fmt = (x: number) => x.toFixed(2);
    console.log(
      table(
        ['endpoint', 'filters', 'runs', 'p50 ms', 'p99 ms', 'max ms', 'rows'],
        results.map((r) => [
          r.endpoint,
          r.filters,
          String(r.runs),
          fmt(r.p50),
          fmt(r.p99),
          fmt(r.max),
          r.rows.toFixed(0),
        ]),
      ),
    );
    const over = results.filter((r) => r.p99 > MAX_P99);
    const byEndpoint = [...new Set(results.map((r) => r.endpoint))].map((endpoint) => {
      const mine = results.filter((r) => r.endpoint === endpoint);
      const worst = mine.reduce((a, b) => (b.p99 > a.p99 ? b : a));
      return [
        endpoint,
        String(mine.length),
        fmt(Math.max(...mine.map((r) => r.p50))),
        `${fmt(worst.p99)} (${worst.filters})`,
        String(mine.filter((r) => r.p99 > MAX_P99).length),
      ];
    });
    const slowest = [...results].sort((a, b) => b.p99 - a.p99).slice(0, SLOWEST);
    console.log(
      summary('bench:queries', [
        `database      ${url.replace(/:[^:@/]*@/, ':***@')} (${fmtInt(n)} contracts)`,
        `combinations  ${results.length}, ${RUNS} runs each with fresh values, uncached, one at a time; ` +
          `${((performance.now() - started) / 1000).toFixed(0)} s`,
        '',
        table(
          ['endpoint', 'combinations', 'worst p50 ms', 'worst p99 ms', `p99 > ${MAX_P99} ms`],
          byEndpoint,
        ),
        '',
        'slowest by p99:',
        table(
          ['endpoint', 'filters', 'p50 ms', 'p99 ms', 'values of the slowest run'],
          slowest.map((r) => [
            r.endpoint,
            r.filters,
            fmt(r.p50),
            fmt(r.p99),
            JSON.stringify(r.slowestValues),
          ]),
        ),
        '',
        `result        ${over.length ? `FAIL: ${over.length} combinations over p99 ${MAX_P99} ms` : 'PASS'}`,
      ]),
    );
    if (JSON_OUT) await writeFile(JSON_OUT, `${JSON.stringify(results, null, 2)}\n`);
    process.exitCode = over.length ? 1 : 0;
  } finally {
    await db.close();
  }
}

await main();
