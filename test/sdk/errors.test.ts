/**
 * The SDK's error vocabulary is the server's: every code the server can write is in `ServiceErrorCode`
 * (checked by the compiler both ways), and each documented status has its own class.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  AuthenticationError,
  ConflictError,
  ERROR_CLASSES,
  errorFor,
  HeadersTooLargeError,
  InternalServerError,
  MarketIntelError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  type ServiceErrorCode,
  ServiceUnavailableError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError,
  UriTooLongError,
  ValidationError,
} from '../../sdk/src/index.ts';
import { errorFromResponse } from '../../sdk/src/transport.ts';
import { ERROR_STATUS } from '../../src/http/errors.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when the server gains or loses a code the SDK's union does not have. */
const sameCodes: Same<ServiceErrorCode, keyof typeof ERROR_STATUS> = true;

const EXPECTED: Record<number, new (...args: never[]) => MarketIntelError> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  408: RequestTimeoutError,
  409: ConflictError,
  413: PayloadTooLargeError,
  414: UriTooLongError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  431: HeadersTooLargeError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

const details = (status: number, code: string) => ({ status, code, message: code, requestId: 'r' });

test('every code the server writes maps to the class of its status', () => {
  assert.ok(sameCodes);
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    const error = errorFor(details(status, code));
    const Expected = EXPECTED[status];
    assert.ok(Expected, `status ${status} (${code}) has a class`);
    assert.ok(error instanceof Expected, `${code} → ${error.name}`);
    assert.equal(error.name, Expected.name);
    assert.equal(error.code, code);
  }
});

test('every error status the document declares has its own class', () => {
  const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  const statuses = new Set(
    Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => Object.keys(op.responses ?? {}))
      .filter((s) => Number(s) >= 400)
      .map(Number),
  );
  for (const status of statuses) assert.ok(ERROR_CLASSES[status], `${status} has a class`);
  assert.deepEqual(Object.keys(ERROR_CLASSES).map(Number).sort(), Object.keys(EXPECTED).map(Number).sort());
});

test('the classes keep their families: request-shape refusals are ValidationErrors, 5xx ServerErrors', () => {
  for (const status of [400, 413, 414, 415, 431])
    assert.ok(errorFor(details(status, 'x')) instanceof ValidationError);
  for (const status of [500, 502, 503, 504]) assert.ok(errorFor(details(status, 'x')) instanceof ServerError);
  const other = errorFor(details(418, 'http_418'));
  assert.equal(other.constructor, MarketIntelError);
});

test('an envelope becomes the error: code, message, request id, param, Retry-After and headers', () => {
  const headers = new Headers({ 'retry-after': '3', 'x-request-id': 'from-header' });
  const envelope = { status: 400, message: 'invalid query parameter "limit"', code: 'invalid_parameter' };
  const error = errorFromResponse({
    status: 400,
    headers,
    text: JSON.stringify({ error: { ...envelope, param: 'limit', request_id: 'req-1' } }),
  });
  assert.ok(error instanceof ValidationError);
  assert.deepEqual(
    [error.code, error.message, error.requestId, error.param, error.retryAfter, error.headers],
    ['invalid_parameter', envelope.message, 'req-1', 'limit', 3, headers],
  );
  const bare = errorFromResponse({ status: 502, headers, text: '<html>bad gateway</html>' });
  assert.ok(bare instanceof ServerError);
  assert.deepEqual([bare.code, bare.requestId, bare.param], ['http_502', 'from-header', null]);
});
