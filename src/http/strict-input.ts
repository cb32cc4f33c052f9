import type { FastifyRequest } from 'fastify';
import { validationError } from './error-handler.ts';
import { routeOf } from './route-of.ts';
import type { App } from './types.ts';

/**
 * Query and path values are checked as the strings the client sent, before Ajv coerces them. Ajv's
 * `coerceTypes` turns "0x10", " 10", "+5" and "1e1" into numbers and lets "Infinity" reach SQL, its
 * `date` formats accept year 0000, which PostgreSQL refuses, and a repeated parameter arrives as an
 * array. Each is a 400 naming the parameter, in the same words as Ajv's own errors.
 *
 * - integer: decimal digits with an optional '-', within the schema's bounds and a safe integer;
 * - number: `-?digits(.digits)?`, finite, within the schema's bounds;
 * - date: a real calendar day YYYY-MM-DD, from 1900-01-01;
 * - date-time: RFC 3339 with a zone, real day, time and offset, from 1900-01-01.
 *
 * 1900 predates every award and candle shipped (the earliest is 1993) and keeps clear of year 0 and
 * of offsets that cross into BC; the four-digit year caps the range at 9999-12-31, which PostgreSQL
 * and JS Date both hold and which clients use as an open end.
 */
export const FIRST_DAY = '1900-01-01';

interface FieldSchema {
  type?: unknown;
  format?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  exclusiveMinimum?: unknown;
  exclusiveMaximum?: unknown;
}

interface Issue {
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

type Check = (value: string) => Issue | null;
type Context = 'querystring' | 'params';

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[Tt ](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:[Zz]|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)$/;

const issue = (keyword: string, message: string): Issue => ({ keyword, message, params: {} });
/** Issues Ajv also raises, so error-handler.ts words them as it words Ajv's. */
const wrongType = (type: string): Issue => ({ keyword: 'type', params: { type } });
const wrongFormat = (format: string): Issue => ({ keyword: 'format', params: { format } });

function bounds(schema: FieldSchema, n: number): Issue | null {
  const { minimum: min, maximum: max, exclusiveMinimum: xmin, exclusiveMaximum: xmax } = schema;
  if (typeof min === 'number' && n < min) return issue('minimum', `must be >= ${min}`);
  if (typeof max === 'number' && n > max) return issue('maximum', `must be <= ${max}`);
  if (typeof xmin === 'number' && n <= xmin) return issue('exclusiveMinimum', `must be > ${xmin}`);
  if (typeof xmax === 'number' && n >= xmax) return issue('exclusiveMaximum', `must be < ${xmax}`);
  return null;
}

const numeric =
  (schema: FieldSchema, type: 'integer' | 'number'): Check =>
  (value) => {
    const n = Number(value);
    if (!(type === 'integer' ? INTEGER : DECIMAL).test(value)) return wrongType(type);
    const outside = bounds(schema, n);
    if (outside) return outside;
    const representable = type === 'integer' ? Number.isSafeInteger(n) : Number.isFinite(n);
    return representable ? null : issue('range', 'is out of range');
  };

/** Null for a real calendar day in range; otherwise why not. */
function dayIssue(text: string, format: 'date' | 'date-time'): Issue | null {
  const [, y, m, d] = DATE.exec(text) ?? [];
  const [year, month, day] = [Number(y), Number(m), Number(d)];
  // Day 0 of the next month is this month's last day; years 400 apart share their leap years, and
  // Date.UTC would read a year below 100 as 19xx.
  const last = new Date(Date.UTC(2000 + (year % 400), month, 0)).getUTCDate();
  const real = month >= 1 && month <= 12 && day >= 1 && day <= last;
  if (!real) return wrongFormat(format);
  return text < FIRST_DAY ? issue('range', `must be on or after ${FIRST_DAY}`) : null;
}

const date: Check = (value) => (DATE.test(value) ? dayIssue(value, 'date') : wrongFormat('date'));

const dateTime: Check = (value) => {
  const day = DATE_TIME.exec(value)?.[1];
  return day ? dayIssue(day, 'date-time') : wrongFormat('date-time');
};

function checkFor(schema: FieldSchema): Check | null {
  if (schema.type === 'integer' || schema.type === 'number') return numeric(schema, schema.type);
  if (schema.type !== 'string') return null;
  if (schema.format === 'date') return date;
  if (schema.format === 'date-time') return dateTime;
  return null;
}

/** A declared name and its check (null: any single string, left to Ajv). */
interface NamedCheck {
  name: string;
  check: Check | null;
}

/**
 * Per query or params schema, built once. An array walked by index: iterating a Map's entries made
 * an iterator and an entry pair per name at every request.
 */
const compiled = new WeakMap<object, NamedCheck[]>();
const NONE: NamedCheck[] = [];

function checksOf(schema: unknown): NamedCheck[] {
  if (typeof schema !== 'object' || schema === null) return NONE;
  let checks = compiled.get(schema);
  if (!checks) {
    const properties = (schema as { properties?: Record<string, FieldSchema> }).properties ?? {};
    checks = Object.entries(properties).map(([name, field]) => ({ name, check: checkFor(field) }));
    compiled.set(schema, checks);
  }
  return checks;
}

function inspect(values: unknown, schema: unknown, context: Context): void {
  if (typeof values !== 'object' || values === null) return;
  const checks = checksOf(schema);
  for (let i = 0; i < checks.length; i += 1) {
    const { name, check } = checks[i] as NamedCheck;
    const value: unknown = (values as Record<string, unknown>)[name];
    if (value === undefined) continue;
    const found = Array.isArray(value)
      ? issue('repeated', 'must be given once')
      : typeof value === 'string' && check
        ? check(value)
        : null;
    if (found) throw validationError({ ...found, instancePath: `/${name}` }, context);
  }
}

/** Installs the check on every route with a querystring or params schema (see the comment above). */
export function installStrictInput(app: App): void {
  // A callback hook: no promise per request; a throw becomes the error reply (Fastify's hook runner).
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const schema = routeOf(request).schema;
    if (schema) {
      inspect(request.params, schema.params, 'params');
      inspect(request.query, schema.querystring, 'querystring');
    }
    done();
  });
}
