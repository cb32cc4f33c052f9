/**
 * Errors the client throws. Every answer outside 2xx becomes a `MarketIntelError` subclass chosen by
 * its status, carrying the envelope's `status`, `code`, `message` and `request_id`.
 */
import type { Error as ErrorEnvelope } from './generated.js';

/** Every code the service writes in an error envelope (the document's closed set). */
export type ServiceErrorCode = ErrorEnvelope['error']['code'];
/** Codes the client itself gives when no usable answer arrived (`status` 0). */
export type ClientErrorCode =
  /** The connection failed or broke off (an export's body included). */
  | 'connection_error'
  /** No answer within `timeoutMs`. */
  | 'timeout'
  /** A next-page `Link` pointed at another origin (`CrossOriginLinkError`). */
  | 'cross_origin_link'
  /** A 2xx whose body is not what the operation declares (an export line that is not JSON, say). */
  | 'invalid_response';
/**
 * A code on an error: the service's, the client's, or `http_<status>` for an answer without the
 * service's envelope (a proxy's page). The open tail keeps old clients working when codes are added.
 */
export type ErrorCode =
  | ServiceErrorCode
  | ClientErrorCode
  | `http_${number}`
  | (string & Record<never, never>);

export interface ErrorDetails {
  status: number;
  code: ErrorCode;
  message: string;
  requestId: string | null;
  /** The parameter or body field at fault (the envelope's `param`, on `invalid_parameter`/`invalid_body`). */
  param?: string | null;
  /** Seconds to wait before retrying, from `Retry-After` (429, 503, 409 `idempotency_in_progress`). */
  retryAfter?: number | null;
  /** The answer's headers; null when no answer arrived. */
  headers?: Headers | null;
  cause?: unknown;
}

export class MarketIntelError extends Error {
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  readonly code: ErrorCode;
  /** The request's id (envelope `request_id`, else the `X-Request-Id` header): quote it to operators. */
  readonly requestId: string | null;
  /**
   * The query, path or header parameter, or the body field (a dotted path such as `events.0`), that
   * the service refused: the envelope's `param`, null when it names none.
   */
  readonly param: string | null;
  /** Seconds the answer's `Retry-After` asked for, or null. */
  readonly retryAfter: number | null;
  /** The answer's headers (null when none arrived). */
  readonly headers: Headers | null;

  constructor(details: ErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.param = details.param ?? null;
    this.retryAfter = details.retryAfter ?? null;
    this.headers = details.headers ?? null;
  }
}

/** 400 and the request-shape refusals (413, 414, 415, 431): the service will not use the request as given. */
export class ValidationError extends MarketIntelError {}
/** 413 `payload_too_large`. */
export class PayloadTooLargeError extends ValidationError {}
/** 414 `uri_too_long`. */
export class UriTooLongError extends ValidationError {}
/** 415 `unsupported_media_type`. */
export class UnsupportedMediaTypeError extends ValidationError {}
/** 431 `headers_too_large`. */
export class HeadersTooLargeError extends ValidationError {}
/** 401: missing, unknown or revoked key (or too many keyless requests from one address). */
export class AuthenticationError extends MarketIntelError {}
/** 403: scope, tier or plan does not allow the operation (`code` says which). */
export class PermissionError extends MarketIntelError {}
/** 404 `not_found`. */
export class NotFoundError extends MarketIntelError {}
/** 405 `method_not_allowed`; the `Allow` header is in `headers`. */
export class MethodNotAllowedError extends MarketIntelError {}
/** 408 `request_timeout`: the request did not reach the service in time (retried like a 5xx). */
export class RequestTimeoutError extends MarketIntelError {}
/** 409: `conflict`, or `idempotency_in_progress` (retried when the request carries an Idempotency-Key). */
export class ConflictError extends MarketIntelError {}
/** 422 `idempotency_key_reused`: the Idempotency-Key was used for a different request. */
export class UnprocessableEntityError extends MarketIntelError {}
/** 429: the key is over its window, or its account runs too many exports; `retryAfter` in seconds. */
export class RateLimitError extends MarketIntelError {}
/** 5xx: `retryAfter` (seconds) when the service said when to come back. */
export class ServerError extends MarketIntelError {}
/** 500 `internal`. */
export class InternalServerError extends ServerError {}
/** 503 `unavailable`: a dependency (the database, the limiter, an export slot) cannot serve now. */
export class ServiceUnavailableError extends ServerError {}

/** No usable answer: a network failure, the client's own timeout, or a body that broke off or is malformed. */
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

type ErrorClass = new (details: ErrorDetails) => MarketIntelError;

/** The class of each documented status. */
export const ERROR_CLASSES: Readonly<Record<number, ErrorClass>> = {
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

/** The error class for an HTTP status: a documented one's own, else by its range. */
export function errorFor(details: ErrorDetails): MarketIntelError {
  const { status } = details;
  const Known = ERROR_CLASSES[status];
  if (Known) return new Known(details);
  if (status >= 500) return new ServerError(details);
  return new MarketIntelError(details);
}
