/**
 * SQL expressions that write JSON text in the server, byte for byte as the API's serializer wrote the same
 * values: no whitespace, keys in the order given (the response schema's), numbers as JavaScript prints
 * them, timestamps as `toISOString`. The read endpoints send this text as it comes: node never parses it
 * (a signal's stored rationale is widened by a scan, see `widenRationales`).
 * Every expression yields text, never NULL (a NULL piece would make its whole row NULL, and string_agg
 * would drop the row without a word).
 */

/** An object from `[key, expression]` pairs, each expression JSON text; keys are written as given. */
export function jsonObject(fields: readonly (readonly [key: string, json: string])[]): string {
  return `${fields.map(([key, value], i) => `'${i === 0 ? '{' : ','}"${key}":' || ${value}`).join(' || ')} || '}'`;
}

/** A text, uuid or date value (dates as YYYY-MM-DD) as a JSON string, or null. */
export const jsonString = (sql: string) => `coalesce(to_json(${sql})::text, 'null')`;

/**
 * An integer column. int8 is written in full, where a JavaScript number rounds beyond 2^53 (no contract
 * value or volume comes near).
 */
export const jsonInteger = (sql: string) => `coalesce((${sql})::text, 'null')`;

/**
 * A float8 as `String(number)` writes it. float8 output (PostgreSQL 12+, extra_float_digits ≥ 1: the
 * default) has the shortest round-trip digits, as JavaScript, and the same notation for magnitudes in
 * [1e-4, 1e15); in [1e-6, 1e-4) and [1e15, 1e21) JavaScript writes the digits out, as numeric does; beyond,
 * both use exponents, PostgreSQL with at least two digits (1e-07 for JavaScript's 1e-7). -0 is 0;
 * infinities and NaN are null (the serializer wrote null for infinities and refused NaN).
 * Always the same number; the same digits below 2^53 in magnitude (every price, share and feature served).
 * Beyond, where doubles are integers, a shortest candidate can lie exactly halfway between two doubles:
 * JavaScript takes it when the mantissa is even, PostgreSQL never does and writes one digit more.
 */
export function jsonNumber(sql: string): string {
  const x = `(${sql})`;
  return `CASE WHEN abs(${x}) >= 1e-4::float8 AND abs(${x}) < 1e15::float8 THEN ${x}::text
    WHEN ${x} = 0 THEN '0'
    WHEN abs(${x}) >= 1e-6::float8 AND abs(${x}) < 1e21::float8 THEN ${x}::text::numeric::text
    WHEN abs(${x}) < 'Infinity'::float8 THEN replace(${x}::text, 'e-0', 'e-')
    ELSE 'null' END`;
}

/** A timestamptz as `Date#toISOString` writes it: UTC, milliseconds (truncated, as node-postgres did), Z. */
export const jsonTimestamp = (sql: string) =>
  `coalesce('"' || to_char((${sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;

/** An aggregate: the rows' JSON texts as one array in `order`, `[]` when there are none. */
export const jsonArray = (item: string, order: string) =>
  `'[' || coalesce(string_agg(${item}, ',' ORDER BY ${order}), '') || ']'`;

/** What a list query returns: its `data` array as JSON text and the number of items in it. */
export interface JsonList {
  json: string;
  count: number;
}

/** The one row of a list query; none at all (bench/explain.ts's recorder) reads as an empty list. */
export const jsonList = (rows: readonly JsonList[]): JsonList => rows[0] ?? { json: '[]', count: 0 };
