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

/** How many of signalPage's clauses choose the engine version (the rest filter its signals). */
const ENGINE_CLAUSES = 3;

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
  let since: string | undefined;
  let availableFrom: string | undefined;
  let availableTo: string | undefined;
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
    .add((p) => {
      since = p;
      return `s.computed_at >= ${p}::timestamptz`;
    }, filter.since)
    // The contract's availability, as copied onto the signal (migration 028): tested on the list index's
    // entry, not by looking the contract up for every signal walked.
    .add((p) => {
      availableFrom = p;
      return `s.available_at >= ${p}::timestamptz`;
    }, filter.availableFrom)
    .add((p) => {
      availableTo = p;
      return `s.available_at <= ${p}::timestamptz`;
    }, filter.availableTo)
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
  const filters = where.clauses.length;
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
  // Beyond the walk (a deep offset) the walk cannot hold the page: the list's walk as before. So too with
  // a ticker: its own index walks only its signals, where the month-by-month part would test every
  // ticker's signals of the window (2 s at 10 M for a rare ticker and a wide window).
  if (
    since !== undefined &&
    availableTo !== undefined &&
    filter.ticker === undefined &&
    filter.limit + filter.offset <= WINDOW.walk
  ) {
    const window = { availableFrom, availableTo, filters };
    return {
      from: `FROM (${windowPage(where, window, { limit, offset })}) s
     JOIN contracts c ON c.id = s.contract_id`,
      params: where.params,
    };
  }
  return {
    from: `FROM (SELECT s.* FROM signals s ${where.sql()}
           ORDER BY ${orderBy(KEYSETS.signals)} LIMIT ${limit} OFFSET ${offset}) s
     JOIN contracts c ON c.id = s.contract_id`,
    params: where.params,
  };
}

/**
 * How many of the engine's signals, best first, a window filter's page is looked for among first
 * (`windowPage`). Tests lower it to reach the second part on a small database.
 */
export const WINDOW = { walk: 10_000 };

/** The month of a signal's availability, as migration 031's index keys it. */
const AVAILABLE_MONTH = "date_trunc('month', s.available_at AT TIME ZONE 'UTC')";

/**
 * A page of signals computed since one moment (`since`) of contracts available by another
 * (`available_to`). Walking the list's index in score order, a window that matches almost nothing (recent
 * signals of contracts available long ago) read all of an engine's entries: up to 1.3 s at 10 M, 7 s
 * cold. Two bounded reads instead:
 *
 * 1. the engine's first `WINDOW.walk` signals in the list's order (after the cursor's position), of which
 *    the filter's: when they hold the page, it is the list's page (any other match ranks after them);
 * 2. otherwise every match, found month of availability by month through migration 031's index — in
 *    each month, the signals computed since the moment, a range of the index; so a month whose signals
 *    were all computed before it costs one descent — then sorted. The walk having found fewer than a
 *    page in its `WINDOW.walk` signals, the matches are few.
 *
 * Either part yields the signals' list keys, which then read each signal of the page from the list's
 * index by its key (all the list shows of a signal but its rationale is in that index: migration 030).
 */
function windowPage(
  where: Where,
  window: { availableFrom?: string; availableTo: string; filters: number },
  page: { limit: string; offset: string },
): string {
  const engine = where.clauses.slice(0, ENGINE_CLAUSES);
  const tested = where.clauses.slice(ENGINE_CLAUSES, window.filters);
  const after = where.clauses.slice(window.filters);
  const order = orderBy(KEYSETS.signals);
  const need = `${page.limit}::int8 + ${page.offset}::int8`;
  const and = (clauses: readonly string[]) => clauses.join(' AND ');
  const month = (moment: string) => `date_trunc('month', ${moment}::timestamptz AT TIME ZONE 'UTC')`;
  // The months are those of the engine's signals within the window, never the window's alone: a caller's
  // window of year 1 to 9999 would otherwise be 120,000 months, each a descent of the index.
  const edge = (direction: 'ASC' | 'DESC') =>
    `(SELECT ${AVAILABLE_MONTH} FROM signals s WHERE ${and(engine)} AND ${AVAILABLE_MONTH} IS NOT NULL
        ORDER BY ${AVAILABLE_MONTH} ${direction} LIMIT 1)`;
  const first =
    window.availableFrom === undefined
      ? edge('ASC')
      : `greatest(${edge('ASC')}, ${month(window.availableFrom)})`;
  const last = `least(${edge('DESC')}, ${month(window.availableTo)})`;
  return `WITH walk AS MATERIALIZED (
        SELECT s.signal_score, s.computed_at, s.id FROM (
          SELECT s.signal_score, s.computed_at, s.id, s.available_at, s.ticker, s.contract_id FROM signals s
          WHERE ${and([...engine, ...after])} ORDER BY ${order} LIMIT ${WINDOW.walk}) s
        WHERE ${and(tested)} ORDER BY ${order} LIMIT ${need}
      ), found AS (
        SELECT * FROM walk WHERE (SELECT count(*) FROM walk) >= ${need}
        UNION ALL
        SELECT s.* FROM generate_series(${first}, ${last}, interval '1 month') AS m(month)
        -- A subquery of its own (OFFSET 0), read once per month: joined as a whole, it could be hashed.
        CROSS JOIN LATERAL (
          SELECT s.signal_score, s.computed_at, s.id FROM signals s
          WHERE ${and(where.clauses)} AND ${AVAILABLE_MONTH} = m.month
          OFFSET 0) s
        WHERE (SELECT count(*) FROM walk) < ${need}
      )
      SELECT s.* FROM found k CROSS JOIN LATERAL (
        SELECT s.* FROM signals s WHERE ${and(engine)} AND s.signal_score = k.signal_score
          AND s.computed_at = k.computed_at AND s.id = k.id
        OFFSET 0) s
      ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}`;
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
