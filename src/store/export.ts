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

/**
 * The CSV columns of both exports, in order: the contract's fields, then its signal's (empty when the
 * event has none). Named as the JSON fields, except `contract_id` (contract.id) and `signal_id`
 * (signal.id). The rationale is never in the CSV: it is not a flat value (NDJSON carries it).
 */
export const CSV_COLUMNS: readonly (readonly [name: string, sql: string])[] = [
  ['contract_id', csvText('c.id')],
  ['ticker', csvText('c.ticker')],
  ['recipient_name', csvText('c.recipient_name')],
  ['award_date', csvDate('c.award_date')],
  ['contract_value', csvInteger('c.contract_value')],
  ['awarding_agency', csvText('c.awarding_agency')],
  ['awarding_sub_agency', csvText('c.awarding_sub_agency')],
  ['description', csvText('c.description')],
  ['naics', csvText('c.naics')],
  ['psc', csvText('c.psc')],
  ['nlp_classification', csvText('c.nlp_classification')],
  ['match_confidence', csvNumber('c.match_confidence')],
  ['match_method', csvText('c.match_method')],
  ['source', csvText('c.source')],
  ['announced_at', csvTimestamp('c.announced_at')],
  ['first_seen_at', csvTimestamp('c.first_seen_at')],
  ['available_at', csvTimestamp('c.available_at')],
  ['linked_id', csvText('c.linked_id')],
  ['link_method', csvText('c.link_method')],
  ['source_url', csvText('c.source_url')],
  ['signal_id', csvText('s.id::text')],
  ['engine_name', csvText('s.engine_name')],
  ['engine_version', csvText('s.engine_version')],
  ['engine_tier', csvText('s.engine_tier')],
  ['signal_score', csvInteger('s.signal_score')],
  ['importance_score', csvInteger('s.importance_score')],
  ['confidence_score', csvInteger('s.confidence_score')],
  ['risk_score', csvInteger('s.risk_score')],
  ['computed_at', csvTimestamp('s.computed_at')],
];

/** The CSV header record. */
export const CSV_HEADER = `${CSV_COLUMNS.map(([name]) => name).join(',')}\r\n`;

const CSV_RECORD = `${CSV_COLUMNS.map(([, sql]) => sql).join(` || ',' || `)} || E'\\r\\n'`;

const lineOf = (format: ExportFormat, item: string) => (format === 'csv' ? CSV_RECORD : `${item} || E'\\n'`);

export interface ExportQuery {
  text: string;
  params: unknown[];
}

/** Every event of the filter, newest award first (the list's order), one line each. */
export function eventExport(filter: EventExportFilter, format: ExportFormat): ExportQuery {
  const page = eventPage({ ...filter, offset: 0 });
  const line = lineOf(format, eventItemJson(filter.withRationale));
  return {
    text: `SELECT ${line} AS line ${page.from} ORDER BY c.award_date DESC, c.id DESC`,
    params: page.params,
  };
}

/** Every signal of the filter, best first (the list's order), one line each. */
export function signalExport(filter: SignalExportFilter, format: ExportFormat): ExportQuery {
  const page = signalPage({ ...filter, offset: 0 });
  const line = lineOf(format, signalItemJson(filter.withRationale));
  return {
    text: `SELECT ${line} AS line ${page.from} ORDER BY s.signal_score DESC, s.computed_at DESC, s.id`,
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
