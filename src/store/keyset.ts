/**
 * Keyset paging: a list's sort order made total (its last column unique), the SQL that writes a row's
 * position in that order as text, and the condition that continues strictly after a position. A page
 * that continues from a position instead of skipping `offset` rows costs the same at any depth (the
 * index is entered at the position) and neither repeats nor skips a row when rows are inserted or
 * deleted before it.
 */
import type { Queryable } from './db.ts';
import type { JsonList } from './json.ts';
import type { Where } from './where.ts';

/** How a key value travels as text; each decodes back to its column's exact value (microseconds included). */
export type KeyType = 'date' | 'timestamptz' | 'int4' | 'int8' | 'text' | 'uuid';

export interface KeyColumn {
  /** The column as the list's query names it (`c.award_date`). */
  sql: string;
  type: KeyType;
  desc: boolean;
}

export interface Keyset {
  /** Which list (and order) a position belongs to; a position of one list means nothing in another. */
  name: string;
  columns: readonly KeyColumn[];
}

/** A row's position: its key values as text, one per column of the keyset. */
export type Position = readonly string[];

const col = (sql: string, type: KeyType, desc: boolean): KeyColumn => ({ sql, type, desc });

/** Every list's order, as its query sorts. */
export const KEYSETS = {
  events: {
    name: 'events',
    columns: [col('c.award_date', 'date', true), col('c.id', 'text', true)],
  },
  signals: {
    name: 'signals',
    columns: [
      col('s.signal_score', 'int4', true),
      col('s.computed_at', 'timestamptz', true),
      col('s.id', 'uuid', false),
    ],
  },
  regimes: {
    name: 'regimes',
    columns: [col('r.as_of', 'date', true), col('r.contract_id', 'text', true)],
  },
  predictions: {
    name: 'predictions',
    columns: [col('p.made_at', 'timestamptz', true), col('p.contract_id', 'text', true)],
  },
  webhooks: {
    name: 'webhooks',
    columns: [col('w.created_at', 'timestamptz', false), col('w.id', 'uuid', false)],
  },
  deliveries: {
    name: 'deliveries',
    columns: [col('d.created_at', 'timestamptz', true), col('d.id', 'uuid', true)],
  },
  attempts: {
    name: 'attempts',
    columns: [col('a.series', 'int4', false), col('a.attempt_no', 'int4', false), col('a.id', 'uuid', false)],
  },
  keys: {
    name: 'keys',
    columns: [col('k.created_at', 'timestamptz', false), col('k.id', 'uuid', false)],
  },
  users: {
    name: 'users',
    columns: [col('u.created_at', 'timestamptz', true), col('u.id', 'uuid', true)],
  },
  unmatched: {
    name: 'unmatched',
    columns: [col('u.total_value', 'int8', true), col('u.name_norm', 'text', false)],
  },
} as const satisfies Record<string, Keyset>;

/** The ORDER BY list of the keyset. */
export const orderBy = (keyset: Keyset): string =>
  keyset.columns.map((c) => `${c.sql}${c.desc ? ' DESC' : ''}`).join(', ');

/** A value as text that casts back exactly: timestamps in UTC with microseconds, dates without DateStyle. */
function keyText(column: KeyColumn): string {
  switch (column.type) {
    case 'timestamptz':
      return `to_char(${column.sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    case 'date':
      return `to_char(${column.sql}, 'YYYY-MM-DD')`;
    default:
      return `${column.sql}::text`;
  }
}

/** SQL for a row's position, as the JSON text of an array of strings. */
export const positionJson = (keyset: Keyset): string =>
  `json_build_array(${keyset.columns.map(keyText).join(', ')})::text`;

/** Reads `positionJson`'s text back; null stays null. */
export function parsePosition(text: string | null): Position | null {
  if (text === null) return null;
  const values: unknown = JSON.parse(text);
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
    throw new Error(`not a position: ${text}`);
  }
  return values;
}

/**
 * Adds "strictly after `after` in the keyset's order" to `where`. A run of columns sorted the same way
 * is one row comparison, which the list's index turns into its start: `(award_date, id) < ($1, $2)`.
 * Where the direction changes (signals: score and time descending, id ascending) the leading run is
 * compared inclusively and the tie is broken by the rest, so the index still starts at the position:
 * `(score, computed_at) <= ($1, $2) AND ((score, computed_at) <> ($1, $2) OR id > $3)`.
 */
export function addAfter(where: Where, keyset: Keyset, after: Position | undefined): void {
  if (after === undefined) return;
  if (after.length !== keyset.columns.length) throw new Error(`position of ${after.length} values`);
  const placeholders = keyset.columns.map((c, i) => `${where.next(after[i])}::${c.type}`);
  where.clauses.push(`(${afterClause(keyset.columns, placeholders)})`);
}

function afterClause(columns: readonly KeyColumn[], values: readonly string[]): string {
  const desc = columns[0]?.desc ?? false;
  let run = 1;
  while (run < columns.length && columns[run]?.desc === desc) run += 1;
  const row = (items: readonly string[]) => (items.length === 1 ? items[0] : `(${items.join(', ')})`);
  const left = row(columns.slice(0, run).map((c) => c.sql));
  const right = row(values.slice(0, run));
  const op = desc ? '<' : '>';
  if (run === columns.length) return `${left} ${op} ${right}`;
  const rest = afterClause(columns.slice(run), values.slice(run));
  return `${left} ${op}= ${right} AND (${left} <> ${right} OR ${rest})`;
}

/**
 * The select list of a JSON page read with `limit + 1` rows: `json` (the first `limit` items, in
 * order), `count`, and `next`, the last item's position when a further row exists (else null).
 * `limit` is the placeholder of the page size, cast to int.
 */
export function jsonPageColumns(item: string, keyset: Keyset, limit: string): string {
  const order = orderBy(keyset);
  return `'[' || coalesce(array_to_string((array_agg(${item} ORDER BY ${order}))[1:${limit}], ','), '') || ']' AS json,
    least(count(*), ${limit})::int AS count,
    CASE WHEN count(*) > ${limit} THEN (array_agg(${positionJson(keyset)} ORDER BY ${order}))[${limit}] END AS next`;
}

/** A JSON list page (`jsonPageColumns`) and where the next one starts, null when none follows. */
export interface JsonPage extends JsonList {
  next: Position | null;
}

/** The one row of a `jsonPageColumns` query; none at all (bench/explain.ts's recorder) reads as empty. */
export function jsonPage(rows: readonly (JsonList & { next: string | null })[]): JsonPage {
  const row = rows[0];
  return row ? { json: row.json, count: row.count, next: parsePosition(row.next) } : EMPTY;
}

const EMPTY: JsonPage = { json: '[]', count: 0, next: null };

/** A page of rows and where the next one starts, null when none follows. */
export interface RowPage<T> {
  rows: T[];
  next: Position | null;
}

/**
 * A page of rows read with `limit + 1`, each with its `position` (`positionJson`): the first `limit`
 * without it, and the last one's position when more follow.
 */
export function rowPage<T>(rows: readonly (T & { position: string })[], limit: number): RowPage<T> {
  const kept = rows.slice(0, limit).map(({ position: _position, ...row }) => row as T);
  const last = rows[limit - 1];
  return { rows: kept, next: rows.length > limit && last ? parsePosition(last.position) : null };
}

/** Where a page of a row list starts: `limit` rows after `offset`, or after the position `after`. */
export interface PageRequest {
  limit: number;
  offset: number;
  after?: Position;
}

/**
 * One page of a list read in node: `columns` of `from` (its alias as the keyset names it) matching
 * `where`, in the keyset's order, continued after `page.after` when given.
 */
export async function keysetRows<T>(
  db: Queryable,
  keyset: Keyset,
  select: { columns: string; from: string; where: Where },
  page: PageRequest,
): Promise<RowPage<T>> {
  const { where } = select;
  addAfter(where, keyset, page.after);
  const rows = await db.query<T & { position: string }>(
    `SELECT ${select.columns}, ${positionJson(keyset)} AS position FROM ${select.from} ${where.sql()}
     ORDER BY ${orderBy(keyset)} LIMIT ${where.next(page.limit + 1)} OFFSET ${where.next(page.offset)}`,
    where.params,
  );
  return rowPage(rows, page.limit);
}
