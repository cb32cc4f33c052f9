/**
 * One HTTP exchange with retries: GETs (and POSTs carrying an `Idempotency-Key`) are repeated after a
 * 429, a 5xx or a failed connection, waiting `Retry-After` when the service gives one and a capped
 * exponential back-off with jitter otherwise.
 */
import { ConnectionError, errorFor, type MarketIntelError } from './errors.js';

export const SDK_VERSION = '0.1.0';

export interface RetryPolicy {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  maxRetries: number;
  /** The first back-off's ceiling in ms (default 500); it doubles with each retry. */
  retryDelayMs: number;
  /** The largest back-off in ms (default 8,000). A `Retry-After` is honoured as given, even above it. */
  maxRetryDelayMs: number;
  /** Each attempt's time limit in ms, answer body included (default 30,000). */
  timeoutMs: number;
}

export interface RequestOptions extends Partial<RetryPolicy> {
  /** Aborts the request (and any wait between attempts). */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Sent as `Idempotency-Key`; makes a POST retriable. */
  idempotencyKey?: string;
}

/** The `X-RateLimit-*` headers of the latest answer. */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** When one more request is admitted (`X-RateLimit-Reset`, milliseconds since the epoch). */
  reset: Date;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  url: string;
}

export type FetchFunction = typeof fetch;

const RETRIABLE_METHODS = new Set(['GET', 'HEAD']);

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
export function errorFromResponse(response: RawResponse): MarketIntelError {
  let envelope: { status?: unknown; message?: unknown; code?: unknown; request_id?: unknown } = {};
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
    retryAfter: retryAfterSeconds(response.headers),
  });
}

export class Transport {
  /** The `X-RateLimit-*` headers of the latest answer that carried them. */
  rateLimit: RateLimitInfo | null = null;

  constructor(
    private readonly fetchFn: FetchFunction,
    private readonly policy: RetryPolicy,
    private readonly defaultHeaders: Record<string, string>,
  ) {}

  /** Sends until an answer that is final (2xx, 304, a 4xx other than 429) or the retries are spent. */
  async send(method: string, url: string, body: string | undefined, options: RequestOptions = {}) {
    const policy = { ...this.policy, ...definedOnly(options) };
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const retriable =
      RETRIABLE_METHODS.has(method) ||
      Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
    for (let retry = 0; ; retry++) {
      const canRetry = retriable && retry < policy.maxRetries;
      let response: RawResponse;
      try {
        response = await this.attempt(method, url, headers, body, policy.timeoutMs, options.signal);
      } catch (error) {
        if (options.signal?.aborted || !canRetry || !(error instanceof ConnectionError)) throw error;
        await sleep(backoffMs(retry, policy), options.signal);
        continue;
      }
      this.noteRateLimit(response.headers);
      if ((response.status >= 200 && response.status < 300) || response.status === 304) return response;
      const error = errorFromResponse(response);
      if (!canRetry || !(response.status === 429 || response.status >= 500)) throw error;
      const after = retryAfterSeconds(response.headers);
      await sleep(after === null ? backoffMs(retry, policy) : after * 1000, options.signal);
    }
  }

  private async attempt(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<RawResponse> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort(signal.reason);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const res = await this.fetchFn(url, {
        method,
        headers,
        body,
        signal: controller.signal,
        redirect: 'manual',
      });
      return { status: res.status, headers: res.headers, text: await res.text(), url };
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
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private noteRateLimit(headers: Headers): void {
    const limit = headers.get('x-ratelimit-limit');
    const remaining = headers.get('x-ratelimit-remaining');
    const reset = headers.get('x-ratelimit-reset');
    if (limit === null || remaining === null || reset === null) return;
    this.rateLimit = { limit: Number(limit), remaining: Number(remaining), reset: new Date(Number(reset)) };
  }
}

function definedOnly(options: RequestOptions): Partial<RetryPolicy> {
  const picked: Partial<RetryPolicy> = {};
  for (const key of ['maxRetries', 'retryDelayMs', 'maxRetryDelayMs', 'timeoutMs'] as const) {
    const value = options[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}
