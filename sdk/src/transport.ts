/**
 * One HTTP exchange with retries: GETs (and POSTs carrying an `Idempotency-Key`) are repeated after a
 * 408, a 429, a 5xx or a failed connection — and a POST with a key after `409 idempotency_in_progress`
 * — waiting `Retry-After` when the service gives one and a capped exponential back-off with jitter
 * otherwise. No wait exceeds `maxRetryDelayMs` and all of one call's waits stay within `retryBudgetMs`:
 * a retry whose wait would not fit is not made, and the last error is thrown at once.
 */
import { ConnectionError, errorFor, type MarketIntelError } from './errors.js';
import { type ResponseMeta, responseMeta } from './response.js';

export const SDK_VERSION = '0.2.0';

export interface RetryPolicy {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  maxRetries: number;
  /** The first back-off's ceiling in ms (default 500); it doubles with each retry. */
  retryDelayMs: number;
  /**
   * The longest single wait in ms (default 8,000): it caps the back-off, and an answer whose
   * `Retry-After` asks for longer is not retried but thrown at once (its `retryAfter` says when).
   */
  maxRetryDelayMs: number;
  /** The most time in ms one call spends waiting between its attempts, all waits together (default 20,000). */
  retryBudgetMs: number;
  /** Each attempt's time limit in ms, answer body included; for a streamed export, until its headers (default 30,000). */
  timeoutMs: number;
}

/** The policy when neither the client nor the request says otherwise. */
export const DEFAULT_POLICY: Readonly<RetryPolicy> = {
  maxRetries: 2,
  retryDelayMs: 500,
  maxRetryDelayMs: 8_000,
  retryBudgetMs: 20_000,
  timeoutMs: 30_000,
};

export interface RequestOptions extends Partial<RetryPolicy> {
  /** Aborts the request (and any wait between attempts, and a streamed body). */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Sent as `Idempotency-Key`; makes a POST retriable. */
  idempotencyKey?: string;
}

/**
 * A call's options with `ifNoneMatch`, sent as `If-None-Match` (an `ETag` of an earlier answer): the
 * call then resolves to a `Conditional` — `{ notModified: true, etag }` on a 304,
 * `{ notModified: false, data, etag }` otherwise. A separate type, so that the result's type follows
 * from the options' (`RequestOptions` has no `ifNoneMatch`).
 */
export interface ConditionalOptions extends RequestOptions {
  ifNoneMatch: string;
}

export type { RateLimitInfo, ResponseMeta } from './response.js';

/** An answer the client accepted (2xx or 304), with its body read as text or left as a stream. */
export interface Answer {
  meta: ResponseMeta;
  /** The body as text; null when it was asked for as a stream. */
  text: string | null;
  /** The unread body of a streamed answer (null otherwise, and for a body-less answer). */
  body: ReadableStream<Uint8Array> | null;
}

export type FetchFunction = typeof fetch;

const RETRIABLE_METHODS = new Set(['GET', 'HEAD']);
const POLICY_KEYS = ['maxRetries', 'retryDelayMs', 'maxRetryDelayMs', 'retryBudgetMs', 'timeoutMs'] as const;

/** `Retry-After` in seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const value = headers.get('retry-after');
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Equal jitter: half the capped exponential ceiling, plus a random share of the other half. */
export function backoffMs(retry: number, policy: Pick<RetryPolicy, 'retryDelayMs' | 'maxRetryDelayMs'>) {
  const ceiling = Math.min(policy.maxRetryDelayMs, policy.retryDelayMs * 2 ** retry);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error for an answer outside 2xx, from the envelope `{error: {status, message, code, request_id}}`. */
export function errorFromResponse(response: { status: number; headers: Headers; text: string }) {
  let envelope: { message?: unknown; code?: unknown; param?: unknown; request_id?: unknown } = {};
  try {
    const parsed = JSON.parse(response.text) as { error?: typeof envelope };
    if (parsed && typeof parsed.error === 'object' && parsed.error !== null) envelope = parsed.error;
  } catch {
    // Not the service's envelope (a proxy's page, say): status and headers still say enough.
  }
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return errorFor({
    status: response.status,
    code: text(envelope.code) ?? `http_${response.status}`,
    message: text(envelope.message) ?? (response.text.slice(0, 200) || `HTTP ${response.status}`),
    requestId: text(envelope.request_id) ?? response.headers.get('x-request-id'),
    param: text(envelope.param),
    retryAfter: retryAfterSeconds(response.headers),
    headers: response.headers,
  });
}

/** Whether an error answer may be sent again: the request is safe to repeat and the failure passing. */
function retriableError(error: MarketIntelError, repeatable: boolean, keyed: boolean): boolean {
  if (error instanceof ConnectionError) return repeatable;
  if (error.status === 409) return keyed && error.code === 'idempotency_in_progress';
  return repeatable && (error.status === 408 || error.status === 429 || error.status >= 500);
}

export class Transport {
  /** The `X-RateLimit-*` headers of the latest answer that carried them. */
  rateLimit: ResponseMeta['rateLimit'] = null;

  constructor(
    private readonly fetchFn: FetchFunction,
    private readonly policy: RetryPolicy,
    private readonly defaultHeaders: Record<string, string>,
  ) {}

  /**
   * Sends until an answer that is final (2xx, 304, a 4xx other than 408/429) or the retries are
   * spent. `stream` leaves a 2xx body unread (an export); errors are always read, for their envelope.
   */
  async send(
    method: string,
    url: string,
    body: string | undefined,
    options: RequestOptions & { ifNoneMatch?: string } = {},
    stream = false,
  ): Promise<Answer> {
    const policy = { ...this.policy, ...definedOnly(options) };
    const headers = this.headersFor(body, options);
    const keyed = Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
    const repeatable = RETRIABLE_METHODS.has(method) || keyed;
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      let error: MarketIntelError;
      try {
        const answer = await this.attempt(
          method,
          url,
          headers,
          body,
          policy.timeoutMs,
          options.signal,
          stream,
        );
        answer.meta.attempts = attempt;
        if (answer.meta.rateLimit) this.rateLimit = answer.meta.rateLimit;
        if ((answer.meta.status >= 200 && answer.meta.status < 300) || answer.meta.status === 304)
          return answer;
        error = errorFromResponse({ ...answer.meta, text: answer.text ?? '' });
      } catch (caught) {
        if (options.signal?.aborted || !(caught instanceof ConnectionError)) throw caught;
        error = caught;
      }
      if (attempt > policy.maxRetries || !retriableError(error, repeatable, keyed)) throw error;
      const wait = error.retryAfter === null ? backoffMs(attempt - 1, policy) : error.retryAfter * 1000;
      if (wait > policy.maxRetryDelayMs || waited + wait > policy.retryBudgetMs) throw error;
      await sleep(wait, options.signal);
      waited += wait;
    }
  }

  private headersFor(
    body: string | undefined,
    options: RequestOptions & { ifNoneMatch?: string },
  ): Record<string, string> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.ifNoneMatch) headers['if-none-match'] = options.ifNoneMatch;
    return headers;
  }

  private async attempt(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    stream: boolean,
  ): Promise<Answer> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort(signal.reason);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let streaming = false;
    try {
      const res = await this.fetchFn(url, {
        method,
        headers,
        body,
        signal: controller.signal,
        redirect: 'manual',
      });
      const meta = responseMeta(res, url);
      streaming = stream && res.ok && res.body !== null;
      if (streaming) return { meta, text: null, body: res.body };
      return { meta, text: await res.text(), body: null };
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      throw new ConnectionError({
        status: 0,
        code: timedOut ? 'timeout' : 'connection_error',
        message: timedOut
          ? `${method} ${url}: no answer within ${timeoutMs} ms`
          : `${method} ${url}: ${cause instanceof Error ? cause.message : String(cause)}`,
        requestId: null,
        cause,
      });
    } finally {
      clearTimeout(timer);
      // A streamed body stays tied to the caller's signal until it is read to the end or abandoned.
      if (!streaming) signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** The policy settings `options` gives (an `undefined` one keeps the default). */
export function definedOnly(options: Partial<RetryPolicy>): Partial<RetryPolicy> {
  const picked: Partial<RetryPolicy> = {};
  for (const key of POLICY_KEYS) {
    const value = options[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}
