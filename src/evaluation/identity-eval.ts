/**
 * Point-in-time identity measures: coverage (events and dollars resolved, the rest by why) and
 * era-correct precision on labelled (name, date) events (docs/evaluation/identity-labels.csv).
 */
import { readFile } from 'node:fs/promises';
import type { DatedResolver } from '../domain/dated-resolver.ts';
import { parseCsv, rowToObject } from '../sources/csv.ts';

export interface IdentityEvent {
  name: string;
  parent: string | null;
  date: string;
  value: number;
  /** false: the announcement paragraph gave no awardee name. */
  parsed: boolean;
}

export const COVERAGE_REASONS = [
  'resolved',
  'private',
  'joint_venture',
  'foreign',
  'government',
  'parse_error',
  'unknown',
] as const;
export type CoverageReason = (typeof COVERAGE_REASONS)[number];

/** Universities, laboratories, states and cities, tribes, foundations: no stock to credit. */
const PUBLIC_BODY =
  /\b(UNIVERSITY|COLLEGE|INSTITUTE OF TECHNOLOGY|STATE OF|COUNTY|CITY OF|DEPARTMENT|AUTHORITY|FOUNDATION|TRIBE|NATION|SCHOOL|HOSPITAL|COMMONWEALTH|GOVERNMENT OF|MINISTRY)\b/;
const FOREIGN_FORM = /\b(GMBH|PLC|S\.?P\.?A|PTY|S\.?A\.?S|B\.?V|A\/S|K\.?K|CO\.?,? LTD|SDN BHD|AB|OY|AG)\b/;

export function whyOf(dated: DatedResolver, e: IdentityEvent): CoverageReason {
  if (!e.parsed || e.name.trim() === '') return 'parse_error';
  const r = dated.resolveAt({
    recipientName: e.name,
    parentName: e.parent,
    date: e.date,
    basis: 'award_date',
  });
  if (r.ticker !== null) return 'resolved';
  if (r.reason === 'private' || r.reason === 'not_yet_public') return 'private';
  if (r.reason === 'joint_venture') return 'joint_venture';
  if (r.reason === 'foreign') return 'foreign';
  const upper = e.name.toUpperCase();
  if (PUBLIC_BODY.test(upper)) return 'government';
  if (FOREIGN_FORM.test(upper)) return 'foreign';
  return 'unknown';
}

export interface CoverageRow {
  why: CoverageReason;
  events: number;
  dollars: number;
  eventShare: number;
  dollarShare: number;
}

export function coverageOf(
  dated: DatedResolver,
  events: readonly IdentityEvent[],
): { events: number; dollars: number; rows: CoverageRow[] } {
  const tally = new Map<CoverageReason, { events: number; dollars: number }>();
  for (const why of COVERAGE_REASONS) tally.set(why, { events: 0, dollars: 0 });
  let dollars = 0;
  for (const e of events) {
    const t = tally.get(whyOf(dated, e));
    if (t === undefined) continue;
    t.events += 1;
    t.dollars += e.value;
    dollars += e.value;
  }
  const rows = [...tally].map(([why, t]) => ({
    why,
    events: t.events,
    dollars: t.dollars,
    eventShare: events.length === 0 ? 0 : t.events / events.length,
    dollarShare: dollars === 0 ? 0 : t.dollars / dollars,
  }));
  return { events: events.length, dollars, rows };
}

export interface IdentityLabel {
  name: string;
  /** The parent name the award record gave, if any. */
  parent: string | null;
  date: string;
  /** The owner's ticker on the date; null when it had none. */
  ticker: string | null;
  owner: string;
}

export const LABELS_FILE = new URL('../../docs/evaluation/identity-labels.csv', import.meta.url);

export async function readLabels(file: URL = LABELS_FILE): Promise<IdentityLabel[]> {
  const { header, rows } = parseCsv(await readFile(file, 'utf8'));
  return rows.map((r) => {
    const o = rowToObject(header, r.fields);
    const ticker = (o.ticker ?? '').trim();
    return {
      name: o.name ?? '',
      parent: (o.parent ?? '').trim() || null,
      date: o.date ?? '',
      ticker: ticker === '' ? null : ticker,
      owner: o.owner ?? '',
    };
  });
}

export interface LabelledPrecision {
  labelled: number;
  withTicker: number;
  resolved: number;
  correct: number;
  precision: number;
  recall: number;
  noTicker: number;
  noTickerKept: number;
  errors: string[];
}

/** Precision: of the events given a ticker, the share given the owner's ticker then; recall over labels with one. */
export function labelledPrecision(dated: DatedResolver, labels: readonly IdentityLabel[]): LabelledPrecision {
  let resolved = 0;
  let correct = 0;
  let noTickerKept = 0;
  const errors: string[] = [];
  for (const l of labels) {
    const got = dated.resolveAt({
      recipientName: l.name,
      parentName: l.parent,
      date: l.date,
      basis: 'award_date',
    }).ticker;
    if (got !== null) resolved += 1;
    if (got !== null && got === l.ticker) correct += 1;
    if (l.ticker === null && got === null) noTickerKept += 1;
    if (got !== l.ticker)
      errors.push(`${l.date} ${l.name}: ${got ?? '—'} (label ${l.ticker ?? '—'}, ${l.owner})`);
  }
  const withTicker = labels.filter((l) => l.ticker !== null).length;
  return {
    labelled: labels.length,
    withTicker,
    resolved,
    correct,
    precision: resolved === 0 ? 0 : correct / resolved,
    recall: withTicker === 0 ? 0 : correct / withTicker,
    noTicker: labels.length - withTicker,
    noTickerKept,
    errors,
  };
}
