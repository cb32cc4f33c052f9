/**
 * The live DoD contract announcements: the site's RSS feed of contract releases, and the article each
 * release item links to.
 *
 * The feed (DOD_CONTRACTS_FEED_URL, RSS 2.0; Atom is read too) lists the latest releases; an item whose
 * title is "Contracts For <Mon>. <D>, <YYYY>" (`Sept. 30, 2016`, `June 1, 2018`) is a day's release, its
 * link the article `/News/Contracts/Contract/Article/<id>/`, its pubDate the posting time (~17:00 New
 * York). Other items (news, corrections) are skipped. The article's release sits in `<div class="body">`
 * (dod-client.ts `releaseFromHtml` finds it among the page's furniture); the release's date is the one
 * its feed title names.
 *
 * An article is asked for conditionally (If-None-Match / If-Modified-Since with the validators of the
 * copy already read): 304 means unchanged; a server without validators is compared by content hash.
 */
import { createHash } from 'node:crypto';
import {
  type AnnouncementParagraph,
  longDate,
  MAX_PARAGRAPH,
  splitAnnouncementPage,
} from './announcements.ts';
import { releaseFromHtml } from './dod-client.ts';
import { DodContractsError, type DodHttp } from './dod-http.ts';
import { decodeEntities } from './html-text.ts';

export const DEFAULT_DOD_FEED_URL =
  'https://www.war.gov/DesktopModules/ArticleCS/RSS.ashx?ContentType=400&Site=945&max=10';

const FEED_ACCEPT = 'application/rss+xml, application/atom+xml;q=0.9, application/xml;q=0.8, text/xml;q=0.8';
const PAGE_ACCEPT = 'text/html, application/xhtml+xml;q=0.9';

/** A longer item link is not an article address (and would be stored with every event). */
const MAX_URL = 2048;

/** A day's release as the feed lists it. */
export interface FeedItem {
  title: string;
  /** The article's address, absolute. */
  url: string;
  /** The article id in `/Article/<id>/`, else the address itself. */
  articleId: string;
  /** The release's date, YYYY-MM-DD, from the title. */
  date: string;
  /** The item's pubDate as ISO 8601, when it has a readable one. */
  publishedAt: string | null;
}

/**
 * `Contracts For Sept. 30, 2016` → `2016-09-30` (a note after the date, `… 2016 (Updated)`, allowed);
 * null for any other title.
 */
export function contractsTitleDate(title: string): string | null {
  const m =
    /^\s*Contracts\s+for\s+([A-Za-z]{3,9})\.?\s*(\d{1,2})\s*,\s*(\d{4})(?:\s*\.?\s*$|\s*[-\u2013\u2014:(|])/i.exec(
      title.replace(/[\s\u00a0]+/g, ' '),
    );
  return m ? longDate(`${m[1]} ${m[2]}, ${m[3]}`) : null;
}

/** The article id of `/News/Contracts/Contract/Article/<id>/`, else the path. */
export function articleIdOf(url: string): string {
  const path = new URL(url).pathname;
  return /\/Article\/(\d+)(?:\/|$)/i.exec(path)?.[1] ?? path;
}

/** The text of an XML element's content: CDATA kept as is, the rest with its references decoded. */
function xmlText(raw: string): string {
  let out = '';
  const cdata = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
  let last = 0;
  for (let m = cdata.exec(raw); m; m = cdata.exec(raw)) {
    out += decodeEntities(raw.slice(last, m.index).replace(/<[^>]*>/g, ''));
    out += m[1] ?? '';
    last = m.index + m[0].length;
  }
  out += decodeEntities(raw.slice(last).replace(/<[^>]*>/g, ''));
  return out.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** The first `<name …>…</name>` (any namespace prefix) in `xml`, or its `href` when it is empty. */
function element(xml: string, name: string): string | null {
  const m = new RegExp(
    `<(?:[\\w-]+:)?${name}(\\s[^>]*)?(?:/>|>([\\s\\S]*?)</(?:[\\w-]+:)?${name}\\s*>)`,
    'i',
  ).exec(xml);
  if (!m) return null;
  const content = m[2] !== undefined ? xmlText(m[2]) : '';
  if (content) return content;
  const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(m[1] ?? '');
  return href ? decodeEntities(href[1] ?? href[2] ?? '') : null;
}

function isoTime(text: string | null): string | null {
  if (!text) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * The "Contracts For" items of a feed, in feed order, one per article (a repeated link counts once).
 * Items without a title naming a date, or without an http(s) link, are left out.
 */
export function parseContractsFeed(xml: string, feedUrl: string): FeedItem[] {
  const items: FeedItem[] = [];
  const seen = new Set<string>();
  // Each item is the text from its start tag to the next item's: linear, whatever the feed's markup.
  const text = xml.replace(/\r\n?/g, '\n');
  const starts = [...text.matchAll(/<(?:item|entry)[\s>]/gi)].map((m) => m.index);
  const blocks = starts.map((start, i) => text.slice(start, starts[i + 1] ?? text.length));
  for (const block of blocks) {
    const title = element(block, 'title') ?? '';
    const date = contractsTitleDate(title);
    const link = element(block, 'link') ?? element(block, 'guid');
    if (!date || !link || link.length > MAX_URL) continue;
    let url: URL;
    try {
      url = new URL(link, feedUrl);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    const publishedAt = isoTime(
      element(block, 'pubDate') ?? element(block, 'published') ?? element(block, 'updated'),
    );
    items.push({ title, url: url.href, articleId: articleIdOf(url.href), date, publishedAt });
  }
  return items;
}

/** The validators and hash of an article copy already read. */
export interface ArticleCopy {
  etag: string | null;
  lastModified: string | null;
  contentHash: string;
}

export type ArticleAnswer =
  | { status: 'not-modified' }
  | { status: 'gone' }
  | {
      status: 'ok';
      /** Where it was read, after redirects. */
      url: string;
      etag: string | null;
      lastModified: string | null;
      /** sha256 of the release text (not of the page: furniture that changes is not an amendment). */
      contentHash: string;
      /** False when the hash equals the copy's: the same release. */
      changed: boolean;
      paragraphs: AnnouncementParagraph[];
    };

export const contentHash = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * An article's release: its text (NULs dropped: the database stores none) and its paragraphs, those
 * longer than a file may hold (MAX_PARAGRAPH) left out, as a file's would be rejected.
 */
export function articleRelease(
  date: string,
  html: string,
): { text: string; dates: string[]; paragraphs: AnnouncementParagraph[] } {
  const release = releaseFromHtml(html, { softBreaks: true });
  const text = release.text.replaceAll('\u0000', '');
  const paragraphs = splitAnnouncementPage(date, text)
    .filter((p) => p.text.length <= MAX_PARAGRAPH)
    .map((p, i) => ({ ...p, paragraphNo: i + 1 }));
  return { text, dates: release.dates, paragraphs };
}

export class DodFeedReader {
  constructor(
    private readonly http: DodHttp,
    readonly feedUrl: string,
    private readonly onRetry?: (info: {
      what: string;
      attempt: number;
      delayMs: number;
      reason: string;
    }) => void,
  ) {
    new URL(feedUrl);
  }

  /** The feed's "Contracts For" items. Throws DodContractsError when the feed cannot be had. */
  async items(signal?: AbortSignal): Promise<FeedItem[]> {
    const answer = await this.http.get(this.feedUrl, {
      accept: FEED_ACCEPT,
      kinds: ['xml', 'html', 'text'],
      fallback: 'xml',
      what: 'DoD contracts feed',
      about: 'feed',
      signal,
      onRetry: (info) => this.onRetry?.({ what: 'feed', ...info }),
    });
    if (answer.status !== 'ok') {
      throw new DodContractsError(
        `DoD contracts feed is gone (404/410) (${this.feedUrl}): check DOD_CONTRACTS_FEED_URL`,
        'http',
        404,
        this.feedUrl,
        answer.attempts,
      );
    }
    return parseContractsFeed(answer.text, answer.url);
  }

  /**
   * An item's article, read conditionally against `copy`. Throws DodContractsError when it cannot be
   * had, or when the page names itself the release of another day (`wrong-date`).
   */
  async article(item: FeedItem, copy: ArticleCopy | null, signal?: AbortSignal): Promise<ArticleAnswer> {
    const answer = await this.http.get(item.url, {
      accept: PAGE_ACCEPT,
      kinds: ['html'],
      fallback: 'html',
      what: 'DoD contracts article',
      about: `${item.date}, article ${item.articleId}`,
      validators: copy ? { etag: copy.etag, lastModified: copy.lastModified } : undefined,
      signal,
      onRetry: (info) => this.onRetry?.({ what: `${item.date} (${item.url})`, ...info }),
    });
    if (answer.status !== 'ok') return { status: answer.status };
    const release = articleRelease(item.date, answer.text);
    if (release.dates.length > 0 && !release.dates.includes(item.date)) {
      throw new DodContractsError(
        `DoD contracts article ${item.articleId} is titled ${item.title} in the feed but is the release of ${release.dates.join(', ')} (${answer.url})`,
        'wrong-date',
        200,
        answer.url,
        answer.attempts,
      );
    }
    const hash = contentHash(release.text);
    return {
      status: 'ok',
      url: answer.url,
      etag: answer.etag,
      lastModified: answer.lastModified,
      contentHash: hash,
      changed: hash !== copy?.contentHash,
      paragraphs: release.paragraphs,
    };
  }
}
