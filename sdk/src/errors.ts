/**
 * Errors the client throws. Every answer outside 2xx becomes a `MarketIntelError` (or one of its
 * subclasses) carrying the envelope's `status`, `code`, `message` and `request_id`.
 */

/** The service's stable error codes; other strings may appear as the service grows. */
export type ErrorCode =
  | 'invalid_parameter'
  | 'invalid_body'
  | 'bad_request'
  | 'unauthorized'
  | 'insufficient_scope'
  | 'tier_required'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'headers_too_large'
  | 'internal'
  | 'unavailable'
  /** No answer: the connection failed or the request timed out (`status` is 0). */
  | 'connection_error'
  | 'timeout'
  /** A next-page `Link` pointed at another origin (`CrossOriginLinkError`, `status` 0). */
  | 'cross_origin_link'
  | (string & Record<never, never>);

export interface ErrorDetails {
  status: number;
  code: ErrorCode;
  message: string;
  requestId: string | null;
  /** Seconds to wait before retrying, from `Retry-After` (429 and 503 answers). */
  retryAfter?: number | null;
  cause?: unknown;
}

export class MarketIntelError extends Error {
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  readonly code: ErrorCode;
  /** The request's id (envelope `request_id`, else the `X-Request-Id` header): quote it to operators. */
  readonly requestId: string | null;

  constructor(details: ErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
  }
}

/** 400, 413, 415: a parameter or body the service will not use as given; `message` names it. */
export class ValidationError extends MarketIntelError {}
/** 401: missing, unknown or revoked key. */
export class AuthenticationError extends MarketIntelError {}
/** 403: scope, tier or plan does not allow the operation (`code` says which). */
export class PermissionError extends MarketIntelError {}
export class NotFoundError extends MarketIntelError {}
export class ConflictError extends MarketIntelError {}

/** 429: the key is over its window; `retryAfter` is in seconds. */
export class RateLimitError extends MarketIntelError {
  readonly retryAfter: number | null;
  constructor(details: ErrorDetails) {
    super(details);
    this.retryAfter = details.retryAfter ?? null;
  }
}

/** 5xx: `retryAfter` (seconds) when the service said when to come back (503). */
export class ServerError extends MarketIntelError {
  readonly retryAfter: number | null;
  constructor(details: ErrorDetails) {
    super(details);
    this.retryAfter = details.retryAfter ?? null;
  }
}

/** No answer: a network failure or the client's own timeout (`code` `timeout`). */
export class ConnectionError extends MarketIntelError {}

/**
 * A page's `Link: <…>; rel="next"` pointed at another origin (scheme, host or port) than the client's
 * `baseUrl`. Iteration stops before any request is sent there: the client's key goes only to the
 * service it was configured for. `link` is the target as the answer gave it.
 */
export class CrossOriginLinkError extends MarketIntelError {
  readonly link: string;
  constructor(link: string, baseUrl: string) {
    super({
      status: 0,
      code: 'cross_origin_link',
      message: `refusing to follow a next-page link to another origin than ${baseUrl}: ${link}`,
      requestId: null,
    });
    this.link = link;
  }
}

/** The error class for an HTTP status. */
export function errorFor(details: ErrorDetails): MarketIntelError {
  const { status } = details;
  if (status === 400 || status === 413 || status === 415) return new ValidationError(details);
  if (status === 401) return new AuthenticationError(details);
  if (status === 403) return new PermissionError(details);
  if (status === 404) return new NotFoundError(details);
  if (status === 409) return new ConflictError(details);
  if (status === 429) return new RateLimitError(details);
  if (status >= 500) return new ServerError(details);
  return new MarketIntelError(details);
}
