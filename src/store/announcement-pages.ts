/**
 * The live announcement source's records: the articles read (validators and release hash, for the next
 * conditional request), a day's stored paragraphs (to tell what an amended page adds), and the poll's
 * state shared by every process of a cluster (health, metrics, dashboard).
 */
import type { ArticleCopy } from '../sources/dod-feed.ts';
import type { Db, Queryable } from './db.ts';

/** The one live source so far. */
export const DOD_FEED_SOURCE = 'dod-feed';

/** The advisory lock a live poll holds (one poller in a cluster). */
export const LIVE_POLL_LOCK = 7_426_032;

/**
 * Runs `fn` holding the poll lock, or returns null at once when another process holds it. The lock
 * lives in a transaction left open for the poll (its writes go through other connections).
 */
export async function withPollLock<T>(db: Db, fn: () => Promise<T>): Promise<T | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS got', [
      LIVE_POLL_LOCK,
    ]);
    return row?.got ? fn() : null;
  });
}

export async function articleCopy(db: Queryable, articleId: string): Promise<ArticleCopy | null> {
  const rows = await db.query<ArticleCopy>(
    `SELECT etag, last_modified AS "lastModified", content_hash AS "contentHash"
     FROM announcement_pages WHERE article_id = $1`,
    [articleId],
  );
  return rows[0] ?? null;
}

export interface PageRead {
  articleId: string;
  url: string;
  date: string;
  etag: string | null;
  lastModified: string | null;
  contentHash: string;
  paragraphs: number;
  fetchedAt: string;
}

/** Records an article read; `changed_at` moves only when its release hash did. */
export async function savePage(db: Queryable, page: PageRead): Promise<void> {
  await db.query(
    `INSERT INTO announcement_pages (article_id, url, announced_on, etag, last_modified, content_hash, paragraphs,
       first_fetched_at, fetched_at, changed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8)
     ON CONFLICT (article_id) DO UPDATE SET url = EXCLUDED.url, etag = EXCLUDED.etag,
       last_modified = EXCLUDED.last_modified, fetched_at = EXCLUDED.fetched_at, paragraphs = EXCLUDED.paragraphs,
       changed_at = CASE WHEN announcement_pages.content_hash = EXCLUDED.content_hash
         THEN announcement_pages.changed_at ELSE EXCLUDED.fetched_at END,
       content_hash = EXCLUDED.content_hash`,
    [
      page.articleId,
      page.url,
      page.date,
      page.etag,
      page.lastModified,
      page.contentHash,
      page.paragraphs,
      page.fetchedAt,
    ],
  );
}

/** A 304: the copy is current as of `fetchedAt`. */
export async function touchPage(db: Queryable, articleId: string, fetchedAt: string): Promise<void> {
  await db.query('UPDATE announcement_pages SET fetched_at = $2 WHERE article_id = $1', [
    articleId,
    fetchedAt,
  ]);
}

export interface StoredParagraph {
  id: string;
  paragraphNo: number;
  section: string;
  text: string;
  /** The earlier version this one corrects. */
  supersedes: string | null;
}

/** A day's stored paragraphs, every version, in paragraph order. */
export async function dayParagraphs(db: Queryable, date: string): Promise<StoredParagraph[]> {
  return db.query<StoredParagraph>(
    `SELECT id, paragraph_no AS "paragraphNo", section, text, supersedes
     FROM announcements WHERE announced_on = $1 ORDER BY paragraph_no`,
    [date],
  );
}

/**
 * Paragraphs read earlier from a file, found unchanged on `url`: they and their events take the
 * article as their source (what they say, and when, stays).
 */
export async function attachSource(
  db: Queryable,
  ids: readonly string[],
  source: { url: string; articleId: string },
): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `WITH marked AS (
       UPDATE announcements SET source_url = $2, article_id = $3
       WHERE id = ANY($1::text[]) AND source_url IS NULL RETURNING id)
     UPDATE contracts c SET source_url = $2
     FROM marked WHERE c.id LIKE marked.id || '\\_%' AND c.source_url IS NULL`,
    [ids, source.url, source.articleId],
  );
}

export interface PollState {
  lastPollAt: string | null;
  lastSuccessAt: string | null;
  lastPageDate: string | null;
  lastPageUrl: string | null;
  lastNewAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  lastRefusedAt: string | null;
  nextRunAt: string | null;
}

/** The columns of PollState, from announcement_polls aliased `p`. */
export const POLL_STATE_COLUMNS = `p.last_poll_at AS "lastPollAt", p.last_success_at AS "lastSuccessAt",
  p.last_page_date AS "lastPageDate", p.last_page_url AS "lastPageUrl", p.last_new_at AS "lastNewAt",
  p.last_error AS "lastError", p.last_error_at AS "lastErrorAt", p.last_refused_at AS "lastRefusedAt",
  p.next_run_at AS "nextRunAt"`;

export async function pollState(db: Queryable, source = DOD_FEED_SOURCE): Promise<PollState | null> {
  const rows = await db.query<PollState>(
    `SELECT ${POLL_STATE_COLUMNS} FROM announcement_polls p WHERE source = $1`,
    [source],
  );
  return rows[0] ?? null;
}

export interface PollOutcome {
  at: string;
  /** The newest release the feed listed. */
  newest: { date: string; url: string } | null;
  /** Whether this poll stored anything new. */
  news: boolean;
  /** Null when the poll succeeded. */
  error: string | null;
  refused: boolean;
}

/** Records a poll's outcome (success clears nothing: the last error stays on record with its time). */
export async function recordPoll(
  db: Queryable,
  outcome: PollOutcome,
  source = DOD_FEED_SOURCE,
): Promise<void> {
  await db.query(
    `INSERT INTO announcement_polls (source, last_poll_at, last_success_at, last_page_date, last_page_url,
       last_new_at, last_error, last_error_at, last_refused_at)
     VALUES ($1, $2, CASE WHEN $6::text IS NULL THEN $2::timestamptz END, $3::date, $4,
       CASE WHEN $5 THEN $2::timestamptz END, $6, CASE WHEN $6::text IS NOT NULL THEN $2::timestamptz END,
       CASE WHEN $7 THEN $2::timestamptz END)
     ON CONFLICT (source) DO UPDATE SET last_poll_at = EXCLUDED.last_poll_at,
       last_success_at = coalesce(EXCLUDED.last_success_at, announcement_polls.last_success_at),
       last_page_date = greatest(EXCLUDED.last_page_date, announcement_polls.last_page_date),
       last_page_url = CASE WHEN EXCLUDED.last_page_date >= announcement_polls.last_page_date
         OR announcement_polls.last_page_date IS NULL THEN coalesce(EXCLUDED.last_page_url, announcement_polls.last_page_url)
         ELSE announcement_polls.last_page_url END,
       last_new_at = coalesce(EXCLUDED.last_new_at, announcement_polls.last_new_at),
       last_error = coalesce(EXCLUDED.last_error, announcement_polls.last_error),
       last_error_at = coalesce(EXCLUDED.last_error_at, announcement_polls.last_error_at),
       last_refused_at = coalesce(EXCLUDED.last_refused_at, announcement_polls.last_refused_at)`,
    [
      source,
      outcome.at,
      outcome.newest?.date ?? null,
      outcome.newest?.url ?? null,
      outcome.news,
      outcome.error,
      outcome.refused,
    ],
  );
}

/** When the scheduler will poll next (shown on the dashboard). */
export async function recordNextRun(db: Queryable, at: string, source = DOD_FEED_SOURCE): Promise<void> {
  await db.query(
    `INSERT INTO announcement_polls (source, next_run_at) VALUES ($1, $2)
     ON CONFLICT (source) DO UPDATE SET next_run_at = EXCLUDED.next_run_at`,
    [source, at],
  );
}
