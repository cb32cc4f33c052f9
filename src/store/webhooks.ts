import { randomUUID } from 'node:crypto';
import type { Plan } from '../domain/plans.ts';
import type { Db, Queryable } from './db.ts';
import { KEYSETS, keysetRows, orderBy, type PageRequest, type RowPage } from './keyset.ts';
import { Where } from './where.ts';

/** SQL of webhooks, their deliveries (the outbox) and attempts. */

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Channel a worker LISTENs on (PostgreSQL); notified when deliveries become due at once. */
export const DELIVERY_CHANNEL = 'webhook_deliveries';

export interface Webhook {
  id: string;
  user_id: string;
  url: string;
  status: WebhookState;
  created_at: string;
  disabled_at: string | null;
  failure_streak: number;
  failing_since: string | null;
  retry_at: string | null;
  suspended_at: string | null;
  previous_secret_expires_at: string | null;
}

/** An endpoint's health as the worker sees it (migrations/016_webhook_health.sql). */
export interface EndpointPolicy {
  /** Attempts in flight at once to an endpoint whose last attempt succeeded; 1 while it is failing. */
  concurrency: number;
  /** The delivery retry schedule; the endpoint's back-off walks it from its third failure in a row. */
  scheduleMs: readonly number[];
  /** Failing without a success for this long suspends the endpoint. */
  suspendAfterMs: number;
}

/** From this many failed attempts in a row, the endpoint itself is backed off. */
export const BACKOFF_FROM_STREAK = 3;

export interface Delivery {
  id: string;
  webhook_id: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  series: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface Attempt {
  id: string;
  delivery_id: string;
  series: number;
  attempt_no: number;
  started_at: string;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
}

/** A page of a list: `limit` rows after `offset`, or after a position (keyset paging). */
export type Page = PageRequest;

export const WEBHOOK_STATES = ['active', 'failing', 'suspended', 'deleted'] as const;
export type WebhookState = (typeof WEBHOOK_STATES)[number];

export const WEBHOOK_COLUMNS = `w.id, w.user_id, w.url,
  CASE WHEN w.disabled_at IS NOT NULL THEN 'deleted' WHEN w.suspended_at IS NOT NULL THEN 'suspended'
    WHEN w.failure_streak > 0 THEN 'failing' ELSE 'active' END AS status,
  w.created_at, w.disabled_at, w.failure_streak, w.failing_since, w.retry_at, w.suspended_at,
  CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_expires_at END
    AS previous_secret_expires_at`;
export const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.event, d.status, d.attempts, d.series, d.next_attempt_at,
  d.last_status, d.last_error, d.created_at, d.updated_at`;

export const first = <T>(rows: T[]): T | null => rows[0] ?? null;

export async function notifyDue(db: Queryable): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [DELIVERY_CHANNEL, '']);
}

/** Locks the user row, so concurrent creations count each other against the plan's maximum. */
/** The webhooks not deleted, oldest first, with their owner's plan (a suspended one still gets its deliveries, written failed). */
export async function liveWebhooks(db: Queryable): Promise<{ id: string; plan: Plan; suspended: boolean }[]> {
  return db.query<{ id: string; plan: Plan; suspended: boolean }>(
    `SELECT w.id, u.plan, w.suspended_at IS NOT NULL AS suspended FROM webhooks w JOIN users u ON u.id = w.user_id
     WHERE w.disabled_at IS NULL ORDER BY w.created_at, w.id`,
  );
}

export async function countActiveWebhooks(tx: Queryable, userId: string): Promise<number> {
  await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
  const rows = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhooks WHERE user_id = $1 AND disabled_at IS NULL',
    [userId],
  );
  return rows[0]?.n ?? 0;
}

export async function countSuspended(db: Queryable, userId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhooks
     WHERE user_id = $1 AND disabled_at IS NULL AND suspended_at IS NOT NULL`,
    [userId],
  );
  return rows[0]?.n ?? 0;
}

export async function insertWebhook(
  tx: Queryable,
  input: { id: string; userId: string; url: string; sealedSecret: string },
): Promise<Webhook> {
  const rows = await tx.query<Webhook>(
    `INSERT INTO webhooks AS w (id, user_id, url, secret) VALUES ($1, $2, $3, $4) RETURNING ${WEBHOOK_COLUMNS}`,
    [input.id, input.userId, input.url, input.sealedSecret],
  );
  const webhook = first(rows);
  if (!webhook) throw new Error('insert returned no row');
  return webhook;
}

/** A webhook (deleted ones too); with `owner`, only when that user owns it. */
export async function getWebhook(db: Queryable, id: string, owner: string | null): Promise<Webhook | null> {
  return first(
    await db.query<Webhook>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks w WHERE w.id = $1 AND ($2::uuid IS NULL OR w.user_id = $2)`,
      [id, owner],
    ),
  );
}

/** A user's active webhooks, oldest first. */
export async function listWebhooks(db: Queryable, userId: string, page: Page): Promise<RowPage<Webhook>> {
  const where = new Where().add((p) => `w.user_id = ${p}`, userId);
  where.clauses.push('w.disabled_at IS NULL');
  return keysetRows(db, KEYSETS.webhooks, { columns: WEBHOOK_COLUMNS, from: 'webhooks w', where }, page);
}

/**
 * Disables a webhook (its history stays) and fails its deliveries still waiting; one in flight finishes
 * its attempt. Deleting twice returns the same row.
 */
export async function disableWebhook(
  tx: Queryable,
  id: string,
  owner: string | null,
  now: Date,
): Promise<Webhook | null> {
  const webhook = first(
    await tx.query<Webhook>(
      `UPDATE webhooks w SET disabled_at = COALESCE(w.disabled_at, $3)
       WHERE w.id = $1 AND ($2::uuid IS NULL OR w.user_id = $2) RETURNING ${WEBHOOK_COLUMNS}`,
      [id, owner, now.toISOString()],
    ),
  );
  if (!webhook) return null;
  await tx.query(
    `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'webhook deleted',
       updated_at = now()
     WHERE webhook_id = $1 AND status = 'pending'`,
    [id],
  );
  return webhook;
}

/** A webhook's deliveries, newest first. */
export async function listDeliveries(
  db: Queryable,
  webhookId: string,
  filter: Page & { status?: DeliveryStatus },
): Promise<RowPage<Delivery>> {
  const where = new Where()
    .add((p) => `d.webhook_id = ${p}`, webhookId)
    .add((p) => `d.status = ${p}`, filter.status);
  const select = { columns: DELIVERY_COLUMNS, from: 'webhook_deliveries d', where };
  return keysetRows(db, KEYSETS.deliveries, select, filter);
}

/** A delivery; with `owner`, only when that user owns its webhook. */
export async function getDelivery(
  db: Queryable,
  id: string,
  owner: string | null,
): Promise<
  (Delivery & { webhook_disabled: boolean; webhook_suspended: boolean; in_flight: boolean }) | null
> {
  return first(
    await db.query<Delivery & { webhook_disabled: boolean; webhook_suspended: boolean; in_flight: boolean }>(
      `SELECT ${DELIVERY_COLUMNS}, w.disabled_at IS NOT NULL AS webhook_disabled,
         w.suspended_at IS NOT NULL AS webhook_suspended,
         (d.status = 'delivering' AND d.locked_until >= now()) AS in_flight
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.id = $1 AND ($2::uuid IS NULL OR w.user_id = $2)`,
      [id, owner],
    ),
  );
}

const ATTEMPT_COLUMNS =
  'a.id, a.delivery_id, a.series, a.attempt_no, a.started_at, a.duration_ms, a.status_code, a.error';

/** Every attempt of every series, in order. */
export async function listAttempts(db: Queryable, deliveryId: string): Promise<Attempt[]> {
  return db.query<Attempt>(
    `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts a WHERE a.delivery_id = $1
     ORDER BY ${orderBy(KEYSETS.attempts)}`,
    [deliveryId],
  );
}

/** A page of a delivery's attempts, every series, in order. */
export async function attemptsPage(db: Queryable, deliveryId: string, page: Page): Promise<RowPage<Attempt>> {
  const where = new Where().add((p) => `a.delivery_id = ${p}`, deliveryId);
  return keysetRows(
    db,
    KEYSETS.attempts,
    { columns: ATTEMPT_COLUMNS, from: 'webhook_attempts a', where },
    page,
  );
}

/**
 * Starts a new attempt series on the same delivery id, due now. Refused (null) unless the delivery has
 * finished (`succeeded` or `failed`) — so two sends of one delivery never overlap and a pending series is
 * never replaced — or when the webhook was deleted or suspended. One conditional UPDATE: of two
 * concurrent calls the second re-checks the row the first wrote (now `pending`) and is refused.
 */
export async function restartDelivery(db: Queryable, id: string): Promise<Delivery | null> {
  return first(
    await db.query<Delivery>(
      `UPDATE webhook_deliveries d SET series = d.series + 1, attempts = 0, status = 'pending',
         next_attempt_at = now(), locked_until = NULL, last_status = NULL, last_error = NULL, updated_at = now()
       FROM webhooks w
       WHERE d.id = $1 AND w.id = d.webhook_id AND w.disabled_at IS NULL AND w.suspended_at IS NULL
         AND d.status IN ('succeeded', 'failed')
       RETURNING ${DELIVERY_COLUMNS}`,
      [id],
    ),
  );
}

export const SUSPENDED_ERROR = 'webhook suspended after failing continuously; re-enable it, then resend';

/**
 * Writes deliveries, due now. A suspended webhook's delivery is written failed at once, so it is listed
 * and can be resent once the webhook is re-enabled.
 */
export async function insertDeliveries(
  tx: Queryable,
  rows: readonly { webhookId: string; event: string; payload: unknown; suspended?: boolean }[],
): Promise<number> {
  if (rows.length === 0) return 0;
  await tx.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event, payload, status, next_attempt_at, last_error)
     SELECT u.id, u.webhook_id, u.event, u.payload,
       CASE WHEN u.suspended THEN 'failed' ELSE 'pending' END,
       CASE WHEN u.suspended THEN NULL ELSE now() END,
       CASE WHEN u.suspended THEN $5 END
     FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[], $6::bool[])
       AS u (id, webhook_id, event, payload, suspended)`,
    [
      rows.map(() => randomUUID()),
      rows.map((r) => r.webhookId),
      rows.map((r) => r.event),
      rows.map((r) => JSON.stringify(r.payload)),
      SUSPENDED_ERROR,
      rows.map((r) => r.suspended === true),
    ],
  );
  if (rows.some((r) => !r.suspended)) await notifyDue(tx);
  return rows.length;
}

/**
 * Re-enables a webhook: clears a suspension and the endpoint's back-off, and makes its waiting
 * deliveries due now. Null when no such webhook (for this owner) exists or it was deleted.
 */
export async function enableWebhook(
  tx: Queryable,
  id: string,
  owner: string | null,
): Promise<Webhook | null> {
  const webhook = first(
    await tx.query<Webhook>(
      `UPDATE webhooks w SET suspended_at = NULL, failure_streak = 0, failing_since = NULL, retry_at = NULL
       WHERE w.id = $1 AND ($2::uuid IS NULL OR w.user_id = $2) AND w.disabled_at IS NULL
       RETURNING ${WEBHOOK_COLUMNS}`,
      [id, owner],
    ),
  );
  if (!webhook) return null;
  await tx.query(
    `UPDATE webhook_deliveries SET next_attempt_at = now(), updated_at = now()
     WHERE webhook_id = $1 AND status = 'pending' AND next_attempt_at > now()`,
    [id],
  );
  await notifyDue(tx);
  return webhook;
}

/** A claimed delivery with what sending it needs. */
export interface Claimed {
  id: string;
  webhook_id: string;
  event: string;
  payload: unknown;
  /** The attempt being made (1-based) in `series`. */
  attempts: number;
  series: number;
  attempt_id: string;
  url: string;
  secret: string;
  /** The secret a rotation replaced, while its overlap window lasts; else null. */
  previous_secret: string | null;
  webhook_disabled: boolean;
  webhook_suspended: boolean;
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`: status delivering, attempt counted and recorded as
 * started, all in one statement. SKIP LOCKED lets many workers claim side by side without waiting or
 * taking the same row; a row whose lease expired (its worker died) is due again, and the attempt that
 * worker left without an outcome is marked so.
 *
 * Per endpoint, attempts in flight stay within `endpointConcurrency` (1 while the endpoint is failing),
 * counting those of every worker, and a backed-off endpoint is skipped until its `retry_at`: a slow or
 * dead receiver holds a few attempts, never the outbox. Two workers claiming at the same instant may
 * each fill an endpoint's allowance once, so the bound across N workers is N times the allowance.
 */
export async function claimDue(
  db: Queryable,
  limit: number,
  leaseMs: number,
  endpointConcurrency: number,
): Promise<Claimed[]> {
  return db.query<Claimed>(
    `WITH busy AS (
       SELECT webhook_id, count(*)::int AS n FROM webhook_deliveries
       WHERE status = 'delivering' AND locked_until >= now() GROUP BY webhook_id
     ), due AS (
       SELECT d.id, d.next_attempt_at,
         row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id) + COALESCE(b.n, 0) AS place,
         CASE WHEN w.failure_streak > 0 THEN 1 ELSE $3::int END AS allowance
       FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id
       LEFT JOIN busy b ON b.webhook_id = d.webhook_id
       WHERE d.status IN ('pending', 'delivering') AND d.next_attempt_at <= now()
         AND (d.locked_until IS NULL OR d.locked_until < now())
         AND (w.retry_at IS NULL OR w.retry_at <= now())
     ), claimed AS (
       UPDATE webhook_deliveries d
       SET status = 'delivering', attempts = d.attempts + 1,
         locked_until = now() + $2::float8 * interval '1 millisecond', updated_at = now()
       WHERE d.id IN (
         SELECT id FROM webhook_deliveries
         WHERE id IN (SELECT id FROM due WHERE place <= allowance)
           AND status IN ('pending', 'delivering') AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED)
       RETURNING d.id, d.webhook_id, d.event, d.payload, d.attempts, d.series
     ), lost AS (
       UPDATE webhook_attempts a
       SET error = 'no outcome: the worker stopped during the attempt; its claim expired'
       WHERE a.delivery_id IN (SELECT id FROM claimed) AND a.duration_ms IS NULL AND a.error IS NULL
     ), started AS (
       INSERT INTO webhook_attempts (id, delivery_id, series, attempt_no, started_at)
       SELECT gen_random_uuid(), c.id, c.series, c.attempts, now() FROM claimed c
       RETURNING id, delivery_id
     )
     SELECT c.id, c.webhook_id, c.event, c.payload, c.attempts, c.series, s.id AS attempt_id, w.url, w.secret,
       CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret,
       w.disabled_at IS NOT NULL AS webhook_disabled, w.suspended_at IS NOT NULL AS webhook_suspended
     FROM claimed c JOIN started s ON s.delivery_id = c.id JOIN webhooks w ON w.id = c.webhook_id`,
    [limit, leaseMs, endpointConcurrency],
  );
}

export interface Outcome {
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  next: 'succeeded' | 'failed' | 'pending';
  /** Wait before the next attempt when `next` is pending. */
  retryInMs: number;
  /** Whether the receiver was tried: an attempt refused before sending (deleted webhook) says nothing of it. */
  reachedEndpoint: boolean;
}

/**
 * The statement that moves a delivery on after an attempt ($5 id, $6 series, $7 attempt, $8 next status,
 * $9 retry wait in ms): never earlier than `notBefore`, with `lastError` as its error.
 */
const moveDelivery = (sql: { notBefore: string; lastError: string }) => `
  UPDATE webhook_deliveries SET status = $8::text,
    next_attempt_at = CASE WHEN $8::text = 'pending'
      THEN GREATEST(now() + $9::float8 * interval '1 millisecond', ${sql.notBefore}) END,
    locked_until = NULL, last_status = $3, last_error = ${sql.lastError}, updated_at = now()
  WHERE id = $5 AND series = $6 AND attempts = $7 AND status = 'delivering'
  RETURNING id`;

export interface Finished {
  /** Whether the delivery moved on (false: the claim was superseded; the outcome is kept in attempts). */
  moved: boolean;
  /** The endpoint's failed attempts in a row after this one. */
  streak: number;
  /** Set when this attempt backed the endpoint off: its deliveries wait until then. */
  retryAt: string | null;
  /** This attempt's failure suspended the endpoint. */
  suspended: boolean;
}

/**
 * Records an attempt's outcome, and moves the delivery on — only while this worker's claim is the
 * current one (same series and attempt, still delivering), so a late answer never overwrites a newer
 * attempt or a resend. Also keeps the endpoint's health: a success ends its failure streak; a failure
 * extends it, backs the endpoint off from the third in a row (its waiting deliveries move to the end of
 * the back-off), and suspends it once it has failed without a break for `suspendAfterMs`.
 */
export async function finishAttempt(
  db: Queryable & { transaction: Db['transaction'] },
  job: Claimed,
  outcome: Outcome,
  policy: EndpointPolicy,
): Promise<Finished> {
  const attemptParams = [job.attempt_id, Math.round(outcome.durationMs), outcome.statusCode, outcome.error];
  if (outcome.next === 'succeeded' || !outcome.reachedEndpoint) {
    const rows = await db.query<{ id: string }>(
      `WITH attempt AS (
         UPDATE webhook_attempts SET duration_ms = $2, status_code = $3, error = $4 WHERE id = $1
       ), healed AS (
         UPDATE webhooks SET failure_streak = 0, failing_since = NULL, retry_at = NULL
         WHERE id = $10 AND failure_streak > 0 AND $11::bool
       )
       ${moveDelivery({ notBefore: 'NULL', lastError: '$4' })}`,
      [
        ...attemptParams,
        job.id,
        job.series,
        job.attempts,
        outcome.next,
        outcome.retryInMs,
        job.webhook_id,
        outcome.next === 'succeeded',
      ],
    );
    return { moved: rows.length > 0, streak: 0, retryAt: null, suspended: false };
  }
  return db.transaction(async (tx) => {
    const [health] = await tx.query<{ streak: number; retry_at: string | null; suspended: boolean }>(
      `UPDATE webhooks w SET failure_streak = w.failure_streak + 1,
         failing_since = COALESCE(w.failing_since, now()),
         retry_at = CASE WHEN w.failure_streak + 1 >= ${BACKOFF_FROM_STREAK}
           THEN now() + ($2::float8[])[LEAST(w.failure_streak + 2 - ${BACKOFF_FROM_STREAK}, cardinality($2::float8[]))]
             * interval '1 millisecond' END,
         suspended_at = CASE WHEN w.suspended_at IS NULL
           AND COALESCE(w.failing_since, now()) <= now() - $3::float8 * interval '1 millisecond'
           THEN now() ELSE w.suspended_at END
       WHERE w.id = $1
       RETURNING w.failure_streak AS streak, w.retry_at, (w.suspended_at = now()) AS suspended`,
      [job.webhook_id, policy.scheduleMs, policy.suspendAfterMs],
    );
    const suspended = health?.suspended === true;
    const retryAt = health?.retry_at ?? null;
    const next = suspended ? 'failed' : outcome.next;
    const error = suspended ? `${outcome.error}; ${SUSPENDED_ERROR}` : outcome.error;
    const rows = await tx.query<{ id: string }>(
      `WITH attempt AS (
         UPDATE webhook_attempts SET duration_ms = $2, status_code = $3, error = $4 WHERE id = $1
       )
       ${moveDelivery({ notBefore: '$10::timestamptz', lastError: '$11' })}`,
      [...attemptParams, job.id, job.series, job.attempts, next, outcome.retryInMs, retryAt, error],
    );
    if (suspended)
      await tx.query(
        `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = $2, updated_at = now()
         WHERE webhook_id = $1 AND status = 'pending'`,
        [job.webhook_id, SUSPENDED_ERROR],
      );
    else if (retryAt)
      await tx.query(
        `UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = now()
         WHERE webhook_id = $1 AND status = 'pending' AND next_attempt_at < $2`,
        [job.webhook_id, retryAt],
      );
    return { moved: rows.length > 0, streak: health?.streak ?? 0, retryAt, suspended };
  });
}
