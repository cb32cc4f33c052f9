/**
 * The pipeline's reads of stored contracts: which of a batch are stored already, the facts an engine
 * scores, the selections `score` and imports rescore, and each ticker's award history for the trailing
 * statistics. (The API's reads of contracts are in events.ts; the writes in writes.ts.)
 */

import type { DatedValue } from '../domain/trailing.ts';
import type { EngineInput } from '../domain/types.ts';
import type { Queryable } from './db.ts';
import { joinIds, storedContractsAmong } from './writes.ts';

/**
 * The contract facts an engine needs, as stored; `unscored`: no signal of any engine is stored for it
 * yet (a contract this run inserted), so its signal rows can be copied straight in.
 */
export type ScoredContract = EngineInput['contract'] & { unscored?: boolean };

/** An engine's identity as the signals table keys it. */
export interface EngineVersion {
  name: string;
  version: string;
  /** The sources the engine scores (every source when absent): an event of another source is never unscored by it. */
  sources?: readonly ContractSource[];
}

/** An engine's sources as one text for SQL: '' for every source, else comma-separated. */
const sourcesText = (engine: EngineVersion): string => engine.sources?.join(',') ?? '';

/**
 * Which of `ids` are stored, and which stored, matched ones lack a signal of some engine in `engines`
 * (left by an import that stopped between storing and scoring). One probe for the whole batch.
 */
export async function storedAndUnscored(
  db: Queryable,
  ids: readonly string[],
  engines: readonly EngineVersion[],
): Promise<{ stored: Set<string>; unscored: string[] }> {
  const rows = await db.query<{ id: string; unscored: boolean }>(
    `SELECT c.id, c.unscored FROM ${storedContractsAmong(
      '$1',
      `c.id, c.ticker IS NOT NULL AND EXISTS (
           SELECT 1 FROM unnest($2::text[], $3::text[], $4::text[]) AS e(name, version, sources)
         WHERE (e.sources = '' OR c.source = ANY(string_to_array(e.sources, ','))) AND NOT EXISTS (
           SELECT 1 FROM signals s WHERE s.contract_id = c.id AND s.engine_name = e.name AND s.engine_version = e.version)
       ) AS unscored`,
    )}`,
    [joinIds(ids), engines.map((e) => e.name), engines.map((e) => e.version), engines.map(sourcesText)],
  );
  return {
    stored: new Set(rows.map((r) => r.id)),
    unscored: rows.filter((r) => r.unscored).map((r) => r.id),
  };
}

/** Which stored, matched contracts to (re)score. */
export type StoredSelection =
  | { kind: 'changed-since'; since: Date }
  | { kind: 'ids'; ids: readonly string[] }
  | { kind: 'unscored-by'; engine: EngineVersion }
  | { kind: 'all' };

function condition(selection: StoredSelection): { sql: string; params: unknown[] } {
  switch (selection.kind) {
    case 'all':
      return { sql: 'TRUE', params: [] };
    case 'ids':
      return { sql: 'c.id = ANY($1::text[])', params: [selection.ids] };
    case 'changed-since':
      return { sql: 'c.updated_at >= $1::timestamptz', params: [selection.since.toISOString()] };
    case 'unscored-by':
      return {
        sql: `($3 = '' OR c.source = ANY(string_to_array($3, ','))) AND
          NOT EXISTS (SELECT 1 FROM signals s WHERE s.contract_id = c.id AND s.engine_name = $1 AND s.engine_version = $2)`,
        params: [selection.engine.name, selection.engine.version, sourcesText(selection.engine)],
      };
  }
}

/** How many matched contracts of each ticker the selection holds, in ticker order. */
export async function countSelectedByTicker(
  db: Queryable,
  selection: StoredSelection,
): Promise<{ ticker: string; n: number }[]> {
  const where = condition(selection);
  return db.query<{ ticker: string; n: number }>(
    `SELECT c.ticker, count(*)::int AS n FROM contracts c WHERE c.ticker IS NOT NULL AND ${where.sql}
     GROUP BY c.ticker ORDER BY c.ticker`,
    where.params,
  );
}

/** The selection's contracts of `tickers` (all matched ones, without `tickers`), in id order. */
export async function selectedContracts(
  db: Queryable,
  selection: StoredSelection,
  tickers?: readonly string[],
): Promise<ScoredContract[]> {
  const where = condition(selection);
  const byTicker =
    tickers === undefined ? 'c.ticker IS NOT NULL' : `c.ticker = ANY($${where.params.length + 1}::text[])`;
  return db.query<ScoredContract>(
    `SELECT c.id, c.ticker, c.contract_value AS value, c.award_date AS "awardDate",
       c.awarding_agency AS "awardingAgency", c.nlp_classification AS classification,
       c.match_confidence AS "matchConfidence",
       NOT EXISTS (SELECT 1 FROM signals s WHERE s.contract_id = c.id) AS unscored
     FROM contracts c WHERE ${byTicker} AND ${where.sql}
     ORDER BY c.id`,
    tickers === undefined ? where.params : [...where.params, tickers],
  );
}

/** Where an event comes from: its id says (`DOD_ANN_…` announcements, `CONT_AWD_…` awards). */
export type ContractSource = 'usaspending' | 'announcement';
export const sourceOf = (id: string | undefined): ContractSource =>
  id?.startsWith('DOD_ANN_') ? 'announcement' : 'usaspending';

/**
 * Each ticker's stored events of one source dated in its span (`from` inclusive, `until` exclusive), in
 * date order, keyed by `historyKey`. A source's history stays its own: an award and its announcement
 * are one action, and counting both would count it twice.
 */
export async function awardHistory(
  db: Queryable,
  spans: readonly { ticker: string; source: ContractSource; from: string; until: string }[],
): Promise<Map<string, DatedValue[]>> {
  const rows = await db.query<{ ticker: string; source: ContractSource; date: string; value: number }>(
    `SELECT c.ticker, c.source, c.award_date AS date, c.contract_value AS value
     FROM unnest($1::text[], $2::text[], $3::date[], $4::date[]) AS span(ticker, source, from_date, until_date)
       JOIN contracts c ON c.ticker = span.ticker AND c.award_date >= span.from_date AND c.award_date < span.until_date
         AND c.source = span.source
     ORDER BY c.ticker, c.source, c.award_date`,
    [
      spans.map((s) => s.ticker),
      spans.map((s) => s.source),
      spans.map((s) => s.from),
      spans.map((s) => s.until),
    ],
  );
  const history = new Map<string, DatedValue[]>();
  for (const row of rows) {
    const key = historyKey(row.source, row.ticker);
    const list = history.get(key) ?? [];
    list.push({ date: row.date, value: row.value });
    history.set(key, list);
  }
  return history;
}

/** Awards keep the ticker as their key (as before announcements existed); announcements are apart. */
export const historyKey = (source: ContractSource, ticker: string): string =>
  source === 'announcement' ? `announcement:${ticker}` : ticker;

/** Whether `contracts` holds more than `n` rows (reads at most n + 1 of them). */
export async function holdsMoreThan(db: Queryable, n: number): Promise<boolean> {
  const [held] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM (SELECT 1 FROM contracts LIMIT $1) AS held',
    [n + 1],
  );
  return (held?.n ?? 0) > n;
}
