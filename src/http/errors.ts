import type { RefusalLimit } from '../infra/metrics.ts';

/** One error vocabulary: a stable code, its status, and the envelope every error leaves in. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  invalid_body: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  tier_required: 403,
  forbidden: 403,
  bad_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorEnvelope {
  error: { status: number; message: string; code: ErrorCode; param?: string; request_id?: string };
}

export class ApiError extends Error {
  readonly status: number;
  /** The rate limit that refused the request, if one did (counted in /metrics). */
  limit: RefusalLimit | null = null;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /**
     * The query, path or header parameter, or the body field (dotted path, e.g. `events.0`), the
     * request got wrong: for programs, while `message` is for people.
     */
    readonly param?: string,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  toEnvelope(requestId?: string): ErrorEnvelope {
    const { status, message, code, param } = this;
    return {
      error: { status, message, code, ...(param === undefined ? {} : { param }), request_id: requestId },
    };
  }
}

/** The API's 401s (RFC 9110 §11.6.1): a key is a bearer token (or the same key in `x-api-key`). */
export const KEY_CHALLENGE = { 'www-authenticate': 'Bearer realm="market-intel"' } as const;
/** A key was sent but is unknown or revoked (RFC 6750 §3.1). */
export const INVALID_KEY_CHALLENGE = {
  'www-authenticate': 'Bearer realm="market-intel", error="invalid_token"',
} as const;

/** Named factories, so handlers never pick statuses or wording by hand. */
export const errors = {
  invalidParameter: (name: string, detail: string) =>
    new ApiError('invalid_parameter', `invalid query parameter "${name}": ${detail}`, {}, name),
  unknownParameter: (name: string, known: string[]) =>
    new ApiError(
      'invalid_parameter',
      `unknown query parameter "${name}"; ${known.length ? `accepted: ${known.join(', ')}` : 'this endpoint takes none'}`,
      {},
      name,
    ),
  invalidPath: (name: string, detail: string) =>
    new ApiError('invalid_parameter', `invalid path parameter "${name}": ${detail}`, {}, name),
  // A header's `param` is its name in lower case, as HTTP/2 and node spell every header.
  invalidHeader: (name: string, detail: string) =>
    new ApiError('invalid_parameter', `invalid header "${name}": ${detail}`, {}, name.toLowerCase()),
  repeatedHeader: (name: string) =>
    new ApiError(
      'invalid_parameter',
      `invalid header "${name}": sent more than once`,
      {},
      name.toLowerCase(),
    ),
  /** `field`: the body field at fault, when one is (not for a body that is not JSON at all). */
  invalidBody: (detail: string, field?: string) =>
    new ApiError('invalid_body', `invalid request body: ${detail}`, {}, field),
  bodyNotTaken: () =>
    new ApiError('invalid_body', 'invalid request body: this operation takes no request body'),
  unknownEngine: (name: string, known: string[]) =>
    new ApiError(
      'invalid_parameter',
      `invalid query parameter "engine": unknown engine "${name}"; known engines: ${known.join(', ')}`,
      {},
      'engine',
    ),
  contractNotFound: (id: string) => new ApiError('not_found', `contract not found: ${id}`),
  signalNotFound: (id: string, engine: string) =>
    new ApiError('not_found', `no signal for engine "${engine}" on contract ${id}`),
  unknownTicker: (ticker: string) => new ApiError('not_found', `unknown ticker: ${ticker}`),
  routeNotFound: (method: string, url: string) => new ApiError('not_found', `no route for ${method} ${url}`),
  methodNotAllowed: (method: string, allowed: string[]) =>
    new ApiError('method_not_allowed', `method ${method} not allowed; allowed: ${allowed.join(', ')}`, {
      allow: allowed.join(', '),
    }),
  payloadTooLarge: () => new ApiError('payload_too_large', 'request body too large'),
  malformedRequest: (detail: string) => new ApiError('bad_request', `malformed request: ${detail}`),
  requestTimeout: () => new ApiError('request_timeout', 'the request did not arrive in time; send it again'),
  uriTooLong: (max: number) => new ApiError('uri_too_long', `request target longer than ${max} bytes`),
  headersTooLarge: () => new ApiError('headers_too_large', 'request headers too large'),
  unsupportedMediaType: (type: string) =>
    new ApiError('unsupported_media_type', `unsupported content type: ${type}`),
  unsupportedEncoding: (coding: string) =>
    new ApiError(
      'unsupported_media_type',
      `unsupported content encoding: ${coding}; send the body uncompressed (identity)`,
    ),
  missingKey: () =>
    new ApiError(
      'unauthorized',
      'missing API key: send it in the x-api-key header or as "Authorization: Bearer <key>"',
      KEY_CHALLENGE,
    ),
  invalidKey: () => new ApiError('unauthorized', 'invalid API key', INVALID_KEY_CHALLENGE),
  revokedKey: () => new ApiError('unauthorized', 'API key has been revoked', INVALID_KEY_CHALLENGE),
  /** Waiting is one way out (Retry-After), sending a valid key the other. */
  keylessThrottled: (retryAfterSec: number) =>
    refusedBy(
      'keyless',
      new ApiError(
        'unauthorized',
        'too many requests without a valid API key from this address; send a valid key or retry after Retry-After',
        { ...KEY_CHALLENGE, 'retry-after': String(retryAfterSec) },
      ),
    ),
  noLiveAccess: (plan: string) =>
    new ApiError(
      'forbidden',
      `plan has no live API access (plan: ${plan}); use a test key or upgrade to developer`,
    ),
  insufficientScope: (needed: string, held: readonly string[]) =>
    new ApiError(
      'insufficient_scope',
      `insufficient scope: this endpoint needs ${needed}; the key has ${held.join(', ')}`,
    ),
  adminOnly: () => new ApiError('forbidden', 'admin endpoints are for admin users only'),
  tierRequired: (tier: string, plan: string, what = 'this endpoint') =>
    new ApiError('tier_required', `${what} requires the ${tier} tier; your plan is ${plan}`),
  rateLimited: (retryAfterSec: number) =>
    refusedBy(
      'key',
      new ApiError('rate_limited', 'rate limit exceeded', { 'retry-after': String(retryAfterSec) }),
    ),
  /** A signed-in user past their dashboard reads (src/dashboard/meter.ts): the API's 429. */
  dashboardRateLimited: (retryAfterSec: number) =>
    refusedBy(
      'dashboard',
      new ApiError('rate_limited', 'rate limit exceeded', { 'retry-after': String(retryAfterSec) }),
    ),
  /** One message whichever throttle refused, so it says nothing about the account. */
  signInThrottled: (retryAfterSec: number) =>
    refusedBy(
      'sign_in',
      new ApiError('rate_limited', 'too many sign-in attempts; try again later', {
        'retry-after': String(retryAfterSec),
      }),
    ),
  signUpThrottled: (retryAfterSec: number) =>
    refusedBy(
      'sign_up',
      new ApiError('rate_limited', 'too many sign-ups from this address; try again later', {
        'retry-after': String(retryAfterSec),
      }),
    ),
  busy: () => new ApiError('unavailable', 'too busy right now; try again shortly', { 'retry-after': '1' }),
  exportsPerUser: (max: number) =>
    new ApiError(
      'rate_limited',
      `${max} exports of this account are already running; wait for one to finish`,
      { 'retry-after': '5' },
    ),
  streamsPerUser: (max: number) =>
    new ApiError(
      'rate_limited',
      `${max} event streams of this account are already open; close one (the page polls meanwhile)`,
      { 'retry-after': '30' },
    ),
  exportsBusy: (running: number) =>
    new ApiError('unavailable', `${running} exports are running on this server; try again shortly`, {
      'retry-after': '5',
    }),
  /** The rate limiter could not decide: refused rather than served uncounted. */
  limiterUnavailable: () =>
    new ApiError('unavailable', 'rate limiting is unavailable; try again shortly', { 'retry-after': '1' }),
  conflict: (message: string) => new ApiError('conflict', message),
  idempotencyKeyReused: () =>
    new ApiError(
      'idempotency_key_reused',
      'this Idempotency-Key was used with a different request; send a new key for a new request',
    ),
  idempotencyInProgress: () =>
    new ApiError(
      'idempotency_in_progress',
      'a request with this Idempotency-Key is still being processed; retry shortly',
      { 'retry-after': '1' },
    ),
  /** Stored answers are sealed with SECRET_KEY; a server without one cannot keep them. */
  idempotencyUnavailable: () =>
    new ApiError('unavailable', 'Idempotency-Key is not available: the server has no SECRET_KEY'),
  forbidden: (message: string) => new ApiError('forbidden', message),
  userNotFound: (id: string) => new ApiError('not_found', `user not found: ${id}`),
  keyNotFound: (id: string) => new ApiError('not_found', `API key not found: ${id}`),
  internal: () => new ApiError('internal', 'internal server error'),
  /** PostgreSQL cannot be reached or will not serve now (isDatabaseUnavailable). */
  databaseUnavailable: () =>
    new ApiError('unavailable', 'the database is unavailable; try again shortly', { 'retry-after': '2' }),
  unavailable: (detail: string) => new ApiError('unavailable', detail),
};

function refusedBy(limit: RefusalLimit, error: ApiError): ApiError {
  error.limit = limit;
  return error;
}
