/**
 * One poll of the live DoD announcements (`ingest announcements --live`, and the schedule in `serve`):
 * read the feed, then each "Contracts For" article, oldest release first, asked conditionally. A page
 * read for the first time is stored as file ingest stores it (ids DOD_ANN_<date>_<paragraph>, 17:00 New
 * York); a page read again adds only what it did not say before (amendments.ts); a page whose release
 * is unchanged (304, or the same content hash) adds nothing. Every stored paragraph and event carries
 * the article's address.
 *
 * One process polls at a time (a PostgreSQL advisory lock held for the poll), so two processes never
 * number the same day's new paragraphs at once. An article that cannot be had is reported and the poll
 * goes on with the others; a feed that cannot be had fails the poll.
 */
import type { ArticleAnswer, DodFeedReader, FeedItem } from '../sources/dod-feed.ts';
import { DodContractsError } from '../sources/dod-http.ts';
import {
  articleCopy,
  attachSource,
  dayParagraphs,
  savePage,
  touchPage,
} from '../store/announcement-pages.ts';
import { reconcile } from './amendments.ts';
import { ingestAnnouncements } from './announcements.ts';
import type { PipelineContext } from './context.ts';

export interface LivePollResult {
  /** "Contracts For" items in the feed. */
  items: number;
  /** Articles whose release was read and changed (or new). */
  pages: number;
  /** Articles unchanged since the last read (304 or the same hash). */
  unchanged: number;
  /** Paragraphs stored: new pages' and amendments' (versions included). */
  paragraphs: number;
  /** Of those, corrections of a stored paragraph. */
  versions: number;
  events: number;
  signals_created: number;
  /** The newest release the feed lists. */
  newest: { date: string; url: string } | null;
  /** Articles the feed lists that answered 404/410. */
  missing: string[];
  /** Articles that could not be had; the poll went on without them. */
  errors: { url: string; message: string; refused: boolean }[];
}

export interface LivePollOptions {
  signal?: AbortSignal;
  now?: () => Date;
  log?: (line: string) => void;
}

export async function pollLiveAnnouncements(
  ctx: PipelineContext,
  reader: DodFeedReader,
  options: LivePollOptions = {},
): Promise<LivePollResult> {
  const items = (await reader.items(options.signal)).sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : 0,
  );
  const newest = items.at(-1);
  const result: LivePollResult = {
    items: items.length,
    pages: 0,
    unchanged: 0,
    paragraphs: 0,
    versions: 0,
    events: 0,
    signals_created: 0,
    newest: newest ? { date: newest.date, url: newest.url } : null,
    missing: [],
    errors: [],
  };
  for (const item of items) {
    const copy = await articleCopy(ctx.db, item.articleId);
    let answer: ArticleAnswer;
    try {
      answer = await reader.article(item, copy, options.signal);
    } catch (error) {
      if (!(error instanceof DodContractsError)) throw error;
      result.errors.push({ url: item.url, message: error.message, refused: error.refused });
      options.log?.(`announcements: ${item.date}: ${error.message}`);
      continue;
    }
    const fetchedAt = (options.now ?? ctx.now)().toISOString();
    if (answer.status === 'gone') {
      result.missing.push(item.url);
      options.log?.(`announcements: ${item.date}: article ${item.url} is listed but not found (404/410)`);
    } else if (answer.status === 'not-modified') {
      await touchPage(ctx.db, item.articleId, fetchedAt);
      result.unchanged += 1;
    } else {
      await storePage(ctx, item, answer, fetchedAt, result, options.log);
    }
  }
  return result;
}

async function storePage(
  ctx: PipelineContext,
  item: FeedItem,
  answer: Extract<ArticleAnswer, { status: 'ok' }>,
  fetchedAt: string,
  result: LivePollResult,
  log?: (line: string) => void,
): Promise<void> {
  const page = {
    articleId: item.articleId,
    url: item.url,
    date: item.date,
    etag: answer.etag,
    lastModified: answer.lastModified,
    contentHash: answer.contentHash,
    paragraphs: answer.paragraphs.length,
    fetchedAt,
  };
  if (!answer.changed) {
    await savePage(ctx.db, page);
    result.unchanged += 1;
    return;
  }
  const stored = await dayParagraphs(ctx.db, item.date);
  const { known, fresh } = reconcile(stored, answer.paragraphs);
  await attachSource(ctx.db, known, { url: item.url, articleId: item.articleId });
  const amended = stored.length > 0;
  const counts = await ingestAnnouncements(
    ctx,
    fresh.map(({ paragraph, supersedes }) => ({
      ...paragraph,
      source: {
        url: item.url,
        articleId: item.articleId,
        fetchedAt,
        contentHash: answer.contentHash,
        supersedes,
        announcedAt: supersedes ? fetchedAt : null,
        availableAt: amended ? fetchedAt : null,
      },
    })),
  );
  // Stored only now: a poll that failed above reads the page again next time.
  await savePage(ctx.db, page);
  const versions = fresh.filter((f) => f.supersedes).length;
  result.pages += 1;
  result.paragraphs += fresh.length;
  result.versions += versions;
  result.events += counts.events;
  result.signals_created += counts.signals_created;
  log?.(
    `announcements: ${item.date}: ${answer.paragraphs.length} paragraphs on ${item.url}, ${fresh.length} new` +
      `${versions > 0 ? ` (${versions} corrected)` : ''}, ${counts.events} events, ${counts.signals_created} signals`,
  );
}
