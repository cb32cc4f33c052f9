/**
 * What every call tells besides its data: the answer's status and headers, request id, rate limit and
 * `ETag` (`ResponseMeta`), reached through `.withResponse()` on the promise a method returns; and the
 * typed result of a conditional GET (`Conditional`).
 */

/** The `X-RateLimit-*` headers of an answer. */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** When one more request is admitted (`X-RateLimit-Reset`, milliseconds since the epoch). */
  reset: Date;
}

export interface ResponseMeta {
  status: number;
  headers: Headers;
  /** The URL of the request that got this answer. */
  url: string;
  /** `X-Request-Id`: quote it to operators. */
  requestId: string | null;
  /** The `X-RateLimit-*` headers, or null when the answer has none (the open operations). */
  rateLimit: RateLimitInfo | null;
  /** `ETag` of a cacheable read: pass it as `ifNoneMatch` to ask only for a change. */
  etag: string | null;
  /** Attempts it took, retries included (1 when the first answer was final). */
  attempts: number;
}

export function responseMeta(res: { status: number; headers: Headers }, url: string): ResponseMeta {
  return {
    status: res.status,
    headers: res.headers,
    url,
    requestId: res.headers.get('x-request-id'),
    rateLimit: rateLimitOf(res.headers),
    etag: res.headers.get('etag'),
    attempts: 1,
  };
}

function rateLimitOf(headers: Headers): RateLimitInfo | null {
  const limit = headers.get('x-ratelimit-limit');
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = headers.get('x-ratelimit-reset');
  if (limit === null || remaining === null || reset === null) return null;
  return { limit: Number(limit), remaining: Number(remaining), reset: new Date(Number(reset)) };
}

/** The result of a call made with `ifNoneMatch`: unchanged (a 304, no body), or the new data and its tag. */
export type Conditional<T> =
  | { notModified: true; etag: string | null }
  | { notModified: false; data: T; etag: string | null };

/** A call's data with the answer it came in. */
export interface WithResponse<T> {
  data: T;
  response: ResponseMeta;
}

/** The promise every method returns: its data, and `withResponse()` for the data with its `ResponseMeta`. */
export interface ApiPromise<T> extends Promise<T> {
  withResponse(): Promise<WithResponse<T>>;
}

/**
 * A promise of `data` that also offers the whole answer. Taking `withResponse()` marks the data
 * promise handled, so a failure surfaces once, through the promise the caller awaits.
 */
export function apiPromise<T>(answer: Promise<WithResponse<T>>): ApiPromise<T> {
  const data = answer.then((result) => result.data);
  return Object.assign(data, {
    withResponse: () => {
      data.catch(() => undefined);
      return answer;
    },
  });
}
