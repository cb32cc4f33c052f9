/**
 * Deep pages by offset against the same pages by cursor, on a large table, in one run: the store's list
 * queries (what GET /api/v1/events and /signals run) for the page after --depth rows, once with
 * `offset` and once continuing from the position of the row before it, each --runs times (median
 * and max reported, after one warm-up each). Both must return the same bytes. Also prints each query's
 * plan, so the index the cursor page starts from is visible.
 *
 * A temporary embedded PostgreSQL is filled with --rows synthetic events (one ticker in 50, dates over
 * 20 years, so many rows share a day) and a signal each (scores 0-100: long runs of ties).
 *
 *   npm run bench:cursor -- [--rows 300000] [--depth 100000] [--limit 50] [--runs 15]
 *
 * With --database, the database of bench/synthetic.ts (DATABASE_URL, default market_intel_bench) is
 * read instead, nothing filled: the page after each of --depths rows (default 0, 1,000, 10,000,
 * 100,000, 1,000,000 and 5,000,000) of the events list, of the busiest ticker's events and of the
 * signals list, by cursor at every depth and by offset up to the API's largest (1,000,000).
 *
 *   npm run bench:cursor -- --database [--depths 0,1000,10000,100000,1000000,5000000] [--runs 15]
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { defaultEngine } from '../src/domain/engines/index.ts';
import { type Db, openDb, openTemporaryDb } from '../src/store/db.ts';
import { eventsJson } from '../src/store/events.ts';
import type { JsonPage } from '../src/store/keyset.ts';
import { migrate } from '../src/store/migrate.ts';
import { signalsJson } from '../src/store/signals.ts';
import { arg, benchDatabaseUrl, flag, fmtInt, fmtMs, numberArg, table } from './common.ts';

const ROWS = numberArg('rows', 300_000);
const DEPTH = numberArg('depth', 100_000);
const LIMIT = numberArg('limit', 50);
const RUNS = numberArg('runs', 15);

const engine = defaultEngine();

async function fill(db: Db): Promise<void> {
  await db.query(
    `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
       nlp_classification, match_confidence, match_method)
     SELECT 'CONT_AWD_B' || g || '_9700_-NONE-_-NONE-', 'T' || (g % 50), 'RECIPIENT ' || (g % 5000),
       date '2006-01-01' + (g::int8 * 7919 % 7300)::int, 1000 + g, 'Department of Defense', 'aircraft', 0.9, 'exact'
     FROM generate_series(1, $1::int) g`,
    [ROWS],
  );
  await db.query(
    `INSERT INTO signals (id, contract_id, ticker, engine_name, engine_version, engine_tier, signal_score,
       importance_score, confidence_score, risk_score, rationale, computed_at, available_at)
     SELECT gen_random_uuid(), c.id, c.ticker, $1, $2, 'developer', (hashtext(c.id) & 1023) % 101, 50, 50, 50,
       '[]', timestamptz '2025-01-01' + (hashtext(c.id || 'x') & 65535) * interval '1 second', c.available_at
     FROM contracts c`,
    [engine.name, engine.version],
  );
  await db.query('ANALYZE contracts');
  await db.query('ANALYZE signals');
}

interface Timing {
  median: number;
  max: number;
  page: JsonPage;
}

async function time(run: () => Promise<JsonPage>): Promise<Timing> {
  let page = await run();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    page = await run();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)] ?? 0, max: ms.at(-1) ?? 0, page };
}

/** The plan's node lines, without costs: which index each query enters and whether it sorts. */
async function plan(db: Db, run: (q: Db) => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const explaining: Db = {
    ...db,
    query: async <T>(text: string, params?: readonly unknown[]) => {
      const rows = await db.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${text}`,
        params,
      );
      lines.push(...rows.map((r) => r['QUERY PLAN']));
      return [] as T[];
    },
  };
  await run(explaining);
  return lines.filter((l) => /Scan|Sort|Limit|Index Cond|Rows Removed/.test(l)).map((l) => l.trimEnd());
}

async function compare(db: Db, list: 'events' | 'signals') {
  const base = { engine: engine.name, withRationale: false, limit: LIMIT };
  const query =
    list === 'events'
      ? (q: Db, page: { offset: number; limit?: number; after?: readonly string[] }) =>
          eventsJson(q, { ...base, ...page })
      : (q: Db, page: { offset: number; limit?: number; after?: readonly string[] }) =>
          signalsJson(q, { ...base, engineVersion: engine.version, ...page });
  // The position of the row just before the deep page: the cursor a client walking there would hold.
  const before = await query(db, { offset: DEPTH - 1, limit: 1 });
  if (!before.next) throw new Error(`${list}: fewer than ${DEPTH} rows`);
  const after = before.next;
  const byOffset = await time(() => query(db, { offset: DEPTH }));
  const byCursor = await time(() => query(db, { offset: 0, after }));
  if (byOffset.page.json !== byCursor.page.json) throw new Error(`${list}: the two pages differ`);
  return {
    list,
    byOffset,
    byCursor,
    plans: {
      offset: await plan(db, (q) => query(q, { offset: DEPTH })),
      cursor: await plan(db, (q) => query(q, { offset: 0, after })),
    },
  };
}

/** The API's largest offset: deeper pages exist only by cursor. */
const MAX_OFFSET = 1_000_000;

/**
 * --database: the page after each depth, by cursor (and by offset up to MAX_OFFSET), on the lists of
 * the synthetic database. The position at a depth is read once by offset (the row before the page).
 */
async function depths(db: Db): Promise<void> {
  const list = (arg('depths') ?? '0,1000,10000,100000,1000000,5000000').split(',').map(Number);
  const [busiest] = await db.query<{ ticker: string }>(
    `SELECT ticker FROM contracts WHERE ticker IS NOT NULL GROUP BY ticker ORDER BY count(*) DESC LIMIT 1`,
  );
  const base = { engine: engine.name, withRationale: false, limit: LIMIT };
  type Page = { offset: number; limit?: number; after?: readonly string[] };
  const lists: [string, (q: Db, page: Page) => Promise<JsonPage>][] = [
    ['events', (q, page) => eventsJson(q, { ...base, ...page })],
    [
      `events ticker=${busiest?.ticker}`,
      (q, page) => eventsJson(q, { ...base, ticker: busiest?.ticker, ...page }),
    ],
    ['signals', (q, page) => signalsJson(q, { ...base, engineVersion: engine.version, ...page })],
  ];
  const rows: string[][] = [];
  for (const [name, query] of lists) {
    for (const depth of list) {
      const before = depth === 0 ? null : await query(db, { offset: depth - 1, limit: 1 });
      if (depth > 0 && !before?.next) {
        rows.push([name, fmtInt(depth), 'fewer rows', '', '', '']);
        continue;
      }
      const after = before?.next ?? undefined;
      const byCursor = await time(() => query(db, { offset: 0, after }));
      const byOffset = depth <= MAX_OFFSET ? await time(() => query(db, { offset: depth })) : null;
      if (byOffset && byOffset.page.json !== byCursor.page.json)
        throw new Error(`${name} ${depth}: pages differ`);
      rows.push([
        name,
        fmtInt(depth),
        fmtMs(byCursor.median),
        fmtMs(byCursor.max),
        byOffset ? fmtMs(byOffset.median) : `— (> ${fmtInt(MAX_OFFSET)})`,
        byOffset ? fmtMs(byOffset.max) : '',
      ]);
      process.stdout.write(`${rows.at(-1)?.join('  ')}\n`);
    }
  }
  process.stdout.write(
    `\n${table(['list', 'depth (rows before the page)', 'cursor median', 'cursor max', 'offset median', 'offset max'], rows)}\n`,
  );
}

if (flag('database')) {
  const db = await openDb(loadConfig({ DATABASE_URL: benchDatabaseUrl() }));
  try {
    process.stdout.write(`${benchDatabaseUrl()}: page of ${LIMIT}, ${RUNS} runs each after one warm-up\n`);
    await depths(db);
  } finally {
    await db.close();
  }
} else {
  const db = await openTemporaryDb();
  try {
    await migrate(db);
    const start = performance.now();
    await fill(db);
    process.stdout.write(
      `${fmtInt(ROWS)} events and signals in ${((performance.now() - start) / 1000).toFixed(1)} s; ` +
        `page of ${LIMIT} after ${fmtInt(DEPTH)} rows, ${RUNS} runs each\n\n`,
    );
    const results = [await compare(db, 'events'), await compare(db, 'signals')];
    process.stdout.write(
      `${table(
        ['list', 'offset median', 'offset max', 'cursor median', 'cursor max', 'offset / cursor'],
        results.map((r) => [
          r.list,
          fmtMs(r.byOffset.median),
          fmtMs(r.byOffset.max),
          fmtMs(r.byCursor.median),
          fmtMs(r.byCursor.max),
          `${(r.byOffset.median / r.byCursor.median).toFixed(0)}×`,
        ]),
      )}\n`,
    );
    for (const r of results) {
      process.stdout.write(`\n${r.list}, offset ${fmtInt(DEPTH)}:\n  ${r.plans.offset.join('\n  ')}\n`);
      process.stdout.write(`${r.list}, cursor:\n  ${r.plans.cursor.join('\n  ')}\n`);
    }
  } finally {
    await db.close();
  }
}
