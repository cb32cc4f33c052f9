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
import { type AnnouncementParagraph, longDate, splitAnnouncementPage } from './announcements.ts';
import { DodContractsError, DodHttp, type DodHttpOptions } from './dod-http.ts';
import { matchEnds, type Token, tokenize, tokensToText } from './html-text.ts';

export { DEFAULT_DOD_RETRY, DEFAULT_MAX_BYTES, DodContractsError, type DodErrorCode } from './dod-http.ts';

export const DEFAULT_DOD_BASE_URL = 'https://www.defense.gov/News/Contracts/';

export interface DodClientOptions extends DodHttpOptions {
  /** Default DEFAULT_DOD_BASE_URL. */
  baseUrl?: string;
  /** The address of a day; default `baseUrl` with `date=YYYY-MM-DD` set in its query. */
  urlFor?: (date: string, baseUrl: string) => string;
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
 * With `softBreaks`, a <br> inside a sentence joins its two halves (see `midSentence`).
 */
export function releaseFromHtml(
  html: string,
  options: { softBreaks?: boolean } = {},
): { text: string; dates: string[] } {
  const tokens = tokenize(html);
  const ends = matchEnds(tokens);
  const names: string[] = [];
  tokens.forEach((token, i) => {
    if (token.type !== 'start' || (token.name !== 'title' && token.name !== 'h1')) return;
    const end = ends.get(i);
    if (end !== undefined && end - i <= 64) names.push(tokensToText(tokens, { from: i + 1, to: end, ends }));
  });
  const { from, to } = releaseRange(tokens, ends);
  const softBreak = options.softBreaks ? midSentence : undefined;
  const lines = tokensToText(tokens, { from, to, ends, ownLine: looksLikeHeading, softBreak }).split('\n');
  names.push(...lines.filter((line) => TITLE_LINE.test(line)));
  return { text: lines.filter((line) => !TITLE_LINE.test(line)).join('\n'), dates: datesNamed(names) };
}

/**
 * A line cut mid-sentence: text that ends without closing punctuation and is no heading, title or
 * footnote (`*Small business`).
 */
function midSentence(line: string): boolean {
  return (
    line !== '' &&
    !line.startsWith('*') &&
    !/[.;:!?)"'\u201d*]$/.test(line) &&
    !looksLikeHeading(line) &&
    !TITLE_LINE.test(line)
  );
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

const ACCEPT = 'text/html, application/xhtml+xml;q=0.9, text/plain;q=0.8';

export class DodClient {
  readonly baseUrl: string;
  readonly http: DodHttp;

  constructor(private readonly options: DodClientOptions = {}) {
    this.baseUrl = options.baseUrl ?? DEFAULT_DOD_BASE_URL;
    new URL(this.baseUrl); // throws on a malformed base, at construction rather than at the first day
    this.http = new DodHttp(options);
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
    const answer = await this.http.get(this.urlFor(date), {
      accept: ACCEPT,
      kinds: ['html', 'text'],
      what: 'DoD contracts page',
      about: date,
      signal,
      onRetry: (info) => this.options.onRetry?.({ date, ...info }),
    });
    if (answer.status !== 'ok') return null;
    const release = answer.kind === 'html' ? releaseFromHtml(answer.text) : releaseFromText(answer.text);
    if (release.dates.length > 0 && !release.dates.includes(date)) {
      throw new DodContractsError(
        `DoD contracts page for ${date} is the release of ${release.dates.join(', ')} (${answer.url})`,
        'wrong-date',
        200,
        answer.url,
        answer.attempts,
      );
    }
    return { date, url: answer.url, paragraphs: splitAnnouncementPage(date, release.text) };
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
      if (date !== from && delayMs > 0) await this.http.pause(delayMs, signal);
      yield { date, day: await this.fetchDay(date, signal) };
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
