/**
 * The `cursor` of a list page: an opaque base64url text holding a format version, the list it belongs
 * to, a digest of the filters it was made with, and the position of the last row served. Decoding
 * checks every part against the list and request it is sent to, so a cursor of another list, another
 * filter set or a hand-made one is a 400 naming the parameter, never a query that fails in the database.
 */
import { createHash } from 'node:crypto';
import type { Keyset, KeyType, Position } from '../store/keyset.ts';
import { errors } from './errors.ts';

const VERSION = 1;

/** Longest cursor accepted: every list's position fits with room to spare. */
export const MAX_CURSOR_LENGTH = 1024;

/** Longest text key value (contract ids, recipient names). */
const MAX_TEXT_KEY = 512;

export function encodeCursor(keyset: Keyset, filters: string, position: Position): string {
  return Buffer.from(JSON.stringify([VERSION, keyset.name, filters, position])).toString('base64url');
}

/** The position a cursor continues after; a 400 (`invalid_parameter`, "cursor") when it is not one of `keyset`'s. */
export function decodeCursor(text: string, keyset: Keyset, filters: string): Position {
  const fields = parse(text);
  if (!Array.isArray(fields) || fields.length !== 4 || fields[0] !== VERSION) {
    throw invalid('not a cursor this API issued');
  }
  const [, list, digest, position] = fields as unknown[];
  if (list !== keyset.name) throw invalid('it belongs to another list');
  if (digest !== filters)
    throw invalid('it was issued for other filters; send the same filters on every page');
  if (
    !Array.isArray(position) ||
    position.length !== keyset.columns.length ||
    !keyset.columns.every((column, i) => isKeyValue(column.type, position[i]))
  ) {
    throw invalid('not a cursor this API issued');
  }
  return position as string[];
}

const invalid = (detail: string) => errors.invalidParameter('cursor', detail);

function parse(text: string): unknown {
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw invalid('not a cursor');
  const bytes = Buffer.from(text, 'base64url');
  // Node skips what is not base64url; a text that does not re-encode to itself was not one of ours.
  if (bytes.toString('base64url') !== text) throw invalid('not a cursor');
  const json = bytes.toString('utf8');
  try {
    return JSON.parse(json);
  } catch {
    throw invalid('not a cursor');
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INTEGER = /^-?\d{1,19}$/;
const RANGE = {
  int4: [-(2n ** 31n), 2n ** 31n - 1n],
  int8: [-(2n ** 63n), 2n ** 63n - 1n],
} as const;

/** Whether `value` is text PostgreSQL casts to `type` without an error (as keyset.ts writes them). */
export function isKeyValue(type: KeyType, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  switch (type) {
    case 'date':
      return isCalendarDate(value);
    case 'timestamptz': {
      const m = TIMESTAMP.exec(value);
      return m?.[1] !== undefined && isCalendarDate(m[1]);
    }
    case 'int4':
    case 'int8': {
      if (!INTEGER.test(value)) return false;
      const n = BigInt(value);
      const [min, max] = RANGE[type];
      return n >= min && n <= max;
    }
    case 'uuid':
      return UUID.test(value);
    case 'text':
      // PostgreSQL refuses NUL in text; a lone surrogate is no text a row holds.
      return value.length <= MAX_TEXT_KEY && !value.includes('\u0000') && !/\p{Cs}/u.test(value);
  }
}

/** A real day from year 1 (PostgreSQL has no year 0). */
function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  return year >= 1 && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/**
 * What a list's rows depend on besides the position: the path parameters and every query parameter
 * but the page's own (`limit`, `offset`, `cursor`), as validated. A short digest, not the values: a
 * cursor carries no filter text back and forth.
 */
export function filterDigest(params: unknown, query: unknown): string {
  const entries = (values: unknown) =>
    Object.entries((values ?? {}) as Record<string, unknown>)
      .filter(([name, value]) => value !== undefined && !PAGE_PARAMS.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([entries(params), entries(query)]))
    .digest('base64url')
    .slice(0, 12);
}

const PAGE_PARAMS = new Set(['limit', 'offset', 'cursor']);
