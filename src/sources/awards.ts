/**
 * Award sources → `AwardRecord`.
 *
 * The canonical input format uses the USASpending bulk-download column names;
 * `normalizeBulkRecord` validates one such record. Every other shipped format is first mapped onto
 * those names by a `…ToBulk` converter, so all validation lives in one place.
 */
import { join } from 'node:path';
import type { AwardRecord } from '../domain/types.ts';
import { DOD_SUB_TIER, topTierAgencyForAwardId, topTierAgencyForCode } from './agencies.ts';
import { parseCsv, rowToObject } from './csv.ts';
import { readTextFile } from './files.ts';

export type NormalizeResult = { ok: true; award: AwardRecord } | { ok: false; message: string };
export type BulkRecord = Record<string, unknown>;
/** Where a rejected record was: its CSV line (where the record starts) or its index in a JSON array. */
export type LineRejection = { line: number; message: string };
export type IndexRejection = { index: number; message: string };
export type Rejection = LineRejection | IndexRejection;
/** A record read: the award, or why it was rejected and where. */
export type AwardItem<R extends Rejection = Rejection> =
  | { ok: true; award: AwardRecord }
  | { ok: false; rejection: R };
export interface CsvAwardsResult {
  awards: AwardRecord[];
  rejected: LineRejection[];
}
export interface JsonAwardsResult {
  awards: AwardRecord[];
  rejected: IndexRejection[];
}

/** A normalized record as an item read at `where`. */
export function itemAt<R extends Rejection>(
  result: NormalizeResult,
  where: Omit<R, 'message'>,
): AwardItem<R> {
  return result.ok ? result : { ok: false, rejection: { ...where, message: result.message } as R };
}

/** Rejections, counted in full, the first `keep` of them listed. */
export class Rejections<R extends Rejection = Rejection> {
  readonly list: R[] = [];
  total = 0;

  constructor(private readonly keep = Number.POSITIVE_INFINITY) {}

  add(rejection: R): void {
    this.total += 1;
    if (this.list.length < this.keep) this.list.push(rejection);
  }
}

/** The one collector of every reader: accepted awards in order, and the rejections. */
export function collect<R extends Rejection>(
  items: Iterable<AwardItem<R>>,
): { awards: AwardRecord[]; rejected: R[] } {
  const awards: AwardRecord[] = [];
  const rejections = new Rejections<R>();
  for (const item of items) {
    if (item.ok) awards.push(item.award);
    else rejections.add(item.rejection);
  }
  return { awards, rejected: rejections.list };
}

/** The bulk-download columns this module reads; any other column is ignored. */
export const BULK_COLUMNS = [
  'contract_award_unique_key',
  'award_id_piid',
  'recipient_name',
  'recipient_uei',
  'recipient_parent_name',
  'recipient_parent_uei',
  'awarding_agency_name',
  'awarding_sub_agency_name',
  'current_total_value_of_award',
  'total_obligated_amount',
  'award_base_action_date',
  'prime_award_base_transaction_description',
  'naics_code',
  'product_or_service_code',
  'last_modified_date',
] as const;

type BulkColumn = (typeof BULK_COLUMNS)[number];

/** Used when neither the record nor its id names an awarding agency. */
export const UNKNOWN_AGENCY = 'Unknown';

// ---------------------------------------------------------------------------------------------
// Field helpers

/**
 * Trimmed non-empty string, or null for absent/blank values. Numbers are stringified. The text is kept
 * as given: a NUL or a lone surrogate is refused by `normalizeBulkRecord` (see `fieldProblem`), never
 * dropped, so hostile input shows up in `rejected` instead of being stored altered.
 */
export function textValue(v: unknown): string | null {
  if (typeof v === 'string') {
    const t = v.trim();
    return t === '' ? null : t;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return String(v);
  return null;
}

/** The code part of `CODE: DESCRIPTION` values (legacy feed style); other values unchanged. */
export function codePart(v: unknown): string | null {
  const t = textValue(v);
  if (t === null || !t.includes(':')) return t;
  const m = /^([^:]+?)\s*:\s/.exec(t);
  return m?.[1] ?? t;
}

/** The name part of `CODE: NAME` values, or the whole value. */
function namePart(v: unknown): string | null {
  const t = textValue(v);
  if (t === null) return null;
  const m = /^[^:]+?\s*:\s+(.+)$/.exec(t);
  return m?.[1]?.trim() ?? t;
}

const NUMBER_RE = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const GROUPED_RE = /^[-+]?\$?\d{1,3}(?:,\d{3})+(?:\.\d*)?$/;

/** undefined = absent; NaN = present but not a finite number. Accepts `1234.5`, `$1,234.50`. */
export function numberValue(v: unknown): number | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? v : Number.NaN;
  if (typeof v !== 'string') return Number.NaN;
  const t = v.trim();
  if (t === '') return undefined;
  if (isDigits(t)) return Number(t);
  const plain = t.replace(/^([-+]?)\$/, '$1');
  if (NUMBER_RE.test(plain)) return Number(plain);
  if (GROUPED_RE.test(t)) return Number(t.replace(/[$,]/g, ''));
  return Number.NaN;
}

/** Plain whole numbers (the usual bulk value) need no pattern matching. */
function isDigits(t: string): boolean {
  if (t.length > 15) return false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

interface ParsedDate {
  date: string;
  /** ISO date-time (UTC); a value without a zone is taken as UTC. */
  iso: string;
}

/**
 * Award dates (and modification times) must fall in years 1900–2200: anything outside is a data error
 * for a federal contract, and both ends sit well inside what PostgreSQL date/timestamptz and a JS Date
 * hold. The four-digit year of the patterns below already refuses year 0000 and expanded years
 * (`+020000-01-01`).
 */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2200;

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const US_RE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/**
 * Parses `YYYY-MM-DD`, `YYYY-MM-DD hh:mm:ss` (also with `T`, fractional seconds or a zone) and
 * `MM/DD/YYYY`; rejects impossible calendar dates. Returns null when the text is not such a date.
 */
export function parseDateText(text: string): ParsedDate | null {
  const t = text.trim();
  let y: number;
  let mo: number;
  let d: number;
  let hh = 0;
  let mi = 0;
  let ss = 0;
  let ms = 0;
  let zone: string | undefined;
  const iso = ISO_RE.exec(t);
  if (iso) {
    y = Number(iso[1]);
    mo = Number(iso[2]);
    d = Number(iso[3]);
    hh = Number(iso[4] ?? 0);
    mi = Number(iso[5] ?? 0);
    ss = Number(iso[6] ?? 0);
    ms = Number(`0.${iso[7] ?? '0'}`) * 1000;
    zone = iso[8];
  } else {
    const us = US_RE.exec(t);
    if (!us) return null;
    mo = Number(us[1]);
    d = Number(us[2]);
    y = Number(us[3]);
  }
  if (y < MIN_YEAR || y > MAX_YEAR || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  if (hh > 23 || mi > 59 || ss > 59) return null;
  const date = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  let epoch = Date.UTC(y, mo - 1, d, hh, mi, ss, Math.round(ms));
  if (zone && zone !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
    if (!zm) return null;
    const offset = (Number(zm[2]) * 60 + Number(zm[3] ?? 0)) * (zm[1] === '-' ? -1 : 1);
    if (Math.abs(offset) > 14 * 60) return null;
    epoch -= offset * 60_000;
  }
  return { date, iso: new Date(epoch).toISOString() };
}

/**
 * Bulk files repeat a few thousand dates (and often a single modification time), so parsed dates are
 * memoized by their text; the results are shared, hence frozen.
 */
const DATE_CACHE_LIMIT = 20_000;
const dateCache = new Map<string, ParsedDate | null>();

function cachedDate(text: string): ParsedDate | null {
  const hit = dateCache.get(text);
  if (hit !== undefined) return hit;
  const parsed = parseDateText(text);
  if (dateCache.size >= DATE_CACHE_LIMIT) dateCache.clear();
  dateCache.set(text, parsed === null ? null : Object.freeze(parsed));
  return parsed;
}

function fail(message: string): NormalizeResult {
  return { ok: false, message };
}

function clip(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

// ---------------------------------------------------------------------------------------------
// Hostile input: every column is checked before any is read

/**
 * Longest accepted value of each column, in UTF-16 code units as given. Ids (award key, PIID, UEIs) fit
 * the 200 that `GET /api/v1/contracts/:id` accepts (real award keys are under 120 units, PIIDs 50, UEIs
 * 12); names, agencies and `CODE: NAME` codes 500 (real ones are under 200); descriptions 10,000 (FPDS
 * caps them at 4,000). At most 3 UTF-8 bytes a unit keeps the widest index entry of `contracts`
 * (lower(awarding_agency), award_date, id) under PostgreSQL's 2,704-byte B-tree limit. No amount or
 * date needs more than 64.
 */
const MAX_LENGTH: Readonly<Record<BulkColumn, number>> = {
  contract_award_unique_key: 200,
  award_id_piid: 200,
  recipient_uei: 200,
  recipient_parent_uei: 200,
  recipient_name: 500,
  recipient_parent_name: 500,
  awarding_agency_name: 500,
  awarding_sub_agency_name: 500,
  naics_code: 500,
  product_or_service_code: 500,
  prime_award_base_transaction_description: 10_000,
  current_total_value_of_award: 64,
  total_obligated_amount: 64,
  award_base_action_date: 64,
  last_modified_date: 64,
};

/**
 * Largest accepted magnitude of an amount, in dollars: 10^15, a thousand times a year of federal
 * spending. `contract_value` is bigint (±9.2·10^18) and every whole number up to 2^53 ≈ 9·10^15 is exact
 * in a JS number, so a stored value reads back unchanged; a write batch of 5,000 such values still sums
 * within bigint (the unmatched-recipients tally, which saturates across batches).
 */
export const MAX_AMOUNT = 1e15;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why one column's value is refused, or null. Absent values pass (each column's own rule decides
 * whether it is required); JSON objects, arrays and booleans do not, where they used to read as absent.
 * NUL cannot be stored in PostgreSQL text, and a lone surrogate has no UTF-8 form (pg would write U+FFFD
 * instead): either would alter the record, so it is refused whole.
 */
function fieldProblem(name: BulkColumn, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? null : `${name} is not a finite number: '${v}'`;
  if (typeof v !== 'string') {
    const kind = Array.isArray(v) ? 'array' : typeof v;
    return `${name} must be a string or a number, not ${kind === 'array' || kind === 'object' ? 'an' : 'a'} ${kind}`;
  }
  if (v.length > MAX_LENGTH[name]) return `${name} is longer than ${MAX_LENGTH[name]} characters`;
  if (v.includes('\0')) return `${name} contains a NUL character`;
  if (LONE_SURROGATE_RE.test(v)) return `${name} contains a lone UTF-16 surrogate`;
  return null;
}

function recordProblem(rec: BulkRecord): string | null {
  for (const name of BULK_COLUMNS) {
    const problem = fieldProblem(name, rec[name]);
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * The award value in whole dollars (no -0), or why the record is refused. A negative
 * `current_total_value_of_award` is refused: the total value of an award (base and all options) cannot
 * be below zero. `total_obligated_amount` may be negative: de-obligations can exceed an award's
 * obligations, and USASpending reports the net.
 */
function awardValue(rec: BulkRecord): { value: number } | { problem: string } {
  let field: BulkColumn = 'current_total_value_of_award';
  let value = numberValue(rec[field]);
  if (value === undefined) {
    field = 'total_obligated_amount';
    value = numberValue(rec[field]);
  }
  if (value === undefined)
    return { problem: 'current_total_value_of_award and total_obligated_amount are missing' };
  const given = `'${clip(rec[field])}'`;
  if (!Number.isFinite(value)) return { problem: `${field} is not a finite number: ${given}` };
  if (Math.abs(value) > MAX_AMOUNT) {
    return { problem: `${field} is out of range (at most ${MAX_AMOUNT} dollars either way): ${given}` };
  }
  if (value < 0 && field === 'current_total_value_of_award') {
    return { problem: `${field} is negative (a total award value cannot be): ${given}` };
  }
  const rounded = Math.round(value);
  return { value: rounded === 0 ? 0 : rounded };
}

function badDate(field: BulkColumn, text: string): string {
  return `${field} is not a valid date in ${MIN_YEAR}–${MAX_YEAR} (YYYY-MM-DD, YYYY-MM-DD hh:mm:ss or MM/DD/YYYY): '${clip(text)}'`;
}

// ---------------------------------------------------------------------------------------------
// Canonical (bulk-download) records

/**
 * Validates and normalizes one record in bulk-download column names: the single validation point of
 * every ingest path. Rejects, naming the column, a value of the wrong JSON type, an over-long value or
 * one carrying NUL or a lone surrogate (in any column read), a missing id, recipient, date or value,
 * an id not starting with `CONT_AWD_`, a date that is not a real calendar date in 1900–2200 (the
 * optional `last_modified_date` too, when given), and a value that is not finite, exceeds MAX_AMOUNT
 * or is a negative total. The value is `current_total_value_of_award`, or `total_obligated_amount`
 * when the former is absent/blank, rounded to whole dollars. A missing `awarding_agency_name` is
 * derived from the id's agency code.
 */
export function normalizeBulkRecord(rec: Record<string, unknown>): NormalizeResult {
  const problem = recordProblem(rec);
  if (problem !== null) return fail(problem);
  const id = textValue(rec.contract_award_unique_key);
  if (id === null) return fail('contract_award_unique_key is missing');
  if (!/^CONT_AWD_\S+$/.test(id)) {
    return fail(`contract_award_unique_key is not a CONT_AWD_ award id: '${clip(id)}'`);
  }
  const recipientName = textValue(rec.recipient_name);
  if (recipientName === null) return fail('recipient_name is missing');
  const rawDate = textValue(rec.award_base_action_date);
  if (rawDate === null) return fail('award_base_action_date is missing');
  const date = cachedDate(rawDate);
  if (date === null) return fail(badDate('award_base_action_date', rawDate));
  const value = awardValue(rec);
  if ('problem' in value) return fail(value.problem);
  const rawModified = textValue(rec.last_modified_date);
  const modified = rawModified === null ? null : cachedDate(rawModified);
  if (rawModified !== null && modified === null) return fail(badDate('last_modified_date', rawModified));
  return {
    ok: true,
    award: {
      id,
      piid: textValue(rec.award_id_piid),
      recipientName,
      recipientUei: textValue(rec.recipient_uei),
      parentName: textValue(rec.recipient_parent_name),
      parentUei: textValue(rec.recipient_parent_uei),
      awardingAgency: textValue(rec.awarding_agency_name) ?? topTierAgencyForAwardId(id) ?? UNKNOWN_AGENCY,
      awardingSubAgency: textValue(rec.awarding_sub_agency_name),
      value: value.value,
      awardDate: date.date,
      description: textValue(rec.prime_award_base_transaction_description),
      naics: codePart(rec.naics_code),
      psc: codePart(rec.product_or_service_code),
      sourceModifiedAt: modified?.iso ?? null,
    },
  };
}

/** Parses CSV rows, converts each with `toBulk` and normalizes it; rows with a wrong field count are rejected. */
function parseCsvAwards(
  text: string,
  toBulk: (row: Record<string, string>) => BulkRecord | string,
): CsvAwardsResult {
  const { header, rows } = parseCsv(text);
  return collect(
    rows.map(({ line, fields }): AwardItem<LineRejection> => {
      if (fields.length !== header.length)
        return {
          ok: false,
          rejection: { line, message: `expected ${header.length} fields, found ${fields.length}` },
        };
      const bulk = toBulk(rowToObject(header, fields));
      return itemAt(typeof bulk === 'string' ? fail(bulk) : normalizeBulkRecord(bulk), { line });
    }),
  );
}

function parseJsonArray(input: unknown, what: string): unknown[] {
  const value = typeof input === 'string' ? (JSON.parse(input) as unknown) : input;
  if (Array.isArray(value)) return value;
  throw new Error(`${what}: expected a JSON array`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const asBulk = (item: Record<string, unknown>): BulkRecord => item;

/** One item of a JSON array (a file, the admin ingest body, an API page): anything but an object is rejected. */
export function normalizeBulkItem(
  item: unknown,
  toBulk: (item: Record<string, unknown>) => BulkRecord = asBulk,
): NormalizeResult {
  return isRecord(item) ? normalizeBulkRecord(toBulk(item)) : fail('record is not an object');
}

/** Every item of a JSON array; a rejected one is listed with its index. */
export function normalizeBulkItems(
  items: readonly unknown[],
  toBulk: (item: Record<string, unknown>) => BulkRecord = asBulk,
): JsonAwardsResult {
  return collect(
    items.map((item, index) => itemAt<IndexRejection>(normalizeBulkItem(item, toBulk), { index })),
  );
}

// ---------------------------------------------------------------------------------------------
// Shipped demo formats

/**
 * `usaspending_transactions_12primes_*.csv` (spending_by_transaction rows): id =
 * generated_internal_id, date = action_date, value = transaction_amount, description =
 * transaction_description. The source's `ticker`/`company_name`/`company_query` columns are ignored.
 */
export function transactionRowToBulk(row: Record<string, string>): BulkRecord {
  return {
    contract_award_unique_key: row.generated_internal_id,
    award_id_piid: row.award_id,
    recipient_name: row.recipient_name,
    recipient_uei: row.recipient_uei,
    awarding_agency_name: row.awarding_agency,
    awarding_sub_agency_name: row.awarding_sub_agency,
    current_total_value_of_award: row.transaction_amount,
    award_base_action_date: row.action_date,
    prime_award_base_transaction_description: row.transaction_description,
  };
}

export function parseTransactionsCsv(text: string): CsvAwardsResult {
  return parseCsvAwards(text, transactionRowToBulk);
}

/**
 * `usaspending_contract_awards.json` items: id = generated_internal_id, date = base_obligation_date,
 * value = award_amount, psc_code, naics_code. The file has only the sub-agency; the top-tier agency
 * is derived from the id's agency code (see agencies.ts), falling back to the sub-agency name.
 */
export function contractAwardToBulk(item: Record<string, unknown>): BulkRecord {
  const id = textValue(item.generated_internal_id);
  // Raw values go through, so a wrong type or hostile text is rejected by normalizeBulkRecord.
  const sub = item.awarding_sub_agency;
  return {
    contract_award_unique_key: item.generated_internal_id,
    award_id_piid: item.award_id,
    recipient_name: item.recipient_name,
    recipient_uei: item.recipient_uei,
    awarding_agency_name: (id === null ? null : topTierAgencyForAwardId(id)) ?? sub,
    awarding_sub_agency_name: sub,
    current_total_value_of_award: item.award_amount,
    award_base_action_date: item.base_obligation_date,
    prime_award_base_transaction_description: item.description,
    naics_code: item.naics_code,
    product_or_service_code: item.psc_code,
    last_modified_date: item.last_modified_date,
  };
}

export function parseContractAwardsJson(text: string): JsonAwardsResult {
  return normalizeBulkItems(parseJsonArray(text, 'contract awards JSON'), contractAwardToBulk);
}

/** `usaspending_top100_awards_spending_by_award.csv`: a spending_by_award result saved as CSV; date = Start Date. */
export function top100RowToBulk(row: Record<string, string>): BulkRecord {
  return {
    contract_award_unique_key: row.generated_internal_id,
    award_id_piid: row['Award ID'],
    recipient_name: row['Recipient Name'],
    awarding_agency_name: row['Awarding Agency'],
    awarding_sub_agency_name: row['Awarding Sub Agency'],
    current_total_value_of_award: row['Award Amount'],
    award_base_action_date: row['Start Date'],
    prime_award_base_transaction_description: row.Description,
  };
}

export function parseTop100Csv(text: string): CsvAwardsResult {
  return parseCsvAwards(text, top100RowToBulk);
}

/**
 * The award id USASpending generates for a contract:
 * `CONT_AWD_{piid}_{agencyid}_{idvpiid or -NONE-}_{idvagencyid or -NONE-}`, upper-cased.
 */
export function contractAwardKey(
  piid: string,
  agencyId: string,
  idvPiid: string | null,
  idvAgencyId: string | null,
): string {
  return `CONT_AWD_${piid}_${agencyId}_${idvPiid ?? '-NONE-'}_${idvAgencyId ?? '-NONE-'}`.toUpperCase();
}

/**
 * Legacy USASpending "Data Feed" rows (FY2006 DoD sample). The id is built from `piid`, the code
 * part of `agencyid` (`9700: DEPT OF DEFENSE` → 9700), `idvpiid` and `idvagencyid`. recipient =
 * vendorname, parent = mod_parent, date = signeddate (MM/DD/YYYY), value = baseandalloptionsvalue
 * when positive (the transaction's change in total value; a decrease is no total, see `awardValue`),
 * else dollarsobligated (the net obligation, which may be negative), psc/naics = code
 * part of productorservicecode/principalnaicscode, agency = top-tier name for maj_agency_cat's
 * code, sub-agency = contractingofficeagencyid's sub-tier name. Rows are transactions: the same
 * award can appear more than once (the demo loader keeps one, see `loadDemoAwards`).
 */
export function legacyDatafeedRowToBulk(row: Record<string, string>): BulkRecord {
  const piid = textValue(row.piid);
  const agency = codePart(row.agencyid);
  const total = numberValue(row.baseandalloptionsvalue);
  const majCode = codePart(row.maj_agency_cat);
  const subCode = codePart(row.contractingofficeagencyid);
  return {
    contract_award_unique_key:
      piid && agency
        ? contractAwardKey(piid, agency, textValue(row.idvpiid), codePart(row.idvagencyid))
        : null,
    award_id_piid: piid,
    recipient_name: row.vendorname,
    recipient_parent_name: row.mod_parent,
    awarding_agency_name: (majCode ? topTierAgencyForCode(majCode) : null) ?? namePart(row.maj_agency_cat),
    awarding_sub_agency_name:
      (subCode ? DOD_SUB_TIER[subCode] : undefined) ?? namePart(row.contractingofficeagencyid),
    current_total_value_of_award: total === undefined || total <= 0 ? null : row.baseandalloptionsvalue,
    total_obligated_amount: row.dollarsobligated,
    award_base_action_date: row.signeddate,
    prime_award_base_transaction_description: row.descriptionofcontractrequirement,
    naics_code: codePart(row.principalnaicscode),
    product_or_service_code: codePart(row.productorservicecode),
    last_modified_date: row.last_modified_date,
  };
}

export function parseLegacyDatafeedCsv(text: string): CsvAwardsResult {
  return parseCsvAwards(text, (row) => {
    if (textValue(row.piid) === null) return 'piid is missing (needed for contract_award_unique_key)';
    if (codePart(row.agencyid) === null) return 'agencyid is missing (needed for contract_award_unique_key)';
    return legacyDatafeedRowToBulk(row);
  });
}

function codeOf(v: unknown): unknown {
  return isRecord(v) ? v.code : v;
}

/**
 * One `results[]` item of `POST /api/v2/search/spending_by_award/` (contracts). Date = `Base
 * Obligation Date`, else `Start Date`; `NAICS`/`PSC` may be `{code, description}` objects or strings.
 */
export function spendingByAwardResultToBulk(r: Record<string, unknown>): BulkRecord {
  const baseDate = r['Base Obligation Date'];
  const blank =
    baseDate === null || baseDate === undefined || (typeof baseDate === 'string' && !baseDate.trim());
  return {
    contract_award_unique_key: r.generated_internal_id,
    award_id_piid: r['Award ID'],
    recipient_name: r['Recipient Name'],
    recipient_uei: r['Recipient UEI'],
    awarding_agency_name: r['Awarding Agency'],
    awarding_sub_agency_name: r['Awarding Sub Agency'],
    current_total_value_of_award: r['Award Amount'],
    award_base_action_date: blank ? r['Start Date'] : baseDate,
    prime_award_base_transaction_description: r.Description,
    naics_code: codeOf(r.NAICS),
    product_or_service_code: codeOf(r.PSC),
    last_modified_date: r['Last Modified Date'],
  };
}

/** Converts a spending_by_award response (object with `results`, or its JSON text) to awards. */
export function parseSpendingByAwardResults(json: unknown): JsonAwardsResult {
  const body = typeof json === 'string' ? (JSON.parse(json) as unknown) : json;
  if (!isRecord(body) || !Array.isArray(body.results)) {
    throw new Error('spending_by_award response: expected an object with a results array');
  }
  return normalizeBulkItems(body.results, spendingByAwardResultToBulk);
}

// ---------------------------------------------------------------------------------------------
// Demo data loader

export interface DemoAwardSource {
  source: string;
  /** Path relative to the data directory. */
  file: string;
  /**
   * `award`: one row per award with its total value. `transaction`: one action on an award (its value is
   * that action's amount), so an award-level row of the same id describes the award better.
   */
  level: 'award' | 'transaction';
  parse: (text: string) => {
    awards: AwardRecord[];
    rejected: ({ line: number; message: string } | { index: number; message: string })[];
  };
}

/** The shipped award files, in load order (earlier sources win exact ties, see `loadDemoAwards`). */
export const DEMO_AWARD_SOURCES: readonly DemoAwardSource[] = [
  {
    source: 'transactions_12primes_2021_2025',
    file: 'awards/usaspending_transactions_12primes_2021-2025_award_dedup.csv.gz',
    level: 'transaction',
    parse: parseTransactionsCsv,
  },
  {
    source: 'contract_awards_2007_2024',
    file: 'awards/usaspending_contract_awards.json.gz',
    level: 'award',
    parse: parseContractAwardsJson,
  },
  {
    source: 'top100_awards',
    file: 'awards/usaspending_top100_awards_spending_by_award.csv',
    level: 'award',
    parse: parseTop100Csv,
  },
  {
    source: 'legacy_datafeed_dod_fy2006',
    file: 'awards/usaspending_legacy_datafeed_dod_fy2006_sample999.csv.gz',
    level: 'transaction',
    parse: parseLegacyDatafeedCsv,
  },
];

export interface DemoAwardsResult {
  /** Deduplicated by id, sorted by awardDate then id. */
  awards: AwardRecord[];
  /** `line` is the CSV record's first physical line; for JSON sources it is the 0-based array index. */
  rejected: { source: string; line: number; message: string }[];
  /** Per source: records parsed OK, rejected, and how many of the deduplicated awards it supplied. */
  counts: { source: string; file: string; parsed: number; rejected: number; kept: number }[];
  /** Award id → source name of the record kept. */
  provenance: Map<string, string>;
  /** Parsed records dropped because another record had the same id. */
  duplicates: number;
}

interface Sourced {
  award: AwardRecord;
  level: DemoAwardSource['level'];
}

/**
 * True when `candidate` should replace `current` for the same id: an award-level record beats a
 * transaction; at the same level the later date wins, then the larger value.
 */
export function supersedes(candidate: Sourced, current: Sourced): boolean {
  if (candidate.level !== current.level) return candidate.level === 'award';
  const [a, b] = [candidate.award, current.award];
  if (a.awardDate !== b.awardDate) return a.awardDate > b.awardDate;
  return a.value > b.value;
}

/**
 * Reads every shipped award file under `dataDir` and deduplicates by award id. When an id repeats
 * (across or within files) an award-level record is kept over a transaction; then the record with the
 * latest awardDate; on the same date the one with the larger value; on a full tie the first loaded (source order of DEMO_AWARD_SOURCES, then
 * file order).
 */
export async function loadDemoAwards(dataDir: string): Promise<DemoAwardsResult> {
  const byId = new Map<string, Sourced & { source: string }>();
  const rejected: DemoAwardsResult['rejected'] = [];
  const counts: DemoAwardsResult['counts'] = [];
  let parsedTotal = 0;
  for (const src of DEMO_AWARD_SOURCES) {
    const result = src.parse(await readTextFile(join(dataDir, src.file)));
    for (const r of result.rejected) {
      rejected.push({ source: src.source, line: 'line' in r ? r.line : r.index, message: r.message });
    }
    for (const award of result.awards) {
      const current = byId.get(award.id);
      const candidate = { award, level: src.level, source: src.source };
      if (!current || supersedes(candidate, current)) byId.set(award.id, candidate);
    }
    parsedTotal += result.awards.length;
    counts.push({
      source: src.source,
      file: src.file,
      parsed: result.awards.length,
      rejected: result.rejected.length,
      kept: 0,
    });
  }
  const provenance = new Map<string, string>();
  for (const { award, source } of byId.values()) {
    provenance.set(award.id, source);
    const c = counts.find((x) => x.source === source);
    if (c) c.kept++;
  }
  const awards = [...byId.values()]
    .map((x) => x.award)
    .sort((a, b) =>
      a.awardDate === b.awardDate ? (a.id < b.id ? -1 : 1) : a.awardDate < b.awardDate ? -1 : 1,
    );
  return { awards, rejected, counts, provenance, duplicates: parsedTotal - awards.length };
}
