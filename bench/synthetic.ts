/**
 * Fills a PostgreSQL database with a synthetic, realistically shaped data set for the benchmarks: N
 * contracts (default 1,000,000; the DoD award history since 2001 is ~10 M) over ~500 tickers of the
 * companies table with a heavy-tailed popularity, ~40 agencies, the 14 classification labels, award
 * dates 2001-01-01 … 2026-10-31 (leaning to recent years, written in date order with a few days of
 * jitter, as a history loaded file by file and then appended daily lies in the table) and log-normal
 * values; both sources as the schema stores them — DoD
 * announcement events (≈ 2.5 %: their paragraphs, PIIDs, links to the USAspending award they became and
 * a stored prediction each) and USAspending awards; ~90 % of the awards resolved to a ticker. Every
 * event with a ticker gets a signal from each engine that scores it, computed by the real engines:
 * materiality and regime-aware for all, announcement-size and announcement-dv for the announcement
 * events they score. One market_regimes row per calendar day (the `regimes` view joins them to the
 * contracts, migration 008) and daily candles for every ticker used and the three benchmarks.
 *
 *   npm run bench:synthetic -- [--contracts 1000000] [--chunk 50000] [--workers 1] [--seed 42]
 *                              [--tickers 500] [--matched 0.9] [--announced 0.025] [--logged]
 *                              [--no-candles] [--reset]
 *
 * (`--count` is an alias of `--contracts`.) How it is fast: the rows are generated in node (worker
 * threads with --workers) as COPY text and streamed on two connections at once, contracts on one and
 * signals on the other, each `COPY … FREEZE` into a table truncated in the same transaction (no hint
 * bits or vacuum to write later) and UNLOGGED (no WAL); every index and primary key is dropped first
 * and built at the end, two at a time, then ANALYZE. The tables stay UNLOGGED — the same pages and
 * plans as logged ones, but emptied by a crash recovery; `--logged` turns them back (a full rewrite
 * through the WAL). Each chunk draws from a seed of its own, so the data set depends on the seed alone,
 * not on the number of workers.
 *
 * DATABASE_URL picks the database; by default the scratch database `market_intel_bench` on
 * 127.0.0.1:5432 is dropped and created anew. Another database must be empty, or pass --reset to
 * empty its market tables first.
 */
import { totalmem } from 'node:os';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { normalizeName } from '../src/domain/names.ts';
import { DEMO_DATA_DIR } from '../src/pipeline/seed.ts';
import { loadDemoCompanies } from '../src/sources/companies.ts';
import { type Db, openDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { insertAliases, upsertCompanies } from '../src/store/writes.ts';
import {
  arg,
  benchDatabaseUrl,
  ensureDatabase,
  flag,
  fmtInt,
  isDefaultBenchUrl,
  numberArg,
  summary,
  table,
} from './common.ts';
import {
  ANNOUNCEMENT_COLUMNS,
  type AnnouncementText,
  bulkChunk,
  type Chunk,
  CONTRACT_COLUMNS,
  type Company,
  DAY_MS,
  Draws,
  FIRST_DAY,
  type GenSpec,
  isoDate,
  LAST_DAY,
  PREDICTION_COLUMNS,
  PRIMES,
  regimeCalendar,
  SIGNAL_COLUMNS,
  SPAN_DAYS,
} from './synthetic-rows.ts';
import type { WorkerRequest } from './synthetic-worker.ts';

const COUNT = Math.floor(numberArg('contracts', numberArg('count', 1_000_000)));
const CHUNK = Math.max(1000, Math.floor(numberArg('chunk', 50_000)));
const WORKERS = Math.floor(numberArg('workers', 1));
const SEED = Math.floor(numberArg('seed', 42));
const TICKERS = Math.max(PRIMES.length, Math.floor(numberArg('tickers', 500)));
const MATCHED = numberArg('matched', 0.9);
const ANNOUNCED = numberArg('announced', 0.025);
const WITH_CANDLES = !flag('no-candles');
const LOGGED = flag('logged');
const RESET = flag('reset');
if (arg('batch') !== undefined || arg('parallel') !== undefined || flag('keep-indexes'))
  throw new Error('--batch, --parallel and --keep-indexes are gone: the load is COPY on two connections');

/** The tables the load fills (truncated in its transactions, unlogged, their indexes built after). */
const LOADED = [
  'contracts',
  'signals',
  'market_regimes',
  'candles',
  'announcements',
  'announcement_piids',
  'predictions',
] as const;

const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => (Date.now() - since) / 1000;

// ---------------------------------------------------------------- setup

async function loadCompanies(db: Db): Promise<void> {
  const started = Date.now();
  try {
    const { companies, aliases } = await loadDemoCompanies(DEMO_DATA_DIR);
    for (let i = 0; i < companies.length; i += 5000) await upsertCompanies(db, companies.slice(i, i + 5000));
    const known = new Set(companies.map((c) => c.ticker));
    await insertAliases(
      db,
      aliases
        .filter((a) => known.has(a.ticker))
        .map((a) => ({ aliasNorm: normalizeName(a.alias), ticker: a.ticker, source: a.source })),
    );
    log(`companies: ${fmtInt(companies.length)} loaded from ${DEMO_DATA_DIR} in ${Date.now() - started} ms`);
  } catch (error) {
    const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')) as [
      { n: number },
    ];
    if (n > 0) {
      log(
        `companies: demo data unavailable (${(error as Error).message}); using the ${n} already in the table`,
      );
      return;
    }
    log(
      `companies: demo data unavailable (${(error as Error).message}); generating ${TICKERS} synthetic companies`,
    );
    const rows = Array.from({ length: TICKERS }, (_, i) => ({
      ticker: i < PRIMES.length ? (PRIMES[i] as string) : `SYN${i}`,
      name: `SYNTHETIC COMPANY ${i} INC`,
      cik: String(1_000_000 + i).padStart(10, '0'),
      exchange: 'NYSE',
      sector: 'Industrials',
      industry: 'Aerospace & Defense',
    }));
    await upsertCompanies(db, rows);
  }
}

/** ~TICKERS companies, S&P 500 members first (they carry a sector), the demo primes at the head. */
async function chooseTickers(db: Db): Promise<Company[]> {
  const rows = await db.query<Company>(
    `SELECT ticker, name, sector, industry FROM companies
     WHERE ticker NOT IN ('SPY', 'XLI', 'ITA')
     ORDER BY (sector IS NULL), md5(ticker || $1) LIMIT $2`,
    [String(SEED), TICKERS],
  );
  const head = PRIMES.flatMap((t) => rows.filter((r) => r.ticker === t));
  const rest = rows.filter((r) => !PRIMES.includes(r.ticker));
  return [...head, ...rest];
}

interface Rebuild {
  table: string;
  name: string;
  /** The statement that builds it again: CREATE INDEX, or ALTER TABLE … ADD CONSTRAINT for a key. */
  sql: string;
}

/**
 * Empties the loaded tables, drops their indexes and primary keys and makes the tables UNLOGGED. How
 * to build each again is recorded in `deferred_indexes` in the transaction that drops it (as an
 * import's deferred indexes are, src/store/deferred-indexes.ts), so a run that stops half-way leaves
 * the record: the next run builds them, and so does the service's `migrate` at its next start.
 * Truncating contracts truncates signals through its trigger; the session runs as a replica so that no
 * trigger fires at all (the loads' own TRUNCATEs rely on it too). So neither does the one that keeps
 * the contracts' totals (migration 029): they are emptied here and summed in one pass at the end
 * (`TOTALS`), not row by row during the load.
 */
async function prepareTables(client: pg.Client): Promise<Rebuild[]> {
  await client.query('SET session_replication_role = replica');
  await client.query(`TRUNCATE ${LOADED.join(', ')}, contract_totals, contract_total_deltas`);
  await client.query('BEGIN');
  const { rows } = await client.query<Rebuild & { constraint: boolean }>(
    `SELECT t.relname AS table, c.relname AS name, co.conname IS NOT NULL AS constraint,
       CASE WHEN co.conname IS NOT NULL
         THEN format('ALTER TABLE %I ADD CONSTRAINT %I %s', t.relname, co.conname, pg_get_constraintdef(co.oid))
         ELSE pg_get_indexdef(i.indexrelid) END AS sql
     FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       LEFT JOIN pg_constraint co ON co.conindid = i.indexrelid AND co.contype IN ('p', 'u')
     WHERE n.nspname = 'public' AND t.relname = ANY($1)`,
    [LOADED],
  );
  for (const r of rows) {
    await client.query('INSERT INTO deferred_indexes (name, table_name, definition) VALUES ($1, $2, $3)', [
      r.name,
      r.table,
      r.sql,
    ]);
    await client.query(
      r.constraint ? `ALTER TABLE ${r.table} DROP CONSTRAINT ${r.name}` : `DROP INDEX ${r.name}`,
    );
  }
  await client.query('COMMIT');
  for (const t of LOADED) await client.query(`ALTER TABLE ${t} SET UNLOGGED`);
  const recorded = await client.query<Rebuild>(
    'SELECT table_name AS table, name, definition AS sql FROM deferred_indexes WHERE table_name = ANY($1)',
    [LOADED],
  );
  return recorded.rows;
}

/**
 * A database a run left half-way: its tables are emptied before `migrate` builds the indexes that run
 * recorded (on empty tables, at once).
 */
async function emptyBeforeMigrate(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ present: boolean }>(
    `SELECT to_regclass('deferred_indexes') IS NOT NULL AND to_regclass('contracts') IS NOT NULL AS present`,
  );
  if (!rows[0]?.present) return;
  const pending = await client.query('SELECT 1 FROM deferred_indexes WHERE table_name = ANY($1) LIMIT 1', [
    LOADED,
  ]);
  if (pending.rowCount) await client.query(`TRUNCATE ${LOADED.join(', ')}`);
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('SET synchronous_commit = off');
  await client.query('SET session_replication_role = replica');
  return client;
}

// ---------------------------------------------------------------- COPY streams

/**
 * One table's load: a transaction that truncates it and streams `COPY … FREEZE` (allowed because the
 * table was truncated in the same transaction: the rows are written frozen and all-visible).
 */
class TableLoad {
  private readonly sink: NodeJS.WritableStream & { on(event: string, fn: (e?: Error) => void): unknown };
  private failure: Error | undefined;
  rows = 0;
  private constructor(
    readonly client: pg.Client,
    sink: TableLoad['sink'],
  ) {
    this.sink = sink;
    sink.on('error', (error) => {
      this.failure = error;
    });
  }

  static async open(client: pg.Client, table: string, columns: readonly string[]): Promise<TableLoad> {
    await client.query('BEGIN');
    await client.query(`TRUNCATE ${table}`);
    const sink = client.query(copyFromStdin(`COPY ${table} (${columns.join(', ')}) FROM STDIN (FREEZE)`));
    return new TableLoad(client, sink as unknown as TableLoad['sink']);
  }

  /** Writes COPY text; resolves once the stream can take more (backpressure). */
  async write(text: string | Uint8Array, rows: number): Promise<void> {
    if (this.failure) throw this.failure;
    this.rows += rows;
    if (text.length === 0 || this.sink.write(text)) return;
    await new Promise<void>((resolve, reject) => {
      const onDrain = () => {
        this.sink.removeListener('error', onError);
        resolve();
      };
      const onError = (error?: Error) => {
        this.sink.removeListener('drain', onDrain);
        reject(error);
      };
      this.sink.once('drain', onDrain);
      this.sink.once('error', onError);
    });
  }

  async finish(): Promise<void> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve, reject) => {
      this.sink.on('finish', () => resolve());
      this.sink.on('error', (error) => reject(error));
      this.sink.end();
    });
    await this.client.query('COMMIT');
  }
}

/** A small table loaded whole: one transaction, one COPY FREEZE. */
async function loadWhole(
  client: pg.Client,
  table: string,
  columns: readonly string[],
  lines: Iterable<string>,
): Promise<number> {
  const load = await TableLoad.open(client, table, columns);
  let batch: string[] = [];
  let rows = 0;
  for (const line of lines) {
    batch.push(line);
    rows += 1;
    if (batch.length === 10_000) {
      await load.write(batch.join(''), batch.length);
      batch = [];
    }
  }
  await load.write(batch.join(''), batch.length);
  await load.finish();
  return rows;
}

/** A small table whose COPY text is ready: one transaction, one COPY FREEZE. */
async function loadText(
  client: pg.Client,
  table: string,
  columns: readonly string[],
  text: Uint8Array,
  rows: number,
): Promise<number> {
  const load = await TableLoad.open(client, table, columns);
  await load.write(text, rows);
  await load.finish();
  return rows;
}

// ---------------------------------------------------------------- small tables

function* regimeLines(spec: GenSpec): Generator<string> {
  for (let k = 0; k <= SPAN_DAYS; k++) {
    const r = spec.regimes[k];
    if (!r) continue;
    yield `${isoDate(FIRST_DAY + k * DAY_MS)}\t${r.asOf}\t${r.benchmark}\t${r.dominant}\t` +
      `${JSON.stringify(r.scores)}\t${JSON.stringify(r.features)}\t${r.version}\t${new Date(Date.UTC(2026, 9, 31, 22)).toISOString()}\n`;
  }
}

/** Business-day random walks for the chosen tickers and the three benchmarks, 2000-01-03 on. */
function* candleLines(tickers: readonly string[], d: Draws): Generator<string> {
  const days: string[] = [];
  for (let t = Date.UTC(2000, 0, 3); t <= LAST_DAY; t += DAY_MS) {
    const dow = new Date(t).getUTCDay();
    if (dow !== 0 && dow !== 6) days.push(isoDate(t));
  }
  const r = (x: number) => Math.round(x * 1e4) / 1e4;
  for (const ticker of tickers) {
    let close = 10 + d.rand() * 190;
    const vol = 0.01 + d.rand() * 0.02;
    for (const date of days) {
      const open = close * (1 + d.normal() * vol * 0.3);
      close = Math.max(0.5, close * Math.exp(d.normal() * vol + 0.0003));
      const high = Math.max(open, close) * (1 + d.rand() * vol);
      const low = Math.min(open, close) * (1 - d.rand() * vol);
      yield `${ticker}\t${date}\t${r(open)}\t${r(high)}\t${r(low)}\t${r(close)}\t${r(close * 0.97)}\t` +
        `${Math.floor(1e5 + d.rand() * 5e6)}\n`;
    }
  }
}

// ---------------------------------------------------------------- worker threads

/** A generator thread (bench/synthetic-worker.ts), tsx's loader registered before its TypeScript entry. */
function generatorThread(spec: GenSpec): Worker {
  const api = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./synthetic-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: spec });
}

/** The announcement phase, generated on a thread of its own while the main thread loads candles. */
async function announcementsInThread(spec: GenSpec, events: number): Promise<AnnouncementText> {
  const worker = generatorThread(spec);
  try {
    return await new Promise<AnnouncementText>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage({ kind: 'announcements', events } satisfies WorkerRequest);
    });
  } finally {
    await worker.terminate();
  }
}

// ---------------------------------------------------------------- the bulk phase

/**
 * Chunks in order: generated by `WORKERS` worker threads (a few chunks ahead) or inline when 0, and
 * handed to `consume` one at a time in chunk order.
 */
async function forEachChunk(spec: GenSpec, consume: (chunk: Chunk) => Promise<void>): Promise<void> {
  const total = Math.ceil(spec.bulk / CHUNK);
  const bounds = (index: number) => ({
    index,
    start: index * CHUNK,
    size: Math.min(CHUNK, spec.bulk - index * CHUNK),
  });
  if (WORKERS === 0) {
    for (let index = 0; index < total; index++) {
      const b = bounds(index);
      await consume(bulkChunk(spec, b.index, b.start, b.size));
    }
    return;
  }
  // tsx's loader is registered in each worker before it imports the TypeScript entry.
  const api = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./synthetic-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  const workers = Array.from(
    { length: WORKERS },
    () => new Worker(bootstrap, { eval: true, workerData: spec }),
  );
  const pending = new Map<number, { resolve: (c: Chunk) => void; reject: (e: Error) => void }>();
  const results = new Map<number, Promise<Chunk>>();
  for (const w of workers) {
    w.on('message', (chunk: Chunk) => {
      pending.get(chunk.index)?.resolve(chunk);
      pending.delete(chunk.index);
    });
    w.on('error', (error) => {
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    });
  }
  const request = (index: number) => {
    results.set(
      index,
      new Promise<Chunk>((resolve, reject) => {
        pending.set(index, { resolve, reject });
        workers[index % WORKERS]?.postMessage({ kind: 'bulk', ...bounds(index) } satisfies WorkerRequest);
      }),
    );
  };
  // Two chunks per worker in flight: one generating, one waiting to be written.
  const ahead = 2 * WORKERS;
  for (let index = 0; index < Math.min(total, ahead); index++) request(index);
  try {
    for (let index = 0; index < total; index++) {
      const chunk = await (results.get(index) as Promise<Chunk>);
      results.delete(index);
      if (index + ahead < total) request(index + ahead);
      await consume(chunk);
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

// ---------------------------------------------------------------- index builds

/**
 * The contracts' totals by ticker, agency and classification (migration 029), summed in one GROUP BY
 * once the contracts are loaded: queued with the index builds, on whichever connection is free.
 */
const TOTALS: Rebuild = {
  table: 'contracts',
  name: 'contract_totals',
  sql: 'SELECT rebuild_contract_totals()',
};

/**
 * Each of the two builds' sort memory: a sixth of the RAM (4 GB on a 24 GB machine). With 1 GB the sorts
 * of a 10 M build spilled ≈ 11 GB to temporary files (pg_stat_database: 19 files; the signals' indexes
 * sort 18.5 M entries of 60–200 bytes each), written, read back and merged. Two builds at once take a
 * third of the RAM at most, leaving the rest to the page cache the builds read the tables through.
 */
const SORT_MEMORY_MB = Math.floor(totalmem() / 6 / 2 ** 20);

/**
 * Builds the dropped indexes and keys on two connections at once, largest table first (each build
 * single-threaded with a large sort memory: two builds keep both cores busy).
 */
async function rebuild(clients: pg.Client[], rebuilds: Rebuild[], sizes: Map<string, number>): Promise<void> {
  const queue = [...rebuilds].sort((a, b) => (sizes.get(b.table) ?? 0) - (sizes.get(a.table) ?? 0));
  await Promise.all(
    clients.map(async (client) => {
      await client.query(`SET maintenance_work_mem = '${SORT_MEMORY_MB}MB'`);
      await client.query('SET max_parallel_maintenance_workers = 0');
      for (let next = queue.shift(); next; next = queue.shift()) {
        const t = Date.now();
        await client.query(next.sql);
        await client.query('DELETE FROM deferred_indexes WHERE name = $1', [next.name]);
        log(`  built ${next.table}.${next.name} in ${seconds(t).toFixed(1)} s`);
      }
    }),
  );
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  const safeUrl = url.replace(/:[^:@/]*@/, ':***@');
  const started = Date.now();
  const state = await ensureDatabase(url, { recreate: isDefaultBenchUrl(url) });
  log(`database ${safeUrl}: ${isDefaultBenchUrl(url) ? 'recreated' : state}`);
  const db = await openDb({ databaseUrl: url, dataDir: '' });
  const clients = [await connect(url), await connect(url)] as [pg.Client, pg.Client];
  try {
    if (RESET) await emptyBeforeMigrate(clients[0]);
    const applied = await migrate(db);
    log(`migrations: ${applied.length ? applied.join(', ') : 'up to date'}`);
    const [{ n: existing }] = (await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM (SELECT 1 FROM contracts LIMIT 1) x',
    )) as [{ n: number }];
    if (existing > 0 && !RESET)
      throw new Error(`${safeUrl} already holds contracts; pass --reset to empty it`);

    await loadCompanies(db);
    const companies = await chooseTickers(db);
    if (companies.length === 0) throw new Error('no companies to draw tickers from');
    // Zipf-like popularity: rank r gets weight 1 / r^1.1, so the top dozen tickers take ~35 % of awards.
    const popularity = companies.map((_, r) => 1 / (r + 1) ** 1.1);
    const popTotal = popularity.reduce((a, b) => a + b, 0);
    const perYearAll = (COUNT * MATCHED) / (SPAN_DAYS / 365);
    const main = new Draws(SEED);
    const spec: GenSpec = {
      seed: SEED,
      bulk: 0,
      matched: MATCHED,
      companies,
      popularity,
      perYear: popularity.map((w) => Math.round((perYearAll * w) / popTotal)),
      regimes: regimeCalendar(main),
    };

    const rebuilds = await prepareTables(clients[0]);
    log(
      `prepared: ${LOADED.length} tables emptied and unlogged, ${rebuilds.length} indexes and keys dropped`,
    );

    // The announcement phase on a thread while regimes and candles are generated and loaded here.
    const smallStarted = Date.now();
    const phase = announcementsInThread(spec, Math.round(COUNT * ANNOUNCED));
    const regimeRows = await loadWhole(
      clients[0],
      'market_regimes',
      ['award_date', 'as_of', 'benchmark', 'dominant', 'scores', 'features', 'engine_version', 'computed_at'],
      regimeLines(spec),
    );
    let candleRows = 0;
    if (WITH_CANDLES) {
      candleRows = await loadWhole(
        clients[1],
        'candles',
        ['ticker', 'date', 'open', 'high', 'low', 'close', 'adj_close', 'volume'],
        candleLines([...companies.map((c) => c.ticker), 'SPY', 'XLI', 'ITA'], main),
      );
    }
    const announced = await phase;
    const announcementRows = await loadText(
      clients[0],
      'announcements',
      ANNOUNCEMENT_COLUMNS,
      announced.announcements,
      announced.rows.announcements,
    );
    await loadText(
      clients[0],
      'announcement_piids',
      ['event_id', 'piid'],
      announced.piids,
      announced.rows.piids,
    );
    const predictionRows = await loadText(
      clients[0],
      'predictions',
      PREDICTION_COLUMNS,
      announced.predictions,
      announced.rows.predictions,
    );
    const smallSeconds = seconds(smallStarted);
    const fromAnnouncements = announced.events + announced.linkedAwards;
    if (fromAnnouncements > COUNT) throw new Error(`--announced ${ANNOUNCED} leaves no room for awards`);
    spec.bulk = COUNT - fromAnnouncements;
    log(
      `announcement phase: ${fmtInt(announced.rows.announcements)} paragraphs, ${fmtInt(announced.events)} events, ` +
        `${fmtInt(announced.linkedAwards)} linked awards, ${fmtInt(announced.rows.signals)} signals; ` +
        `regimes ${fmtInt(regimeRows)}, candles ${fmtInt(candleRows)}: ${smallSeconds.toFixed(1)} s`,
    );
    log(
      `drawing ${fmtInt(spec.bulk)} awards from ${companies.length} tickers (top: ${companies
        .slice(0, 5)
        .map((c) => c.ticker)
        .join(', ')}), chunks of ${fmtInt(CHUNK)}, ${WORKERS} worker thread(s)`,
    );

    // Contracts on one connection, signals on the other, each one COPY FREEZE for the whole load.
    const loadStarted = Date.now();
    const contracts = await TableLoad.open(clients[0], 'contracts', CONTRACT_COLUMNS);
    const signals = await TableLoad.open(clients[1], 'signals', SIGNAL_COLUMNS);
    await Promise.all([
      contracts.write(announced.contracts, announced.rows.contracts),
      signals.write(announced.signals, announced.rows.signals),
    ]);
    let lastReport = 0;
    await forEachChunk(spec, async (chunk) => {
      await Promise.all([
        contracts.write(chunk.contracts, chunk.contractRows),
        signals.write(chunk.signals, chunk.signalRows),
      ]);
      const done = contracts.rows;
      if (done - lastReport >= Math.max(250_000, COUNT / 20) || done === COUNT) {
        lastReport = done;
        const elapsed = seconds(loadStarted);
        const rate = done / elapsed;
        log(
          `contracts ${fmtInt(done)}/${fmtInt(COUNT)} (${((100 * done) / COUNT).toFixed(0)}%)  ` +
            `signals ${fmtInt(signals.rows)}  ${fmtInt(rate)} contracts/s  ` +
            `${fmtInt((done + signals.rows) / elapsed)} rows/s  ETA load ${((COUNT - done) / rate).toFixed(0)} s`,
        );
      }
    });
    await Promise.all([contracts.finish(), signals.finish()]);
    const loadSeconds = seconds(loadStarted);
    log(
      `load: ${fmtInt(contracts.rows)} contracts, ${fmtInt(signals.rows)} signals in ${loadSeconds.toFixed(1)} s`,
    );

    const indexStarted = Date.now();
    log(`building ${rebuilds.length} indexes and keys, two at a time`);
    const { rows: pages } = await clients[0].query<{ name: string; pages: string }>(
      `SELECT relname AS name, pg_relation_size(oid) AS pages FROM pg_class WHERE relname = ANY($1)`,
      [LOADED],
    );
    await rebuild(clients, [...rebuilds, TOTALS], new Map(pages.map((p) => [p.name, Number(p.pages)])));
    const indexSeconds = seconds(indexStarted);

    const analyzeStarted = Date.now();
    await Promise.all([
      clients[0].query('ANALYZE contracts, market_regimes, announcements, announcement_piids, companies'),
      clients[1].query('ANALYZE signals, candles, predictions, company_aliases'),
    ]);
    const analyzeSeconds = seconds(analyzeStarted);
    let loggedSeconds = 0;
    if (LOGGED) {
      const l = Date.now();
      for (const name of LOADED) await clients[0].query(`ALTER TABLE ${name} SET LOGGED`);
      loggedSeconds = seconds(l);
      log(`set logged in ${loggedSeconds.toFixed(1)} s`);
    }

    const sizes = await db.query<{ name: string; rows: number; bytes: number; visible: number }>(
      `SELECT c.relname AS name, c.reltuples::bigint AS rows, pg_total_relation_size(c.oid) AS bytes,
         CASE WHEN c.relpages > 0 THEN round(100.0 * c.relallvisible / c.relpages) ELSE 100 END AS visible
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname = ANY($1)
       ORDER BY pg_total_relation_size(c.oid) DESC`,
      [[...LOADED, 'companies', 'company_aliases']],
    );
    const [{ bytes: dbBytes }] = (await db.query<{ bytes: number }>(
      'SELECT pg_database_size(current_database()) AS bytes',
    )) as [{ bytes: number }];
    const total = seconds(started);
    log(
      summary('bench:synthetic', [
        `database              ${safeUrl} (${LOGGED ? 'logged' : 'UNLOGGED tables'})`,
        `contracts             ${fmtInt(contracts.rows)}: ${fmtInt(spec.bulk)} USAspending awards, ` +
          `${fmtInt(announced.events)} DoD announcement events, ${fmtInt(announced.linkedAwards)} awards linked to them`,
        `signals               ${fmtInt(signals.rows)} (materiality and regime-aware on every event with a ticker; ` +
          `announcement-size and announcement-dv on the announcement events they score)`,
        `announcements         ${fmtInt(announcementRows)} paragraphs, ${fmtInt(predictionRows)} predictions`,
        `market regimes        ${fmtInt(regimeRows)} (one per calendar day)`,
        `candles               ${fmtInt(candleRows)}`,
        `small tables          ${smallSeconds.toFixed(1)} s`,
        `contract+signal load  ${loadSeconds.toFixed(1)} s = ${fmtInt(contracts.rows / loadSeconds)} contracts/s, ` +
          `${fmtInt((contracts.rows + signals.rows) / loadSeconds)} rows/s, ${WORKERS} worker thread(s)`,
        `index build           ${indexSeconds.toFixed(1)} s (${rebuilds.length} indexes and keys, 2 at a time)`,
        `analyze               ${analyzeSeconds.toFixed(1)} s${LOGGED ? `; set logged ${loggedSeconds.toFixed(1)} s` : ''}`,
        `total                 ${total.toFixed(1)} s`,
        `database size         ${(dbBytes / 1024 / 1024 / 1024).toFixed(2)} GB`,
        '',
        table(
          ['table', 'rows (est.)', 'size with indexes', 'all-visible'],
          sizes.map((s) => [
            s.name,
            fmtInt(s.rows),
            `${(s.bytes / 1024 / 1024).toFixed(0)} MB`,
            `${s.visible}%`,
          ]),
        ),
      ]),
    );
  } finally {
    await Promise.all(clients.map((c) => c.end()));
    await db.close();
  }
}

await main();
