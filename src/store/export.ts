/**
 * The bulk exports' queries: every row of an events or signals filter, in the list's order, one text
 * column per row that the database writes — a CSV record or an NDJSON line — so node only passes bytes
 * on. Read through a cursor (`Db.openCursor`), never as one result.
 */
import type { Db, RowCursor } from './db.ts';
import { type EventFilter, eventItemJson, eventPage } from './events.ts';
import { jsonInteger, jsonNumber } from './json.ts';
import { type SignalFilter, signalItemJson, signalPage } from './signals.ts';

export type ExportFormat = 'csv' | 'ndjson';

/** What an export reads: the list's filter without paging; `limit` caps the rows (null: all of them). */
export type EventExportFilter = Omit<EventFilter, 'limit' | 'offset'> & { limit: number | null };
export type SignalExportFilter = Omit<SignalFilter, 'limit' | 'offset'> & { limit: number | null };

/** One row of an export: its CSV record (with CRLF) or its NDJSON line (with LF). */
export interface ExportRow {
  line: string;
}

/**
 * A text value as a CSV field (RFC 4180). Free text comes from outside (award descriptions, recipient
 * names): a value a spreadsheet would run as a formula — starting with `=`, `+`, `-`, `@`, tab or
 * carriage return — gets a leading `'`. Then the field is quoted when it holds a quote, comma, CR or LF,
 * its quotes doubled. NULL is the empty field.
 */
export function csvText(sql: string): string {
  const guarded = `CASE WHEN (${sql}) ~ '^[-=+@\\t\\r]' THEN '''' || (${sql}) ELSE (${sql}) END`;
  const written = `CASE WHEN ${guarded} ~ '[",\\r\\n]' THEN '"' || replace(${guarded}, '"', '""') || '"'
    ELSE ${guarded} END`;
  // Most values need neither: one test, and the value as it is.
  return `coalesce(CASE WHEN (${sql}) !~ '^[-=+@\\t\\r]|[",\\r\\n]' THEN (${sql}) ELSE ${written} END, '')`;
}

/** A number as the JSON lists write it (a negative value stays a number: no guard); NULL is empty. */
const csvNumber = (sql: string) => `CASE WHEN (${sql}) IS NULL THEN '' ELSE ${jsonNumber(sql)} END`;
const csvInteger = (sql: string) => `CASE WHEN (${sql}) IS NULL THEN '' ELSE ${jsonInteger(sql)} END`;
/** A timestamptz as the JSON lists write it, unquoted; NULL is empty. */
const csvTimestamp = (sql: string) =>
  `coalesce(to_char((${sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '')`;
const csvDate = (sql: string) => `coalesce(to_char(${sql}, 'YYYY-MM-DD'), '')`;

/** How a CSV column writes its value: free text (guarded and quoted as `csvText` says), or one of the rest. */
type CsvKind = 'text' | 'number' | 'integer' | 'timestamp' | 'date';

const CSV_VALUE: Record<Exclude<CsvKind, 'text'>, (sql: string) => string> = {
  number: csvNumber,
  integer: csvInteger,
  timestamp: csvTimestamp,
  date: csvDate,
};

/**
 * The CSV columns of both exports, in order: the contract's fields, then its signal's (empty when the
 * event has none). Named as the JSON fields, except `contract_id` (contract.id) and `signal_id`
 * (signal.id). The rationale is never in the CSV: it is not a flat value (NDJSON carries it).
 */
const CSV_FIELDS: readonly (readonly [name: string, sql: string, kind: CsvKind])[] = [
  ['contract_id', 'c.id', 'text'],
  ['ticker', 'c.ticker', 'text'],
  ['recipient_name', 'c.recipient_name', 'text'],
  ['award_date', 'c.award_date', 'date'],
  ['contract_value', 'c.contract_value', 'integer'],
  ['awarding_agency', 'c.awarding_agency', 'text'],
  ['awarding_sub_agency', 'c.awarding_sub_agency', 'text'],
  ['description', 'c.description', 'text'],
  ['naics', 'c.naics', 'text'],
  ['psc', 'c.psc', 'text'],
  ['nlp_classification', 'c.nlp_classification', 'text'],
  ['match_confidence', 'c.match_confidence', 'number'],
  ['match_method', 'c.match_method', 'text'],
  ['source', 'c.source', 'text'],
  ['announced_at', 'c.announced_at', 'timestamp'],
  ['first_seen_at', 'c.first_seen_at', 'timestamp'],
  ['available_at', 'c.available_at', 'timestamp'],
  ['linked_id', 'c.linked_id', 'text'],
  ['link_method', 'c.link_method', 'text'],
  ['source_url', 'c.source_url', 'text'],
  ['signal_id', 's.id::text', 'text'],
  ['engine_name', 's.engine_name', 'text'],
  ['engine_version', 's.engine_version', 'text'],
  ['engine_tier', 's.engine_tier', 'text'],
  ['signal_score', 's.signal_score', 'integer'],
  ['importance_score', 's.importance_score', 'integer'],
  ['confidence_score', 's.confidence_score', 'integer'],
  ['risk_score', 's.risk_score', 'integer'],
  ['computed_at', 's.computed_at', 'timestamp'],
];

/** Each column's name and its CSV field's SQL (never NULL), in order. */
export const CSV_COLUMNS: readonly (readonly [name: string, sql: string])[] = CSV_FIELDS.map(
  ([name, sql, kind]) => [name, kind === 'text' ? csvText(sql) : CSV_VALUE[kind](sql)] as const,
);

/** The CSV header record. */
export const CSV_HEADER = `${CSV_COLUMNS.map(([name]) => name).join(',')}\r\n`;

/** The text fields joined with nothing between them (NULL: nothing), computed once per row as `r.text`. */
const CSV_TEXT = `concat(${CSV_FIELDS.filter(([, , kind]) => kind === 'text')
  .map(([, sql]) => sql)
  .join(', ')})`;

/** The character codes a text field may not start with as it is (csvText's formula guard): - = + @ TAB CR. */
const FORMULA_CODES = '45, 61, 43, 64, 9, 13';

/**
 * The CSV record with its CRLF. Testing every text field for a formula-like start and for characters
 * that need quoting (a regular expression each) was the costliest part of a record: ≈ 10 µs of a
 * signals export row's ≈ 27 µs in PostgreSQL at 10 M (docs/EVALUATION.md). Most records need neither,
 * and cheaper tests tell: no comma, quote, CR or LF in the text fields joined (`r.text`; the other fields
 * never hold one), and no text field starting with a formula character. Such a record is its fields
 * joined by commas as they are — exactly what the per-field expressions write for it; any other is
 * written field by field as before.
 */
const CSV_CLEAN = `strpos(r.text, ',') = 0 AND strpos(r.text, '"') = 0 AND strpos(r.text, E'\\r') = 0
    AND strpos(r.text, E'\\n') = 0
    AND ${CSV_FIELDS.filter(([, , kind]) => kind === 'text')
      .map(([, sql]) => `coalesce(ascii(${sql}), 0) NOT IN (${FORMULA_CODES})`)
      .join('\n    AND ')}`;

/** A clean record: its fields joined by commas as they are. */
const CSV_AS_IS = `concat_ws(',', ${CSV_FIELDS.map(([, sql, kind]) =>
  kind === 'text' ? `coalesce(${sql}, '')` : CSV_VALUE[kind](sql),
).join(', ')})`;

/** Any record, field by field: each text field guarded and quoted as it needs. */
const CSV_FIELD_BY_FIELD = CSV_COLUMNS.map(([, sql]) => sql).join(` || ',' || `);

const CSV_RECORD = `CASE WHEN ${CSV_CLEAN} THEN ${CSV_AS_IS} ELSE ${CSV_FIELD_BY_FIELD} END || E'\\r\\n'`;

/** The lateral subquery that computes `r.text` once per row (OFFSET 0: not inlined into its four uses). */
const CSV_RAW_JOIN = `CROSS JOIN LATERAL (SELECT ${CSV_TEXT} AS text OFFSET 0) r`;

/** The parts of the CSV record, for tests: the clean test, the record, the field-by-field record, the join. */
export const CSV_SQL = {
  clean: CSV_CLEAN,
  record: CSV_RECORD,
  fieldByField: CSV_FIELD_BY_FIELD,
  join: CSV_RAW_JOIN,
} as const;

const lineOf = (format: ExportFormat, item: string) => (format === 'csv' ? CSV_RECORD : `${item} || E'\\n'`);
const joinOf = (format: ExportFormat) => (format === 'csv' ? CSV_RAW_JOIN : '');

export interface ExportQuery {
  text: string;
  params: unknown[];
}

/** Every event of the filter, newest award first (the list's order), one line each. */
export function eventExport(filter: EventExportFilter, format: ExportFormat): ExportQuery {
  const page = eventPage({ ...filter, offset: 0 });
  const line = lineOf(format, eventItemJson(filter.withRationale));
  return {
    text: `SELECT ${line} AS line ${page.from} ${joinOf(format)} ORDER BY c.award_date DESC, c.id DESC`,
    params: page.params,
  };
}

/** Every signal of the filter, best first (the list's order), one line each. */
export function signalExport(filter: SignalExportFilter, format: ExportFormat): ExportQuery {
  const page = signalPage({ ...filter, offset: 0 });
  const line = lineOf(format, signalItemJson(filter.withRationale));
  return {
    text: `SELECT ${line} AS line ${page.from} ${joinOf(format)} ORDER BY s.signal_score DESC, s.computed_at DESC, s.id`,
    params: page.params,
  };
}

/** Opens the export's cursor: see `Db.openCursor`. */
export function openExport(
  db: Db,
  query: ExportQuery,
  options: { batchRows: number; idleMs: number },
): Promise<RowCursor<ExportRow>> {
  return db.openCursor<ExportRow>(query.text, query.params, options);
}
