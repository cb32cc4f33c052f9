import type { SignalDto } from '../shapes/resources.ts';
import { prepared, type Queryable } from './db.ts';
import type { JsonList } from './json.ts';
import {
  addAfter,
  type JsonPage,
  jsonPage,
  jsonPageColumns,
  KEYSETS,
  orderBy,
  type Position,
} from './keyset.ts';
import {
  CONTRACT_COLUMNS,
  CONTRACT_JSON,
  type ListedContractRow,
  SIGNAL_COLUMNS,
  type SignalRow,
  signalColumns,
  signalJson,
  toSignal,
  widened,
} from './rows.ts';
import { Where } from './where.ts';

export interface SignalFilter {
  engine: string;
  withRationale: boolean;
  engineVersion: string;
  minScore?: number;
  ticker?: string;
  since?: string;
  availableFrom?: string;
  availableTo?: string;
  /** The contract's nlp_classification. */
  classification?: string;
  /** The contract's award_date on or after / on or before (YYYY-MM-DD). */
  awardFrom?: string;
  awardTo?: string;
  limit: number;
  offset: number;
  /** Continue strictly after this position of the list's order (keyset paging). */
  after?: Position;
}

/** The leading key of the signals list's indexes: must match migration 011's expression exactly. */
const ENGINE_HASH = (name: string, version: string) => `hashtext(${name} || '@' || ${version})`;

/**
 * Signals of one engine version, best first, each with its contract, as the API's JSON (schema
 * `SignalItem`).
 */
export async function signalsJson(db: Queryable, filter: SignalFilter): Promise<JsonPage> {
  // One row past the page tells whether another page follows.
  const page = signalPage({ ...filter, limit: filter.limit + 1 });
  const limit = `$${page.params.push(filter.limit)}::int`;
  const item = signalItemJson(filter.withRationale);
  const rows = await db.query<JsonList & { next: string | null }>(
    prepared(`SELECT ${jsonPageColumns(item, KEYSETS.signals, limit)} ${page.from}`),
    page.params,
  );
  return widened(jsonPage(rows), filter.withRationale);
}

/** One item of the signals list (schema `SignalItem`) as JSON text, from the signal `s` and its contract `c`. */
export const signalItemJson = (withRationale: boolean) =>
  `'{"signal":' || ${signalJson(withRationale)} || ',"contract":' || ${CONTRACT_JSON} || '}'`;

/**
 * The FROM clause of the filter's page: signals `s` of one engine version, best first, each joined to
 * its contract `c`, with the parameters it numbers. A null `limit` is no limit (the export's).
 */
export function signalPage(
  filter: Omit<SignalFilter, 'withRationale' | 'limit'> & { limit: number | null },
): { from: string; params: unknown[] } {
  const where = new Where();
  const engine = where.next(filter.engine);
  const version = where.next(filter.engineVersion);
  where.clauses.push(
    `s.engine_name = ${engine}`,
    `s.engine_version = ${version}`,
    // What the list's indexes lead with (migration 011).
    `${ENGINE_HASH('s.engine_name', 's.engine_version')} = ${ENGINE_HASH(`${engine}::text`, `${version}::text`)}`,
  );
  where
    .add((p) => `s.signal_score >= ${p}`, filter.minScore)
    .add((p) => `s.ticker = ${p}`, filter.ticker)
    .add((p) => `s.computed_at >= ${p}::timestamptz`, filter.since)
    // The contract's availability, as copied onto the signal (migration 028): tested on the list index's
    // entry, not by looking the contract up for every signal walked.
    .add((p) => `s.available_at >= ${p}::timestamptz`, filter.availableFrom)
    .add((p) => `s.available_at <= ${p}::timestamptz`, filter.availableTo)
    .add(
      (p) => `EXISTS (SELECT 1 FROM contracts a WHERE a.id = s.contract_id AND a.nlp_classification = ${p})`,
      filter.classification,
    )
    .add(
      (p) => `EXISTS (SELECT 1 FROM contracts a WHERE a.id = s.contract_id AND a.award_date >= ${p}::date)`,
      filter.awardFrom,
    )
    .add(
      (p) => `EXISTS (SELECT 1 FROM contracts a WHERE a.id = s.contract_id AND a.award_date <= ${p}::date)`,
      filter.awardTo,
    );
  addAfter(where, KEYSETS.signals, filter.after);
  if (filter.limit === null) {
    // The export's every row: flattened into the statement, not a subquery planned apart for all its
    // rows (see eventPage).
    return {
      from: `FROM (SELECT s.* FROM signals s ${where.sql()}) s
     JOIN contracts c ON c.id = s.contract_id`,
      params: where.params,
    };
  }
  const limit = where.next(filter.limit);
  const offset = where.next(filter.offset);
  return {
    from: `FROM (SELECT s.* FROM signals s ${where.sql()}
           ORDER BY ${orderBy(KEYSETS.signals)} LIMIT ${limit} OFFSET ${offset}) s
     JOIN contracts c ON c.id = s.contract_id`,
    params: where.params,
  };
}

/** The most recent signal of an engine (any version) on a contract. */
export async function latestSignal(
  db: Queryable,
  contractId: string,
  engine: string,
): Promise<SignalDto | null> {
  const rows = await db.query<SignalRow>(
    `SELECT ${signalColumns(true)} FROM signals s WHERE s.contract_id = $1 AND s.engine_name = $2
     ORDER BY s.computed_at DESC LIMIT 1`,
    [contractId, engine],
  );
  const row = rows[0];
  return row ? toSignal(row) : null;
}

/**
 * The signals of `ids` with their contracts, in creation order. `announced_before`: the event was made
 * public already by the other side of its link — an award linked to its announcement, or an
 * announcement of an award that was stored first (their links point at each other).
 */
export function signalsWithContracts(
  db: Queryable,
  ids: readonly string[],
): Promise<(ListedContractRow & SignalRow & { announced_before: boolean })[]> {
  return db.query<ListedContractRow & SignalRow & { announced_before: boolean }>(
    `SELECT ${CONTRACT_COLUMNS}, ${SIGNAL_COLUMNS},
       c.linked_id IS NOT NULL AND (c.source = 'usaspending'
         OR EXISTS (SELECT 1 FROM contracts o WHERE o.id = c.linked_id AND o.linked_id = c.id)) AS announced_before
     FROM signals s JOIN contracts c ON c.id = s.contract_id
     WHERE s.id = ANY($1::uuid[]) ORDER BY s.computed_at, s.id`,
    [ids],
  );
}
