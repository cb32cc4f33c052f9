/**
 * EXPLAINs every documented filter combination of the list endpoints and the exports (docs/API.md:
 * every subset of /events' engine, ticker, agency, classification, from, to, source, available_from and
 * available_to; of /signals' engine, min_score, ticker, since, available_from and available_to; of
 * /regimes' contract_id and dominant) exactly as the store issues them
 * (every filter + sort combination must be served by an index): the store functions run against a
 * Queryable that prefixes `EXPLAIN (FORMAT JSON)` and keeps the plan; an export is EXPLAINed as the
 * cursor it runs as (`DECLARE` with the export's cursor_tuple_fraction), and --analyze times its first
 * batch. Any Seq Scan on contracts,
 * signals, market_regimes or candles is reported, and makes the exit status 1; so does a first page
 * whose Sort is fed more than --max-sort rows (default 20,000), the sign of an ORDER BY no index serves
 * (a deep offset may have to sort what it skips: flagged, not failed). Regimes are listed through the
 * `regimes` view (contracts ⋈ market_regimes), LIMIT 200, for every dominant value.
 *
 *   npm run bench:explain -- [--analyze] [--offsets 0,10000] [--values popular|rare|both] [--max-sort 20000]
 *                            [--verbose]
 *
 * Reads the database of bench/synthetic.ts (DATABASE_URL, default market_intel_bench on 127.0.0.1).
 */
import { announcementDv } from '../src/domain/engines/announcement-dv.ts';
import { materiality } from '../src/domain/engines/materiality.ts';
import { REGIME_NAMES } from '../src/domain/types.ts';
import { CURSOR_TUPLE_FRACTION, type Db, type Queryable } from '../src/store/db.ts';
import { eventsJson, getEvent } from '../src/store/events.ts';
import { eventExport, signalExport } from '../src/store/export.ts';
import { candlesJson, companyTotals, getCompany, getRegime, regimesJson } from '../src/store/market.ts';
import { latestSignal, signalsJson } from '../src/store/signals.ts';
import { arg, benchDatabaseUrl, flag, numberArg, openSyntheticDb, summary, table } from './common.ts';

const WATCHED = new Set(['contracts', 'signals', 'market_regimes', 'candles']);
const ANALYZE = flag('analyze');
const MAX_SORT = numberArg('max-sort', 20_000);
const VERBOSE = flag('verbose');
const OFFSETS = (arg('offsets') ?? '0,10000').split(',').map((o) => Number(o.trim()));
const VALUES = arg('values') ?? 'popular';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Total Cost'?: number;
  'Plan Rows'?: number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Actual Total Time'?: number;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

interface Explained {
  plan: PlanNode;
  executionMs?: number;
  sql: string;
  params: readonly unknown[];
}

/** An export's first batch, what a client waits for before its first byte (src/http/export.ts). */
const EXPORT_BATCH = 1000;

/** Prefixes every query with EXPLAIN and records the plan instead of returning rows. */
class Explainer implements Queryable {
  readonly captured: Explained[] = [];
  constructor(private readonly db: Db) {}

  async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
    const options = ANALYZE ? 'ANALYZE, BUFFERS, FORMAT JSON' : 'FORMAT JSON';
    const rows = await this.db.query<{ 'QUERY PLAN': { Plan: PlanNode; 'Execution Time'?: number }[] }>(
      `EXPLAIN (${options}) ${text}`,
      params,
    );
    const root = rows[0]?.['QUERY PLAN'][0];
    if (!root) throw new Error(`no plan for: ${text}`);
    this.captured.push({
      plan: root.Plan,
      executionMs: root['Execution Time'],
      sql: text,
      params: params ?? [],
    });
    return [];
  }

  /**
   * An export's statement as it runs: a cursor (`DECLARE`) in a transaction with the export's
   * `cursor_tuple_fraction` (Db.openCursor), so planned for its first rows — EXPLAIN of the bare
   * statement plans it for all of them (a sequential scan and a sort, where the cursor walks an index).
   * With --analyze, the time of its first batch (the cursor opened, 1,000 rows read), not of every row.
   */
  async cursor(text: string, params: readonly unknown[]): Promise<void> {
    const rows = await this.db.transaction(async (tx) => {
      await tx.query(`SET LOCAL cursor_tuple_fraction = ${CURSOR_TUPLE_FRACTION}`);
      return tx.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (FORMAT JSON) DECLARE explained NO SCROLL CURSOR FOR ${text}`,
        params,
      );
    });
    const root = rows[0]?.['QUERY PLAN'][0];
    if (!root) throw new Error(`no plan for: ${text}`);
    let executionMs: number | undefined;
    if (ANALYZE) {
      const started = performance.now();
      const cursor = await this.db.openCursor(text, params, { batchRows: EXPORT_BATCH, idleMs: 60_000 });
      try {
        await cursor.read();
      } finally {
        await cursor.close();
      }
      executionMs = performance.now() - started;
    }
    this.captured.push({ plan: root.Plan, executionMs, sql: text, params });
  }
}

/** Rows a node returns: measured with --analyze, estimated otherwise. */
function rowsOut(node: PlanNode): number {
  if (node['Actual Rows'] !== undefined) return node['Actual Rows'] * (node['Actual Loops'] ?? 1);
  return node['Plan Rows'] ?? 0;
}

function walk(node: PlanNode, visit: (n: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

interface Case {
  endpoint: string;
  filters: string;
  offset: number | '';
  run: (q: Explainer) => Promise<unknown>;
}

/** Every subset of the given keys, smallest first. */
function subsets<K extends string>(keys: readonly K[]): K[][] {
  const out: K[][] = [];
  for (let mask = 0; mask < 1 << keys.length; mask++) out.push(keys.filter((_, i) => mask & (1 << i)));
  return out.sort((a, b) => a.length - b.length);
}

async function pickValues(db: Db, which: 'popular' | 'rare') {
  const order = which === 'popular' ? 'DESC' : 'ASC';
  const one = async <T>(sql: string): Promise<T> => {
    const [row] = await db.query<{ v: T }>(sql);
    if (!row) throw new Error(`the bench database is empty (${sql}); run npm run bench:synthetic first`);
    return row.v;
  };
  return {
    ticker: await one<string>(
      `SELECT ticker AS v FROM contracts WHERE ticker IS NOT NULL GROUP BY ticker ORDER BY count(*) ${order}, ticker LIMIT 1`,
    ),
    agency: await one<string>(
      `SELECT awarding_agency AS v FROM contracts WHERE ticker IS NOT NULL GROUP BY 1 ORDER BY count(*) ${order}, 1 LIMIT 1`,
    ),
    classification: await one<string>(
      `SELECT nlp_classification AS v FROM contracts WHERE ticker IS NOT NULL GROUP BY 1 ORDER BY count(*) ${order}, 1 LIMIT 1`,
    ),
    dominant: await one<string>(
      `SELECT dominant AS v FROM regimes GROUP BY 1 ORDER BY count(*) ${order}, 1 LIMIT 1`,
    ),
    contractId: await one<string>('SELECT contract_id AS v FROM regimes ORDER BY as_of DESC LIMIT 1'),
    candleTicker: await one<string>(
      `SELECT ticker AS v FROM candles GROUP BY 1 ORDER BY count(*) ${order}, 1 LIMIT 1`,
    ),
  };
}

function cases(v: Awaited<ReturnType<typeof pickValues>>, label: string): Case[] {
  const out: Case[] = [];
  // `engine` in a combination: the rarest engine (announcement events only), else the default.
  const rare = announcementDv;
  const eventValues = {
    engine: rare.name,
    ticker: v.ticker,
    agency: v.agency,
    classification: v.classification,
    from: '2020-01-01',
    to: '2024-12-31',
    source: 'announcement',
    availableFrom: '2019-06-01T00:00:00Z',
    availableTo: '2023-06-30T21:00:00Z',
  };
  const eventKeys = [
    'engine',
    'ticker',
    'agency',
    'classification',
    'from',
    'to',
    'source',
    'availableFrom',
    'availableTo',
  ] as const;
  for (const keys of subsets(eventKeys)) {
    const filter = { engine: materiality.name, ...Object.fromEntries(keys.map((k) => [k, eventValues[k]])) };
    const filters = keys.join('+') || '(none)';
    for (const offset of OFFSETS) {
      out.push({
        endpoint: `events ${label}`,
        filters,
        offset,
        run: (q) => eventsJson(q, { withRationale: false, limit: 50, offset, ...filter }),
      });
    }
    out.push({
      endpoint: `events/export ${label}`,
      filters,
      offset: '',
      run: (q) => {
        const e = eventExport({ withRationale: false, limit: null, ...filter }, 'csv');
        return q.cursor(e.text, e.params);
      },
    });
  }
  const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const signalValues = {
    engine: rare,
    minScore: 75,
    ticker: v.ticker,
    since,
    availableFrom: '2019-06-01T00:00:00Z',
    availableTo: '2023-06-30T21:00:00Z',
  };
  for (const keys of subsets([
    'engine',
    'minScore',
    'ticker',
    'since',
    'availableFrom',
    'availableTo',
  ] as const)) {
    const { engine: chosen, ...values } = Object.fromEntries(
      keys.map((k) => [k, signalValues[k]]),
    ) as Partial<typeof signalValues>;
    const engine = chosen ?? materiality;
    const filter = { engine: engine.name, engineVersion: engine.version, withRationale: false, ...values };
    const filters = keys.join('+') || '(none)';
    for (const offset of OFFSETS) {
      out.push({
        endpoint: `signals ${label}`,
        filters,
        offset,
        run: (q) => signalsJson(q, { limit: 50, offset, ...filter }),
      });
    }
    out.push({
      endpoint: `signals/export ${label}`,
      filters,
      offset: '',
      run: (q) => {
        const e = signalExport({ limit: null, ...filter }, 'csv');
        return q.cursor(e.text, e.params);
      },
    });
  }
  // The largest page the endpoint serves; every dominant value, since the rarest is the hardest to fill.
  const regimeLimit = 200;
  out.push({
    endpoint: `regimes ${label}`,
    filters: `contractId+dominant=${v.dominant}`,
    offset: '',
    run: (q) => regimesJson(q, { limit: regimeLimit, contractId: v.contractId, dominant: v.dominant }),
  });
  if (label === 'popular') {
    out.push(
      {
        endpoint: 'regimes',
        filters: '(none)',
        offset: '',
        run: (q) => regimesJson(q, { limit: regimeLimit }),
      },
      { endpoint: 'regime', filters: 'contractId', offset: '', run: (q) => getRegime(q, v.contractId) },
      ...REGIME_NAMES.map((dominant) => ({
        endpoint: 'regimes',
        filters: `dominant=${dominant}`,
        offset: '' as const,
        run: (q: Explainer) => regimesJson(q, { limit: regimeLimit, dominant }),
      })),
    );
  }
  const candleValues = { from: '2015-01-01', to: '2020-12-31' };
  for (const keys of subsets(['from', 'to'] as const)) {
    const range = Object.fromEntries(keys.map((k) => [k, candleValues[k]]));
    out.push({
      endpoint: `candles ${label}`,
      filters: ['ticker', ...keys].join('+'),
      offset: '',
      run: (q) => candlesJson(q, v.candleTicker, { limit: 500, ...range }),
    });
  }
  out.push(
    {
      endpoint: 'contract',
      filters: 'id',
      offset: '',
      run: (q) => getEvent(q, v.contractId, materiality.name),
    },
    {
      endpoint: 'contract score',
      filters: 'id+engine',
      offset: '',
      run: (q) => latestSignal(q, v.contractId, materiality.name),
    },
    { endpoint: `company ${label}`, filters: 'ticker', offset: '', run: (q) => getCompany(q, v.ticker, 20) },
    {
      endpoint: `company totals ${label}`,
      filters: 'ticker',
      offset: '',
      run: (q) => companyTotals(q, v.ticker),
    },
  );
  return out;
}

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  const db = await openSyntheticDb();
  try {
    const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts')) as [
      { n: number },
    ];
    const all: Case[] = [];
    const labels: ('popular' | 'rare')[] =
      VALUES === 'both' ? ['popular', 'rare'] : [VALUES === 'rare' ? 'rare' : 'popular'];
    const picked: string[] = [];
    for (const label of labels) {
      const values = await pickValues(db, label);
      picked.push(`${label}: ${JSON.stringify(values)}`);
      all.push(...cases(values, label).map((c) => ({ ...c, endpoint: c.endpoint.replace(/ popular$/, '') })));
    }

    const rows: string[][] = [];
    const offenders: { c: Case; e: Explained; nodes: string[] }[] = [];
    for (const c of all) {
      const explainer = new Explainer(db);
      await c.run(explainer);
      for (const e of explainer.captured) {
        const indexes = new Set<string>();
        const seq: string[] = [];
        const sorts: string[] = [];
        let sortedRows: number | undefined;
        walk(e.plan, (node) => {
          if (node['Index Name']) indexes.add(node['Index Name']);
          if (node['Node Type'] === 'Seq Scan' && WATCHED.has(node['Relation Name'] ?? '')) {
            seq.push(`${node['Relation Name']}`);
          }
          if (node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort') {
            sorts.push(node['Node Type']);
            // An incremental sort reads only what the limit needs; its estimate is the whole input.
            if (node['Node Type'] === 'Sort' || ANALYZE)
              sortedRows = Math.max(sortedRows ?? 0, ...(node.Plans ?? []).map(rowsOut));
          }
        });
        if (seq.length) offenders.push({ c, e, nodes: seq.map((r) => `Seq Scan on ${r}`) });
        const sorted = sortedRows === undefined ? '' : ` (${sortedRows.toLocaleString('en-US')} rows)`;
        const bigSort = (sortedRows ?? 0) > MAX_SORT;
        if (bigSort && !c.offset) offenders.push({ c, e, nodes: [`Sort${sorted}`] });
        rows.push([
          c.endpoint,
          c.filters,
          String(c.offset),
          [...indexes].join(', ') || '-',
          sorts.length ? `${sorts.join(',')}${sorted}` : '-',
          seq.length ? `SEQ SCAN ${seq.join(',')}` : bigSort ? 'BIG SORT' : 'ok',
          (e.plan['Total Cost'] ?? 0).toFixed(0),
          ...(ANALYZE ? [e.executionMs === undefined ? '' : e.executionMs.toFixed(2)] : []),
        ]);
        if (VERBOSE) console.log(JSON.stringify(e.plan, null, 2));
      }
    }

    console.log(
      table(
        [
          'endpoint',
          'filters',
          'offset',
          'indexes used',
          'sort',
          'verdict',
          'cost',
          ...(ANALYZE ? ['exec ms'] : []),
        ],
        rows,
      ),
    );
    for (const { c, e, nodes } of offenders) {
      console.log(`\n--- ${c.endpoint} [${c.filters}] offset ${c.offset}: ${nodes.join(', ')}`);
      console.log(`SQL: ${e.sql.replace(/\s+/g, ' ')}`);
      console.log(`params: ${JSON.stringify(e.params)}`);
      console.log(JSON.stringify(e.plan, null, 2));
    }
    const times = rows.map((r) => Number(r[7])).filter((t) => Number.isFinite(t));
    console.log(
      summary('bench:explain', [
        `database        ${url.replace(/:[^:@/]*@/, ':***@')} (${n.toLocaleString('en-US')} contracts)`,
        `values          ${picked.join('\n                ')}`,
        `queries planned ${rows.length} (offsets ${OFFSETS.join(', ')}${ANALYZE ? ', with ANALYZE' : ''})`,
        ...(ANALYZE && times.length
          ? [
              `slowest         ${Math.max(...times).toFixed(2)} ms; median ${times.sort((a, b) => a - b)[Math.floor(times.length / 2)]?.toFixed(2)} ms`,
            ]
          : []),
        `offenders       ${offenders.length ? offenders.map((o) => `${o.c.endpoint} [${o.c.filters}] offset ${o.c.offset}: ${o.nodes.join(', ')}`).join('; ') : 'none'}`,
        `result          ${offenders.length ? 'FAIL' : 'PASS'}`,
      ]),
    );
    process.exitCode = offenders.length ? 1 : 0;
  } finally {
    await db.close();
  }
}

await main();
