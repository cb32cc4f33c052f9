/**
 * The HTTP exchange of the DoD contracts clients (dod-client.ts, dod-feed.ts): one GET with redirects,
 * a deadline for the whole exchange (connect, headers, body), a capped body, the content types a caller
 * accepts, conditional requests (If-None-Match / If-Modified-Since → 304), and retries with exponential
 * back-off and jitter for timeouts, network errors, 5xx and 429 (other 4xx, oversize bodies and
 * unexpected content types are final). 404 and 410 are an answer (`gone`), not an error.
 *
 * The site's CDN refuses many datacenter addresses with 403: such an answer is `refused` and its message
 * names the remedy (a proxy, a descriptive User-Agent). Requests go through `proxyUrl` when set, else
 * through HTTPS_PROXY / HTTP_PROXY (and NO_PROXY) when the environment sets them.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher, EnvHttpProxyAgent, ProxyAgent, request } from 'undici';
import { backoffMs, parseRetryAfter, type RetryPolicy } from './usaspending-client.ts';

/** Largest body read; a longer one fails the request (a daily page is 10–400 kB). */
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

export const DEFAULT_USER_AGENT = 'market-intel/0.1 (DoD contract announcements reader)';

export const DEFAULT_DOD_RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

export interface DodHttpOptions extends Partial<RetryPolicy> {
  /** Deadline of one attempt, connect to last body byte; default 30 s. */
  timeoutMs?: number;
  /** Default DEFAULT_MAX_BYTES. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Default DEFAULT_USER_AGENT. */
  userAgent?: string;
  /** An http(s) proxy for every request; default: HTTPS_PROXY / HTTP_PROXY from the environment. */
  proxyUrl?: string | null;
  /** The environment whose proxy variables apply when `proxyUrl` is not set; default process.env. */
  env?: Record<string, string | undefined>;
  /** Injectable for tests; must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export type DodErrorCode =
  /** An answer other than 2xx, 3xx, 304, 404 or 410 (after the retries, for 5xx and 429). */
  | 'http'
  /** Connection refused or reset, a broken body. */
  | 'network'
  /** No complete answer within timeoutMs. */
  | 'timeout'
  /** Body larger than maxBytes. */
  | 'too-large'
  /** Not a content type the caller reads, or a charset this runtime cannot decode. */
  | 'content-type'
  /** A redirect without a Location, to a scheme other than http(s), or too many. */
  | 'redirect'
  /** The page is the release of another day. */
  | 'wrong-date';

export class DodContractsError extends Error {
  constructor(
    message: string,
    readonly code: DodErrorCode,
    /** The last HTTP status, when there was one. */
    readonly status: number | null,
    readonly url: string,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'DodContractsError';
  }

  /** The site (its CDN) turned this client away: 403. */
  get refused(): boolean {
    return this.status === 403;
  }
}

export const REFUSED_REMEDY =
  'the site refused this client (its CDN turns away many datacenter addresses): send the requests ' +
  'through a proxy (HTTPS_PROXY, or DOD_CONTRACTS_PROXY) and give a descriptive DOD_CONTRACTS_USER_AGENT';

export type BodyKind = 'html' | 'text' | 'xml';

export interface GetOptions {
  accept: string;
  kinds: readonly BodyKind[];
  /** How a body without a content type (or `application/octet-stream`) is read; refused when unset. */
  fallback?: BodyKind;
  /** What is asked for, in messages: `DoD contracts page`. */
  what: string;
  /** Which one, in messages: a date, an article id. */
  about: string;
  /** Validators of the copy the caller has: a 304 answers `not-modified`. */
  validators?: { etag: string | null; lastModified: string | null };
  signal?: AbortSignal;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

export type GetResult =
  | {
      status: 'ok';
      url: string;
      kind: BodyKind;
      text: string;
      etag: string | null;
      lastModified: string | null;
      attempts: number;
    }
  | { status: 'not-modified'; url: string; attempts: number }
  | { status: 'gone'; url: string; attempts: number };

type Attempt =
  | { ok: true; result: GetResult }
  | {
      ok: false;
      code: DodErrorCode;
      retryable: boolean;
      reason: string;
      status: number | null;
      url: string;
      retryAfterMs: number | null;
    };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const UNDICI_TIMEOUTS = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The dispatcher: a configured proxy, else the environment's, else a direct connection. */
function dispatcherFor(options: DodHttpOptions, timeout: number): Dispatcher {
  const timeouts = { headersTimeout: timeout, bodyTimeout: timeout, connect: { timeout } };
  if (options.proxyUrl) return new ProxyAgent({ uri: options.proxyUrl, ...timeouts });
  const env = options.env ?? process.env;
  const fromEnv = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => env[name]);
  if (!fromEnv) return new Agent(timeouts);
  return new EnvHttpProxyAgent({
    ...timeouts,
    httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
    httpProxy: env.HTTP_PROXY ?? env.http_proxy,
    noProxy: env.NO_PROXY ?? env.no_proxy,
  });
}

export class DodHttp {
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly userAgent: string;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly dispatcher: Dispatcher;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(options: DodHttpOptions = {}) {
    this.retry = {
      maxAttempts: Math.max(1, options.maxAttempts ?? DEFAULT_DOD_RETRY.maxAttempts),
      baseDelayMs: options.baseDelayMs ?? DEFAULT_DOD_RETRY.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_DOD_RETRY.maxDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_DOD_RETRY.maxRetryAfterMs,
    };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.dispatcher = dispatcherFor(options, this.timeoutMs);
    this.sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.random = options.random ?? Math.random;
  }

  /**
   * GET `url` with the retries. Throws DodContractsError when there is no usable answer, and the
   * signal's reason when it aborts.
   */
  async get(url: string, options: GetOptions): Promise<GetResult> {
    const { signal } = options;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const outcome = await this.attempt(url, options);
      if (outcome.ok) return { ...outcome.result, attempts: attempt };
      const where = `${options.about}, attempt ${attempt}/${this.retry.maxAttempts}, ${outcome.url}`;
      const fail = (reason: string) =>
        new DodContractsError(
          `${options.what} ${reason} (${where})`,
          outcome.code,
          outcome.status,
          outcome.url,
          attempt,
        );
      if (!outcome.retryable || attempt >= this.retry.maxAttempts) throw fail(outcome.reason);
      if (outcome.retryAfterMs !== null && outcome.retryAfterMs > this.retry.maxRetryAfterMs) {
        throw fail(`${outcome.reason} and asks to wait ${Math.ceil(outcome.retryAfterMs / 1000)} s`);
      }
      const delayMs = outcome.retryAfterMs ?? backoffMs(attempt, this.retry, this.random);
      options.onRetry?.({ attempt, delayMs, reason: outcome.reason });
      await this.pause(delayMs, signal);
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  async pause(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }

  private requestHeaders(options: GetOptions): Record<string, string> {
    const headers: Record<string, string> = { accept: options.accept, 'user-agent': this.userAgent };
    if (options.validators?.etag) headers['if-none-match'] = options.validators.etag;
    if (options.validators?.lastModified) headers['if-modified-since'] = options.validators.lastModified;
    return headers;
  }

  private async attempt(url: string, options: GetOptions): Promise<Attempt> {
    const { signal } = options;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, this.timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let current = url;
    let status: number | null = null;
    try {
      for (let hop = 0; ; hop++) {
        const response = await request(current, {
          method: 'GET',
          headers: this.requestHeaders(options),
          dispatcher: this.dispatcher,
          signal: controller.signal,
        });
        status = response.statusCode;
        const { headers, body } = response;
        if (REDIRECTS.has(status)) {
          await body.dump();
          const location = header(headers.location);
          const target = location ? safeUrl(location, current) : null;
          if (!target || hop >= this.maxRedirects) {
            const reason = !location
              ? `answered ${status} without a Location`
              : !target
                ? `redirects to '${clip(location)}', not an http(s) address`
                : `redirects more than ${this.maxRedirects} times`;
            return failure('redirect', false, reason, status, current);
          }
          current = target;
          continue;
        }
        return await this.answer(options, current, status, headers, body);
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut || UNDICI_TIMEOUTS.has((error as { code?: string }).code ?? '')) {
        return failure('timeout', true, `did not answer within ${this.timeoutMs} ms`, status, current);
      }
      return failure('network', true, `request failed: ${(error as Error).message}`, status, current);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A final (non-redirect) answer. */
  private async answer(
    options: GetOptions,
    url: string,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    body: Discardable & AsyncIterable<Buffer> & { dump(): Promise<void> },
  ): Promise<Attempt> {
    const ok = (result: GetResult): Attempt => ({ ok: true, result });
    if (status === 304 && options.validators) {
      await body.dump();
      return ok({ status: 'not-modified', url, attempts: 0 });
    }
    if (status === 404 || status === 410) {
      await body.dump();
      return ok({ status: 'gone', url, attempts: 0 });
    }
    if (status === 429 || status >= 500) {
      await body.dump();
      const retryAfterMs = parseRetryAfter(headers['retry-after'], Date.now());
      return failure('http', true, `answered ${status}`, status, url, retryAfterMs);
    }
    if (status === 403) {
      await body.dump();
      return failure('http', false, `answered 403: ${REFUSED_REMEDY}`, status, url);
    }
    if (status < 200 || status >= 300) {
      const read = await readCapped(body, 16_384);
      return failure('http', false, `answered ${status}: ${clip(read.text('utf-8'))}`, status, url);
    }
    const type = contentType(header(headers['content-type']), options.fallback);
    if (!type.kind || !options.kinds.includes(type.kind)) {
      discard(body);
      return failure('content-type', false, `is ${type.raw || 'of no content type'}`, status, url);
    }
    const declared = Number(header(headers['content-length']));
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      discard(body);
      return failure('too-large', false, tooLarge(this.maxBytes, declared), status, url);
    }
    const read = await readCapped(body, this.maxBytes);
    if (read.over) return failure('too-large', false, tooLarge(this.maxBytes), status, url);
    let text: string;
    try {
      text = read.text(type.charset);
    } catch {
      return failure('content-type', false, `is in charset '${type.charset}', unknown here`, status, url);
    }
    return ok({
      status: 'ok',
      url,
      kind: type.kind,
      text,
      etag: header(headers.etag) || null,
      lastModified: header(headers['last-modified']) || null,
      attempts: 0,
    });
  }
}

function failure(
  code: DodErrorCode,
  retryable: boolean,
  reason: string,
  status: number | null,
  url: string,
  retryAfterMs: number | null = null,
): Attempt {
  return { ok: false, code, retryable, reason, status, url, retryAfterMs };
}

function header(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function safeUrl(location: string, base: string): string | null {
  try {
    const url = new URL(location, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

const KINDS: Record<string, BodyKind> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/plain': 'text',
  'application/rss+xml': 'xml',
  'application/atom+xml': 'xml',
  'application/xml': 'xml',
  'text/xml': 'xml',
};

function contentType(
  raw: string,
  fallback?: BodyKind,
): { kind: BodyKind | null; charset: string; raw: string } {
  const [mime = '', ...params] = raw.split(';').map((part) => part.trim());
  const untyped = mime === '' || mime.toLowerCase() === 'application/octet-stream';
  const charset =
    params
      .map((p) => /^charset\s*=\s*"?([^";\s]+)"?$/i.exec(p)?.[1])
      .find((c): c is string => c !== undefined) ?? 'utf-8';
  return { kind: KINDS[mime.toLowerCase()] ?? (untyped ? (fallback ?? null) : null), charset, raw };
}

function tooLarge(max: number, declared?: number): string {
  return declared === undefined
    ? `sent more than ${max} bytes`
    : `declares ${declared} bytes, more than the ${max} allowed`;
}

interface Discardable {
  on(event: 'error', listener: () => void): unknown;
  destroy(): unknown;
}

/** Stops reading a body; the abort error that destroying it raises is nobody's concern. */
function discard(body: Discardable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** At most `limit` bytes of a body; the rest is not read (the stream is destroyed). */
async function readCapped(
  body: Discardable & AsyncIterable<Buffer>,
  limit: number,
): Promise<{ over: boolean; text: (charset: string) => string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      discard(body);
      const kept = Buffer.concat(chunks);
      return { over: true, text: (charset) => new TextDecoder(charset).decode(kept) };
    }
    chunks.push(chunk);
  }
  const all = Buffer.concat(chunks);
  return { over: false, text: (charset) => new TextDecoder(charset, { fatal: false }).decode(all) };
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine;
}
