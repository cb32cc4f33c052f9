/**
 * Client for the Department of Defense daily "Contracts for <date>" pages: one GET per day, the page's
 * HTML turned into the plain-text layout `splitAnnouncementPage` reads, and that split into paragraphs.
 *
 * URL scheme. A day is asked for as `GET <baseUrl>?date=YYYY-MM-DD` (the `date` parameter is set on the
 * base URL, keeping any query it already has); `urlFor` replaces the scheme when a deployment needs
 * another. The answer may be
 *   - 200 with `text/html` (or `application/xhtml+xml`): either a bare release (the <p>s of the day) or
 *     a whole article page as the real site serves it, with its navigation, header, footer, scripts and
 *     sidebars. The release is the element marked `itemprop="articleBody"`, else the first element of
 *     class `body` (the site's article body), else the first <article>, <main> or <body>, else the
 *     whole document;
 *   - 200 with `text/plain`: the release already in the plain-text layout;
 *   - a redirect (301, 302, 303, 307, 308; at most `maxRedirects`) to such a page, e.g. from a day's
 *     address to its article page, which `DodDay.url` then names;
 *   - 404 or 410: no release that day (weekends, holidays) → `null`.
 * The real www.defense.gov lists articles at /News/Contracts/ and publishes each day at
 * /News/Contracts/Contract/Article/<id>/ and does not answer `?date=`; reaching it needs a front (a proxy
 * or `urlFor`) that maps a date to its article.
 *
 * A page whose title or heading says "Contracts For <another date>" is refused (`wrong-date`) rather
 * than filed under the asked day. Every attempt has one deadline for the whole exchange (connect,
 * headers, body); timeouts, network errors, 5xx and 429 are retried with exponential back-off and
 * jitter, other 4xx answers, oversize bodies and unexpected content types are not. The caller's
 * AbortSignal stops a request or a back-off at once and is rethrown as its reason.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { type AnnouncementParagraph, longDate, splitAnnouncementPage } from './announcements.ts';
import { matchEnds, type Token, tokenize, tokensToText } from './html-text.ts';
import { backoffMs, parseRetryAfter, type RetryPolicy } from './usaspending-client.ts';

export const DEFAULT_DOD_BASE_URL = 'https://www.defense.gov/News/Contracts/';

/** Largest body read; a longer one fails the day (a daily page is 10–400 kB). */
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

const USER_AGENT = 'market-intel/0.1';
const ACCEPT = 'text/html, application/xhtml+xml;q=0.9, text/plain;q=0.8';

export const DEFAULT_DOD_RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

export interface DodClientOptions extends Partial<RetryPolicy> {
  /** Default DEFAULT_DOD_BASE_URL. */
  baseUrl?: string;
  /** The address of a day; default `baseUrl` with `date=YYYY-MM-DD` set in its query. */
  urlFor?: (date: string, baseUrl: string) => string;
  /** Deadline of one attempt, connect to last body byte; default 30 s. */
  timeoutMs?: number;
  /** Default DEFAULT_MAX_BYTES. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Injectable for tests; must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (info: { date: string; attempt: number; delayMs: number; reason: string }) => void;
}

/** One day's release. */
export interface DodDay {
  /** YYYY-MM-DD, as asked. */
  date: string;
  /** Where the release was read, after redirects. */
  url: string;
  paragraphs: AnnouncementParagraph[];
}

export interface DodRangeOptions {
  signal?: AbortSignal;
  /** Pause between two requests (not before the first), ms; default 0. */
  delayMs?: number;
}

export type DodErrorCode =
  /** An answer other than 2xx, 3xx, 404 or 410 (after the retries, for 5xx and 429). */
  | 'http'
  /** Connection refused or reset, a broken body. */
  | 'network'
  /** No complete answer within timeoutMs. */
  | 'timeout'
  /** Body larger than maxBytes. */
  | 'too-large'
  /** Not text/html, application/xhtml+xml or text/plain, or a charset this runtime cannot decode. */
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
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function assertDate(date: string, what = 'date'): void {
  const parsed = new Date(`${date}T00:00:00Z`);
  if (!ISO_DATE.test(date) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date) {
    throw new RangeError(`${what} must be a calendar day as YYYY-MM-DD, got '${date}'`);
  }
}

function nextDay(date: string): string {
  const parsed = new Date(`${date}T00:00:00Z`);
  parsed.setUTCDate(parsed.getUTCDate() + 1);
  return parsed.toISOString().slice(0, 10);
}

/** The default scheme: `baseUrl?date=YYYY-MM-DD`. */
export function dayUrl(date: string, baseUrl: string): string {
  const url = new URL(baseUrl);
  url.searchParams.set('date', date);
  return url.toString();
}

// ---------------------------------------------------------------------------------------------
// Pages → text

/** `Contracts For Aug. 1, 2014` (the page title, sometimes repeated in the body). */
const TITLE = /\bContracts\s+for\s+([A-Za-z]{3,9}\.?\s+\d{1,2},\s*\d{4})/i;
const TITLE_LINE = /^Contracts\s+for\s+[A-Za-z]{3,9}\.?\s+\d{1,2},\s*\d{4}\.?$/i;

/** An all-caps run a writer set in bold to name a section: `NAVY`, `DEFENSE LOGISTICS AGENCY`. */
function looksLikeHeading(text: string): boolean {
  const t = text.trim();
  return (
    t.length >= 3 &&
    t.length <= 70 &&
    /[A-Z]{3}/.test(t) &&
    !/\p{Ll}/u.test(t) &&
    !/[$:;\d*]/.test(t) &&
    !/[,.]$/.test(t)
  );
}

function hasClass(token: Token, name: string): boolean {
  return token.type === 'start' && (token.attrs.class ?? '').split(/\s+/).includes(name);
}

/** Where the release sits in the page: the first candidate, by preference, that has an end tag. */
function releaseRange(tokens: Token[], ends: Map<number, number>): { from: number; to: number } {
  const tests: ((token: Token) => boolean)[] = [
    (t) => t.type === 'start' && (t.attrs.itemprop ?? '').split(/\s+/).includes('articleBody'),
    (t) => hasClass(t, 'body') && t.type === 'start' && t.name !== 'body',
    (t) => t.type === 'start' && t.name === 'article',
    (t) => t.type === 'start' && t.name === 'main',
    (t) => t.type === 'start' && t.name === 'body',
  ];
  for (const test of tests) {
    for (let i = 0; i < tokens.length; i++) {
      const end = ends.get(i);
      if (end !== undefined && test(tokens[i] as Token)) return { from: i + 1, to: end };
    }
  }
  return { from: 0, to: tokens.length };
}

/**
 * The release in a page: its plain text (one paragraph or heading a line, the "Contracts For" title
 * line dropped) and the dates the page names itself by (<title>, <h1>, a title line in the release).
 */
export function releaseFromHtml(html: string): { text: string; dates: string[] } {
  const tokens = tokenize(html);
  const ends = matchEnds(tokens);
  const names: string[] = [];
  tokens.forEach((token, i) => {
    if (token.type !== 'start' || (token.name !== 'title' && token.name !== 'h1')) return;
    const end = ends.get(i);
    if (end !== undefined && end - i <= 64) names.push(tokensToText(tokens, { from: i + 1, to: end, ends }));
  });
  const { from, to } = releaseRange(tokens, ends);
  const lines = tokensToText(tokens, { from, to, ends, ownLine: looksLikeHeading }).split('\n');
  names.push(...lines.filter((line) => TITLE_LINE.test(line)));
  return { text: lines.filter((line) => !TITLE_LINE.test(line)).join('\n'), dates: datesNamed(names) };
}

/** A plain-text release: title lines out, their dates kept. */
function releaseFromText(text: string): { text: string; dates: string[] } {
  const lines = text.split(/\r?\n/).map((line) => line.replace(/\u00a0/g, ' ').trim());
  return {
    text: lines.filter((line) => !TITLE_LINE.test(line)).join('\n'),
    dates: datesNamed(lines.filter((line) => TITLE_LINE.test(line))),
  };
}

function datesNamed(texts: string[]): string[] {
  const dates = texts
    .map((text) => TITLE.exec(text.replace(/\u00a0/g, ' ')))
    .map((m) => (m ? longDate(m[1] ?? '') : null))
    .filter((d): d is string => d !== null);
  return [...new Set(dates)];
}

// ---------------------------------------------------------------------------------------------
// The client

type Body = { url: string; kind: 'html' | 'text'; text: string };

type Attempt =
  | { ok: true; body: Body | null }
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

export class DodClient {
  readonly baseUrl: string;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly agent: Agent;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly options: DodClientOptions = {}) {
    this.baseUrl = options.baseUrl ?? DEFAULT_DOD_BASE_URL;
    new URL(this.baseUrl); // throws on a malformed base, at construction rather than at the first day
    this.retry = {
      maxAttempts: Math.max(1, options.maxAttempts ?? DEFAULT_DOD_RETRY.maxAttempts),
      baseDelayMs: options.baseDelayMs ?? DEFAULT_DOD_RETRY.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_DOD_RETRY.maxDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_DOD_RETRY.maxRetryAfterMs,
    };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxRedirects = options.maxRedirects ?? 5;
    const timeout = this.timeoutMs;
    this.agent = new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connect: { timeout } });
    this.sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.random = options.random ?? Math.random;
  }

  /** The address asked for `date`. */
  urlFor(date: string): string {
    return (this.options.urlFor ?? dayUrl)(date, this.baseUrl);
  }

  /**
   * One day's release, or null when there is none (404, 410). Throws RangeError on a date that is not
   * YYYY-MM-DD, DodContractsError when the day cannot be had, and the signal's reason when it aborts.
   */
  async fetchDay(date: string, signal?: AbortSignal): Promise<DodDay | null> {
    assertDate(date);
    const url = this.urlFor(date);
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const outcome = await this.attempt(url, signal);
      if (outcome.ok) {
        if (!outcome.body) return null;
        const release =
          outcome.body.kind === 'html'
            ? releaseFromHtml(outcome.body.text)
            : releaseFromText(outcome.body.text);
        if (release.dates.length > 0 && !release.dates.includes(date)) {
          throw new DodContractsError(
            `DoD contracts page for ${date} is the release of ${release.dates.join(', ')} (${outcome.body.url})`,
            'wrong-date',
            200,
            outcome.body.url,
            attempt,
          );
        }
        return { date, url: outcome.body.url, paragraphs: splitAnnouncementPage(date, release.text) };
      }
      const where = `${date}, attempt ${attempt}/${this.retry.maxAttempts}, ${outcome.url}`;
      if (!outcome.retryable || attempt >= this.retry.maxAttempts) {
        throw new DodContractsError(
          `DoD contracts page ${outcome.reason} (${where})`,
          outcome.code,
          outcome.status,
          outcome.url,
          attempt,
        );
      }
      if (outcome.retryAfterMs !== null && outcome.retryAfterMs > this.retry.maxRetryAfterMs) {
        throw new DodContractsError(
          `DoD contracts page ${outcome.reason} and asks to wait ${Math.ceil(outcome.retryAfterMs / 1000)} s (${where})`,
          outcome.code,
          outcome.status,
          outcome.url,
          attempt,
        );
      }
      const delayMs = outcome.retryAfterMs ?? backoffMs(attempt, this.retry, this.random);
      this.options.onRetry?.({ date, attempt, delayMs, reason: outcome.reason });
      await this.pause(delayMs, signal);
    }
  }

  /**
   * Every day from `from` to `to` inclusive, in order, one request at a time (weekends and holidays are
   * asked too: `day` is null when there is no release). Stops at the first error.
   */
  async *fetchRange(
    from: string,
    to: string,
    options: DodRangeOptions = {},
  ): AsyncGenerator<{ date: string; day: DodDay | null }> {
    assertDate(from, 'from');
    assertDate(to, 'to');
    if (from > to) throw new RangeError(`from (${from}) is after to (${to})`);
    const { signal, delayMs = 0 } = options;
    for (let date = from; date <= to; date = nextDay(date)) {
      if (date !== from && delayMs > 0) await this.pause(delayMs, signal);
      yield { date, day: await this.fetchDay(date, signal) };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async pause(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }

  private async attempt(url: string, signal?: AbortSignal): Promise<Attempt> {
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
          headers: { accept: ACCEPT, 'user-agent': USER_AGENT },
          dispatcher: this.agent,
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
        if (status === 404 || status === 410) {
          await body.dump();
          return { ok: true, body: null };
        }
        if (status === 429 || status >= 500) {
          await body.dump();
          const retryAfterMs = parseRetryAfter(headers['retry-after'], Date.now());
          return failure('http', true, `answered ${status}`, status, current, retryAfterMs);
        }
        if (status < 200 || status >= 300) {
          const read = await readCapped(body, 16_384);
          return failure('http', false, `answered ${status}: ${clip(read.text('utf-8'))}`, status, current);
        }
        const type = contentType(header(headers['content-type']));
        if (!type.kind) {
          discard(body);
          return failure('content-type', false, `is ${type.raw || 'of no content type'}`, status, current);
        }
        const declared = Number(header(headers['content-length']));
        if (Number.isFinite(declared) && declared > this.maxBytes) {
          discard(body);
          return failure('too-large', false, tooLarge(this.maxBytes, declared), status, current);
        }
        const read = await readCapped(body, this.maxBytes);
        if (read.over) return failure('too-large', false, tooLarge(this.maxBytes), status, current);
        let text: string;
        try {
          text = read.text(type.charset);
        } catch {
          return failure(
            'content-type',
            false,
            `is in charset '${type.charset}', unknown here`,
            status,
            current,
          );
        }
        return { ok: true, body: { url: current, kind: type.kind, text } };
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

function contentType(raw: string): { kind: 'html' | 'text' | null; charset: string; raw: string } {
  const [mime = '', ...params] = raw.split(';').map((part) => part.trim());
  const charset =
    params
      .map((p) => /^charset\s*=\s*"?([^";\s]+)"?$/i.exec(p)?.[1])
      .find((c): c is string => c !== undefined) ?? 'utf-8';
  const type = mime.toLowerCase();
  const kind =
    type === 'text/html' || type === 'application/xhtml+xml' ? 'html' : type === 'text/plain' ? 'text' : null;
  return { kind, charset, raw };
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
