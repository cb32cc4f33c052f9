import { type Candle, type Company, REGIME_NAMES } from '../domain/types.ts';
import type { CandleDto, ContractDto, RegimeDto } from '../shapes/resources.ts';
import { prepared, type Queryable } from './db.ts';
import {
  type JsonList,
  jsonArray,
  jsonInteger,
  jsonList,
  jsonNumber,
  jsonObject,
  jsonString,
} from './json.ts';
import {
  addAfter,
  type JsonPage,
  jsonPage,
  jsonPageColumns,
  KEYSETS,
  orderBy,
  type Position,
} from './keyset.ts';
import { CONTRACT_COLUMNS, type ListedContractRow, toContract } from './rows.ts';
import { Where } from './where.ts';

/** No company stored: the demo data (or any import) has never run. */
export async function isEmpty(db: Queryable): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM companies LIMIT 1');
  return rows.length === 0;
}

/**
 * Vacuums and analyses every table of the database this role owns: after a bulk load, so that neither
 * the visibility map, the hint bits nor the planner's statistics wait for autovacuum.
 */
export async function vacuumAnalyze(db: Queryable): Promise<void> {
  await db.query('VACUUM (ANALYZE)');
}

export interface CompanyRecord extends Company {
  aliases: string[];
  contract_count: number;
  total_contract_value: number;
}

/** A company's contract count and total value. */
export interface CompanyCounts {
  count: number;
  total: number;
}

/**
 * The ticker's `$1` contracts as (agency, classification, count, value) rows to sum: the cells of the
 * summary of migration 029 and its deltas not yet compacted — or, while a large import has the summary's
 * triggers off (migration 033), the contracts themselves, one row each, so the sums stay exact meanwhile.
 * The deferral's record is read once per statement (a one-time filter), in the statement's snapshot, as
 * the rows are: the import turns the triggers off and on in the transactions that write and clear it.
 */
const TOTALS_CELLS = `SELECT awarding_agency, nlp_classification, count, total_value FROM contract_totals
    WHERE ticker = $1 AND NOT (SELECT EXISTS (SELECT 1 FROM deferred_contract_totals))
  UNION ALL
  SELECT awarding_agency, nlp_classification, count, total_value FROM contract_total_deltas
    WHERE ticker = $1 AND NOT (SELECT EXISTS (SELECT 1 FROM deferred_contract_totals))
  UNION ALL
  SELECT awarding_agency, nlp_classification, 1::bigint, contract_value FROM contracts
    WHERE ticker = $1 AND (SELECT EXISTS (SELECT 1 FROM deferred_contract_totals))`;

/**
 * A stored company with its recent contracts. `counts`: its count and total value when the caller is
 * summing its contracts anyway (the dashboard's company page, by agency and classification), so they are
 * not read a second time; else they are summed here.
 */
export async function getCompany(
  db: Queryable,
  ticker: string,
  recent: number,
  counts?: Promise<CompanyCounts>,
): Promise<{ company: CompanyRecord; recent_contracts: ContractDto[] } | null> {
  // The count and the sum from the summary of migration 029 (a few hundred rows): summed from the
  // ticker's index entries they took 0.4–0.8 s for the busiest ticker's 1.77 M contracts at 10 M.
  const summed = counts
    ? ''
    : `CROSS JOIN LATERAL (SELECT COALESCE(sum(s.count), 0)::int AS contract_count,
         COALESCE(sum(s.total_value), 0)::bigint AS total_contract_value
       FROM (${TOTALS_CELLS}) s) t`;
  const companies = await db.query<CompanyRecord>(
    `SELECT co.ticker, co.name, co.cik, co.exchange, co.sector, co.industry,
       COALESCE((SELECT array_agg(a.alias_norm ORDER BY a.alias_norm) FROM company_aliases a WHERE a.ticker = co.ticker), '{}') AS aliases
       ${counts ? '' : ', t.contract_count, t.total_contract_value'}
     FROM companies co ${summed}
     WHERE co.ticker = $1`,
    [ticker],
  );
  const company = companies[0];
  if (!company) {
    // Not awaited then: its failure is the caller's to report (it awaits the totals too), not unhandled.
    counts?.catch(() => undefined);
    return null;
  }
  if (counts) {
    const { count, total } = await counts;
    company.contract_count = count;
    company.total_contract_value = total;
  }
  return { company, recent_contracts: await recentContracts(db, ticker, recent) };
}

async function recentContracts(db: Queryable, ticker: string, recent: number): Promise<ContractDto[]> {
  const contracts = await db.query<ListedContractRow>(
    `SELECT ${CONTRACT_COLUMNS} FROM contracts c WHERE c.ticker = $1 ORDER BY c.award_date DESC, c.id DESC LIMIT $2`,
    [ticker, recent],
  );
  return contracts.map(toContract);
}

/** A ticker's contract count, total value and most recent contracts, for a ticker with no companies row. */
export async function getTickerContracts(db: Queryable, ticker: string, recent: number) {
  const [totals] = await db.query<{ count: number; total: number }>(
    `SELECT count(*)::int AS count, COALESCE(sum(contract_value), 0)::bigint AS total FROM contracts WHERE ticker = $1`,
    [ticker],
  );
  return {
    count: totals?.count ?? 0,
    total: Number(totals?.total ?? 0),
    contracts: await recentContracts(db, ticker, recent),
  };
}

export interface CandleRange {
  from?: string;
  to?: string;
  limit: number;
}

/** A page of candles as JSON text, with its first and last dates (null when empty). */
export interface CandleListPage extends JsonList {
  first: string | null;
  last: string | null;
}

/**
 * Candles ascending as the API's JSON (schema `Candle`); with a limit and no lower bound, the most recent
 * `limit` bars.
 */
export async function candlesJson(
  db: Queryable,
  ticker: string,
  range: CandleRange,
): Promise<CandleListPage> {
  const page = candlePage(ticker, range);
  const rows = await db.query<CandleListPage>(
    prepared(
      `SELECT ${jsonArray(CANDLE_JSON, 'k.date')} AS json, count(*)::int AS count,
       min(k.date)::text AS first, max(k.date)::text AS last ${page.from}`,
    ),
    page.params,
  );
  const list = jsonList(rows);
  const row = rows[0];
  return { ...list, first: row?.first ?? null, last: row?.last ?? null };
}

/**
 * Whether `range` holds bars beyond a full page of it: with `range.from`, after the page's `last` date
 * (up to `range.to`); without it, before the page's `first`.
 */
export async function moreCandles(
  db: Queryable,
  ticker: string,
  range: CandleRange,
  page: { first: string; last: string },
): Promise<boolean> {
  const rows =
    range.from === undefined
      ? await db.query('SELECT 1 FROM candles WHERE ticker = $1 AND date < $2::date LIMIT 1', [
          ticker,
          page.first,
        ])
      : await db.query(
          `SELECT 1 FROM candles WHERE ticker = $1 AND date > $2::date
           AND ($3::date IS NULL OR date <= $3::date) LIMIT 1`,
          [ticker, page.last, range.to ?? null],
        );
  return rows.length > 0;
}

/**
 * The FROM clause of a ticker's candles in `range`: the subquery `k`, holding the first `limit` bars from
 * `range.from`, or without it the latest `limit` up to `range.to`; with the parameters it numbers.
 */
export function candlePage(ticker: string, range: CandleRange): { from: string; params: unknown[] } {
  const where = new Where()
    .add((p) => `ticker = ${p}`, ticker)
    .add((p) => `date >= ${p}::date`, range.from)
    .add((p) => `date <= ${p}::date`, range.to);
  const limit = where.next(range.limit);
  return {
    from: `FROM (SELECT date, open, high, low, close, adj_close, volume FROM candles ${where.sql()}
           ORDER BY date ${range.from === undefined ? 'DESC' : 'ASC'} LIMIT ${limit}) k`,
    params: where.params,
  };
}

const CANDLE_JSON = jsonObject([
  ['date', jsonString('k.date')],
  ...(['open', 'high', 'low', 'close', 'adj_close'] as const).map((c): [string, string] => [
    c,
    jsonNumber(`k.${c}`),
  ]),
  ['volume', jsonInteger('k.volume')],
]);

export async function hasCandles(db: Queryable, ticker: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM candles WHERE ticker = $1 LIMIT 1', [ticker]);
  return rows.length > 0;
}

/** Domain-shaped candles for computations (weekly bars, regimes). */
export async function candleSeries(
  db: Queryable,
  ticker: string,
  from: string,
  to: string,
): Promise<Candle[]> {
  const rows = await db.query<CandleDto>(
    `SELECT date, open, high, low, close, adj_close, volume FROM candles
     WHERE ticker = $1 AND date BETWEEN $2::date AND $3::date ORDER BY date`,
    [ticker, from, to],
  );
  return rows.map((r) => ({ ...r, adjClose: r.adj_close }));
}

export interface RegimeFilter {
  contractId?: string;
  dominant?: string;
  limit: number;
  /** Continue strictly after this position of the list's order (keyset paging). */
  after?: Position;
}

/**
 * Regimes newest first as the API's JSON (schema `Regime`). A regime is its award date's (the regimes
 * view, migration 008), so a page repeats a few market states: each distinct one is written once.
 */
export async function regimesJson(db: Queryable, filter: RegimeFilter): Promise<JsonPage> {
  const where = new Where()
    .add((p) => `r.contract_id = ${p}`, filter.contractId)
    .add((p) => `r.dominant = ${p}`, filter.dominant);
  addAfter(where, KEYSETS.regimes, filter.after);
  // One row past the page tells whether another page follows.
  const more = where.next(filter.limit + 1);
  const limit = `${where.next(filter.limit)}::int`;
  const rows = await db.query<JsonList & { next: string | null }>(
    prepared(`WITH page AS MATERIALIZED (
       SELECT r.contract_id, r.ticker, r.as_of, r.benchmark, r.dominant, r.scores, r.features, r.engine_version
       FROM regimes r ${where.sql()} ORDER BY ${orderBy(KEYSETS.regimes)} LIMIT ${more}
     ), state AS MATERIALIZED (
       SELECT m.scores, m.features, ${SCORES_JSON} AS scores_json, ${FEATURES_JSON} AS features_json
       FROM (SELECT DISTINCT scores, features FROM page) m
       CROSS JOIN LATERAL jsonb_to_record(m.scores)
         AS sc(risk_on float8, risk_off float8, high_volatility float8, range_bound float8)
     )
     SELECT ${jsonPageColumns(REGIME_JSON, KEYSETS.regimes, limit)}
     FROM page r JOIN state m ON m.scores = r.scores AND m.features = r.features`),
    where.params,
  );
  return jsonPage(rows);
}

/** `scores` in the schema's key order. */
const SCORES_JSON = jsonObject(
  REGIME_NAMES.map((name): [string, string] => [name, jsonNumber(`sc.${name}`)]),
);

/** `features` in its stored order (jsonb's, which JSON.parse kept). */
const FEATURES_JSON = `(SELECT '{' || coalesce(string_agg(to_json(f.key)::text || ':' || ${jsonNumber('f.value::float8')}, ',' ORDER BY f.n), '') || '}'
  FROM jsonb_each_text(m.features) WITH ORDINALITY AS f(key, value, n))`;

const REGIME_JSON = jsonObject([
  ['contract_id', jsonString('r.contract_id')],
  ['ticker', jsonString('r.ticker')],
  ['as_of', jsonString('r.as_of')],
  ['benchmark', jsonString('r.benchmark')],
  ['dominant', jsonString('r.dominant')],
  ['scores', 'm.scores_json'],
  ['features', 'm.features_json'],
  ['engine_version', jsonString('r.engine_version')],
]);

export async function getRegime(db: Queryable, contractId: string): Promise<RegimeDto | null> {
  const rows = await db.query<RegimeDto>(
    `SELECT contract_id, ticker, as_of, benchmark, dominant, scores, features, engine_version FROM regimes
     WHERE contract_id = $1`,
    [contractId],
  );
  return rows[0] ?? null;
}

/** Contracts and their total value under one name (an awarding agency, a classification). */
export interface ContractTotal {
  name: string;
  count: number;
  total_value: number;
}

/**
 * A company's contracts summed by awarding agency and by classification, largest total first, from the
 * summary the database keeps as contracts are written (migration 029): the ticker's (agency,
 * classification) cells and the deltas not yet compacted into them — a few hundred rows even for the
 * busiest ticker — rolled up into both lists. Summed from the contracts (one pass over the ticker's
 * index entries) it took 0.75–0.9 s for 1.77 M contracts at 10 M. A cell whose contracts all went
 * elsewhere sums to a count of 0 and is left out, as a GROUP BY over the contracts would.
 */
export async function companyTotals(
  db: Queryable,
  ticker: string,
): Promise<{ by_agency: ContractTotal[]; by_classification: ContractTotal[] }> {
  const rows = await db.query<ContractTotal & { kind: 'agency' | 'classification' }>(
    `WITH cells AS (
       SELECT awarding_agency, nlp_classification, sum(count) AS count, sum(total_value) AS total_value
       FROM (${TOTALS_CELLS}) s
       GROUP BY awarding_agency, nlp_classification HAVING sum(count) <> 0)
     SELECT CASE WHEN GROUPING(awarding_agency) = 0 THEN 'agency' ELSE 'classification' END AS kind,
       CASE WHEN GROUPING(awarding_agency) = 0 THEN awarding_agency ELSE nlp_classification END AS name,
       sum(count)::int AS count, sum(total_value)::bigint AS total_value
     FROM cells GROUP BY GROUPING SETS ((awarding_agency), (nlp_classification))
     ORDER BY total_value DESC, name`,
    [ticker],
  );
  const pick = (kind: string) =>
    rows.filter((r) => r.kind === kind).map(({ name, count, total_value }) => ({ name, count, total_value }));
  return { by_agency: pick('agency'), by_classification: pick('classification') };
}

/** The count and total value of the contracts totalled by `companyTotals` (every contract has one agency). */
export const countsOfTotals = (totals: { by_agency: readonly ContractTotal[] }): CompanyCounts => ({
  count: totals.by_agency.reduce((sum, t) => sum + t.count, 0),
  total: totals.by_agency.reduce((sum, t) => sum + Number(t.total_value), 0),
});

/** The first and last days a ticker has candles for; null when it has none. */
export async function candleRange(
  db: Queryable,
  ticker: string,
): Promise<{ first: string; last: string } | null> {
  const rows = await db.query<{ first: string | null; last: string | null }>(
    'SELECT min(date)::text AS first, max(date)::text AS last FROM candles WHERE ticker = $1',
    [ticker],
  );
  const row = rows[0];
  return row?.first && row.last ? { first: row.first, last: row.last } : null;
}
