import type { ContractDetailDto, SignalDto } from '../shapes/resources.ts';
import { prepared, type Queryable } from './db.ts';
import { type JsonList, jsonArray, jsonInteger, jsonList, jsonObject, jsonString } from './json.ts';
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
  type ContractRow,
  type SignalRow,
  signalColumns,
  signalJson,
  toContract,
  toSignal,
  widened,
} from './rows.ts';
import { Where } from './where.ts';

export interface EventFilter {
  engine: string;
  withRationale: boolean;
  ticker?: string;
  agency?: string;
  classification?: string;
  from?: string;
  to?: string;
  source?: string;
  availableFrom?: string;
  availableTo?: string;
  limit: number;
  offset: number;
  /** Continue strictly after this position of the list's order (keyset paging). */
  after?: Position;
}

const LATEST_SIGNAL = (engine: string) => `LEFT JOIN LATERAL (
    SELECT * FROM signals s0 WHERE s0.contract_id = c.id AND s0.engine_name = ${engine}
    ORDER BY s0.computed_at DESC LIMIT 1
  ) s ON true`;

/**
 * The events page's items, contracts newest award first each with its latest signal of the engine, as the
 * API's JSON (schema `EventItem`).
 */
export async function eventsJson(db: Queryable, filter: EventFilter): Promise<JsonPage> {
  // One row past the page tells whether another page follows.
  const page = eventPage({ ...filter, limit: filter.limit + 1 });
  const limit = `$${page.params.push(filter.limit)}::int`;
  const item = eventItemJson(filter.withRationale);
  const rows = await db.query<JsonList & { next: string | null }>(
    prepared(`SELECT ${jsonPageColumns(item, KEYSETS.events, limit)} ${page.from}`),
    page.params,
  );
  return widened(jsonPage(rows), filter.withRationale);
}

/** One item of the events list (schema `EventItem`) as JSON text, from `c` and its latest signal `s`. */
export const eventItemJson = (
  withRationale: boolean,
) => `'{"contract":' || ${CONTRACT_JSON} || ',"signal":' ||
    CASE WHEN s.id IS NULL THEN 'null' ELSE ${signalJson(withRationale)} END || '}'`;

/**
 * The FROM clause of the filter's page: contracts `c`, newest award first, each joined to its latest
 * signal `s` of the engine (null columns when it has none), with the parameters it numbers. A null
 * `limit` is no limit (the export's).
 */
export function eventPage(filter: Omit<EventFilter, 'withRationale' | 'limit'> & { limit: number | null }): {
  from: string;
  params: unknown[];
} {
  let moment: string | undefined;
  const where = new Where()
    .add((p) => `c.ticker = ${p}`, filter.ticker)
    .add((p) => `lower(c.awarding_agency) = lower(${p})`, filter.agency)
    .add((p) => `c.nlp_classification = ${p}`, filter.classification)
    .add((p) => `c.award_date >= ${p}::date`, filter.from)
    .add((p) => `c.award_date <= ${p}::date`, filter.to)
    .add((p) => `c.source = ${p}`, filter.source)
    .add((p) => `c.available_at >= ${p}::timestamptz`, filter.availableFrom)
    .add((p) => {
      moment = p;
      return `c.available_at <= ${p}::timestamptz`;
    }, filter.availableTo);
  where.clauses.unshift('c.ticker IS NOT NULL');
  addAfter(where, KEYSETS.events, filter.after);
  const engine = where.next(filter.engine);
  if (filter.limit === null) {
    // The export's every row, its order left to the statement around it. A subquery with a LIMIT (even
    // of null) is planned apart, for all of its rows — a large filter's then read the table and sorted
    // it before the cursor's first row (up to 5 s at 10 M); flattened into the statement, the list's
    // index in its order streams at once (the cursor is planned for its first rows: db.ts).
    const contracts =
      moment === undefined
        ? `SELECT c.* FROM contracts c ${where.sql()}`
        : `SELECT c.* FROM ${AVAILABLE_BY_APPENDED} ${where.sql()} AND ${availableByPart(moment)}`;
    return {
      from: `FROM (${contracts}) c
     ${LATEST_SIGNAL(engine)}`,
      params: where.params,
    };
  }
  const limit = where.next(filter.limit);
  const offset = where.next(filter.offset);
  const order = orderBy(KEYSETS.events);
  const contracts =
    moment === undefined
      ? `SELECT c.* FROM contracts c ${where.sql()} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`
      : availableBy(where, moment, { limit, offset });
  return {
    from: `FROM (${contracts}) c
     ${LATEST_SIGNAL(engine)}`,
    params: where.params,
  };
}

/**
 * The contracts twice over, each copy marked with its part of `availableBy` (`c.available_part`, 1 or 2).
 * A UNION ALL of subqueries with WHERE clauses is planned apart, each part for all its rows: an export's
 * cursor then read the table sequentially and sorted it before its first row. Of plain copies of the
 * table the union is flattened, the conditions around it (`availableByPart`) are pushed into each copy
 * with its mark folded to a constant, and each copy reads its part's index in order, merged with the
 * other (`Merge Append`).
 */
const AVAILABLE_BY_APPENDED = `(SELECT 1 AS available_part, c.* FROM contracts c
      UNION ALL SELECT 2 AS available_part, c.* FROM contracts c) c`;

/** Each copy of `AVAILABLE_BY_APPENDED` restricted to its part. */
function availableByPart(moment: string): string {
  const [onOrBefore, after] = availableByParts(moment);
  return `((c.available_part = 1 AND ${onOrBefore}) OR (c.available_part = 2 AND ${after}))`;
}

/**
 * The conditions of the two parts of the contracts available by `moment` (see availableBy): awarded on
 * or before the moment's UTC date, and awarded after it yet available on an earlier UTC day.
 */
function availableByParts(moment: string): string[] {
  const day = `(${moment}::timestamptz AT TIME ZONE 'UTC')::date`;
  return [
    `c.award_date <= ${day}`,
    `c.award_date > ${day} AND (c.available_at AT TIME ZONE 'UTC')::date < c.award_date`,
  ];
}

/**
 * The contracts of `where` (which bounds available_at by `moment`) in two index-ordered parts: those
 * awarded on or before the moment's UTC date, where the list's indexes start walking; and those
 * awarded after it yet available by then (available on an earlier UTC day than their award date:
 * announced, or first seen, before it), which migration 027's partial index holds. Every contract
 * available by the moment is in exactly one part, so the union is the filter's rows; without the split
 * the walk read every newer award before the first one available by the moment.
 */
function availableBy(where: Where, moment: string, page: { limit: string; offset: string }): string {
  const order = orderBy(KEYSETS.events);
  const part = (clause: string) =>
    `(SELECT c.* FROM contracts c ${where.sql()} AND ${clause}
      ORDER BY ${order} LIMIT ${page.limit}::int8 + ${page.offset}::int8)`;
  return `${availableByParts(moment).map(part).join('\n    UNION ALL\n    ')}
    ORDER BY award_date DESC, id DESC LIMIT ${page.limit} OFFSET ${page.offset}`;
}

/**
 * One contract with its latest signal of the engine. Besides the contracts with a ticker, one whose
 * recipient was identified but whose owner on the date had no listed stock is served too (ticker null,
 * with the reason: the lists never show it); a recipient no entity was found for is not a contract.
 */
export async function getEvent(
  db: Queryable,
  id: string,
  engine: string,
): Promise<{ contract: ContractDetailDto; signal: SignalDto | null } | null> {
  const rows = await db.query<ContractRow & SignalRow>(
    `SELECT ${CONTRACT_COLUMNS}, ${signalColumns(true)} FROM contracts c ${LATEST_SIGNAL('$2')}
     WHERE c.id = $1 AND (c.ticker IS NOT NULL OR c.entity_id IS NOT NULL)`,
    [id, engine],
  );
  const row = rows[0];
  return row ? { contract: toContract(row), signal: toSignal(row) } : null;
}

/**
 * What a chart marks of one day's awards of one classification: their number and total value, and the
 * highest-scored of them (its id, value and latest signal score; the first id in code-point order among
 * equal scores, as the page merges a day's groups).
 */
const AWARD_DAY_JSON = jsonObject([
  ['award_date', jsonString('d.award_date')],
  ['nlp_classification', jsonString('d.nlp_classification')],
  ['count', jsonInteger('d.awards')],
  ['total_value', jsonInteger('d.total_value')],
  ['top_id', jsonString('d.id')],
  ['top_value', jsonInteger('d.contract_value')],
  ['top_score', jsonInteger('d.signal_score')],
]);

/**
 * The latest `limit` awards of a ticker (the events filter of `eventPage`) grouped by award day and
 * classification, oldest first, as JSON text: the chart draws one marker a day, so it needs each day's
 * sums and best award rather than every award (974 KB of JSON for the busiest ticker's 5,000 latest at
 * 10 M contracts). The classification stays a key: the page filters its markers by it.
 */
export async function awardDaysJson(
  db: Queryable,
  ticker: string,
  engine: string,
  limit: number,
): Promise<JsonList> {
  const page = eventPage({ ticker, engine, limit, offset: 0 });
  const rows = await db.query<JsonList>(
    prepared(
      `SELECT ${jsonArray(AWARD_DAY_JSON, 'd.award_date, d.nlp_classification')} AS json, count(*)::int AS count
       FROM (
         SELECT c.award_date, c.nlp_classification, c.id, c.contract_value, s.signal_score,
           count(*) OVER day AS awards, sum(c.contract_value) OVER day AS total_value,
           row_number() OVER (day ORDER BY s.signal_score DESC NULLS LAST, c.id COLLATE "C") AS rank
         ${page.from}
         WINDOW day AS (PARTITION BY c.award_date, c.nlp_classification)
       ) d
       WHERE d.rank = 1`,
    ),
    page.params,
  );
  return jsonList(rows);
}
