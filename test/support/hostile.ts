/**
 * Hostile inputs for the OpenAPI-driven fuzz test, and the few facts about a parameter's schema the test
 * needs to pick valid neighbours and to know which values must be refused by name.
 */

export interface SchemaObject {
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  enum?: unknown[];
  default?: unknown;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
}

export interface Parameter {
  in: 'query' | 'path' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema: SchemaObject;
}

/** A value as a client means it, and how it is spelled in a URL (some spellings are deliberately bad). */
export interface UrlValue {
  label: string;
  /** The decoded value, or null when the spelling is not valid percent-encoding or UTF-8. */
  value: string | null;
  encoded: string;
}

const plain = (value: string): UrlValue => ({
  label: JSON.stringify(value),
  value,
  encoded: encodeURIComponent(value),
});
const raw = (encoded: string, value: string | null): UrlValue => ({
  label: `raw ${encoded}`,
  value,
  encoded,
});

export const URL_VALUES: UrlValue[] = [
  plain(''),
  plain('Infinity'),
  plain('-Infinity'),
  plain('1e309'),
  plain('1e1'),
  plain('NaN'),
  plain('0x10'),
  plain(' 10'),
  plain('10 '),
  plain('1.5'),
  plain('-1'),
  plain('+5'),
  raw('+5', ' 5'),
  plain('99999999999999999999'),
  plain('true'),
  plain('0000-01-01'),
  plain('2024-02-30'),
  plain('+020000-01-01'),
  plain('2024-13-01'),
  plain('2023-02-29'),
  plain('0000-01-01T00:00:00Z'),
  plain('2024-02-30T00:00:00Z'),
  plain('2024-03-01T24:00:00Z'),
  plain('2016-12-31T23:59:60Z'),
  plain('+020000-01-01T00:00:00Z'),
  { label: '<5,000 chars>', value: 'x'.repeat(5000), encoded: 'x'.repeat(5000) },
  plain('\u0000'),
  raw('%ED%A0%80', null),
  raw('%FF', null),
  raw('%', null),
  plain("'; DROP TABLE contracts;--"),
  plain('../../etc/passwd'),
];

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/**
 * `cursor` values the API never issued, each already URL-safe: text of the right alphabet that is not
 * base64url of JSON, JSON of the wrong shape, and well-formed cursors of every list holding values of
 * the wrong type, out of range, with NUL or huge. Every one is a 400 naming `cursor`.
 */
export const HOSTILE_CURSORS: string[] = [
  'AAAA',
  'A',
  'x'.repeat(1024),
  base64url('x'.repeat(800)),
  base64url('null'),
  base64url('{"v":1}'),
  base64url('[1,"events"'),
  base64url('\u0000'),
  `${base64url('[1,"events","",[]]')}-`,
  ...['events', 'signals', 'regimes', 'webhooks', 'deliveries', 'attempts', 'unmatched'].flatMap((list) =>
    [
      [],
      ['2024-02-30', 'x'],
      ['0000-01-01', 'x'],
      ['99999999999999999999', 'x', 'y'],
      ['2024-03-01T24:00:00.000000Z', '00000000-0000-4000-8000-000000000000'],
      [1, 2],
      [null, { a: [] }],
      ['x\u0000', 'x\u0000', 'x\u0000'],
      ['\ud800', '\ud800', '\ud800'],
    ].flatMap((position) => [
      base64url(JSON.stringify([1, list, '', position])),
      base64url(JSON.stringify([2, list, '', position])),
    ]),
  ),
];

/**
 * Request bodies are sent as raw JSON text, so values JSON.stringify cannot produce (1e309 parses to
 * Infinity) still reach the server.
 */
export const JSON_VALUES: string[] = [
  'null',
  'true',
  '0',
  '-1',
  '1.5',
  '1e309',
  '-1e309',
  '18446744073709551616',
  '""',
  '"12345678\\u0000abc"',
  '"\\ud800\\ud800\\ud800\\ud800"',
  '"x@example.test\\u0000"',
  '"\'; DROP TABLE contracts;--"',
  '"../../etc/passwd"',
  '"0000-01-01"',
  JSON.stringify('x'.repeat(100_000)),
  '[]',
  '{}',
  '{"a":{"b":{"c":{"d":[1,{"e":null}]}}}}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  '[null,1e309,"\\u0000",{}]',
];

/** Whole bodies that are not JSON objects, or not UTF-8 at all. */
export const RAW_BODIES: (string | Buffer)[] = [
  '',
  'null',
  '[]',
  '"x"',
  '1e309',
  '{"a":',
  '{"__proto__":{"admin":true}}',
  Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
];

/** For an array of records: one record with every declared field set to the same hostile value. */
export function hostileRecords(items: SchemaObject | undefined): string[] {
  const keys = Object.keys(items?.properties ?? {});
  if (keys.length === 0) return [];
  return ['"\\u0000"', '"\\ud800"', '1e309', '"0000-01-01"', '1e20', '{"a":[]}', '"x"'].map(
    (value) => `[{${keys.map((key) => `${JSON.stringify(key)}:${value}`).join(',')}}]`,
  );
}

const bounds = (s: SchemaObject, n: number) =>
  (s.minimum === undefined || n >= s.minimum) &&
  (s.maximum === undefined || n <= s.maximum) &&
  (s.exclusiveMinimum === undefined || n > s.exclusiveMinimum) &&
  (s.exclusiveMaximum === undefined || n < s.exclusiveMaximum);

function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  return year >= 1900 && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/**
 * Whether the API must refuse `value` by naming the parameter: the typed parameters (integer, number,
 * date, date-time) accept only plain decimals within bounds and real calendar dates.
 */
export function mustRefuse(schema: SchemaObject, value: string | null): boolean {
  if (value === null) return isTyped(schema);
  switch (schema.type === 'string' ? schema.format : schema.type) {
    case 'integer':
      return !(/^-?\d{1,15}$/.test(value) && bounds(schema, Number(value)));
    case 'number':
      return !(/^-?\d{1,15}(\.\d+)?$/.test(value) && bounds(schema, Number(value)));
    case 'date':
      return !isCalendarDate(value);
    case 'date-time': {
      const m = /^(.{10})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?Z$/.exec(value);
      return !(m?.[1] && isCalendarDate(m[1]));
    }
    default:
      return false;
  }
}

export const isTyped = (schema: SchemaObject): boolean =>
  schema.type === 'integer' ||
  schema.type === 'number' ||
  (schema.type === 'string' && (schema.format === 'date' || schema.format === 'date-time'));

/** A value the schema accepts, for the parameters and body fields not under test. */
export function validSample(schema: SchemaObject, name: string): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return schema.items?.enum?.length ? [schema.items.enum[0]] : [];
    case 'object':
      return {};
  }
  if (schema.format === 'date') return '2024-03-01';
  if (schema.format === 'date-time') return '2024-03-01T00:00:00Z';
  if (schema.format === 'email')
    return `fuzz-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (name === 'url') return 'https://hooks.example.com/in';
  return 'f'.repeat(Math.max(schema.minLength ?? 1, 8));
}
