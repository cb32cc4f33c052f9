import type { Queryable } from './db.ts';

/** SQL of usage: per-key, per-minute request counters and the keys' last-used times. */

export interface UsageCell {
  keyId: string;
  /** The minute's start, ms since the epoch. */
  minute: number;
  requests: number;
  errors: number;
  /** The key's latest use in the minute, ms since the epoch; -Infinity for a user's dashboard reads. */
  lastUsed: number;
}

/**
 * One statement, so a batch lands atomically (a failed flush can be merged back and retried without
 * double counting) in one round trip. A key's last use is kept in its minute's row, never in its
 * `api_keys` row: updating 2,000 key rows every 5 s (each a new row version, its three index entries,
 * the key triggers' checks) took PostgreSQL ~50 ms of CPU per flush, and on two cores the answers due
 * meanwhile waited for it (docs/EVALUATION.md, "The usage flush's key rows"). `KEY_LAST_USED`
 * (accounts.ts) reads it back. Times go as whole ms since the epoch, turned into timestamps here
 * (to_timestamp rounds to the microsecond: the same instant `new Date(ms).toISOString()` names).
 */
const FLUSH_SQL = `INSERT INTO usage_minutely (key_id, minute, requests, errors, last_used_at)
  SELECT id, to_timestamp(ms::float8 / 1000), requests, errors, to_timestamp(last_ms::float8 / 1000)
  FROM unnest($1::uuid[], $2::int8[], $3::int[], $4::int[], $5::int8[]) AS c(id, ms, requests, errors, last_ms)
  ON CONFLICT (key_id, minute) DO UPDATE SET requests = usage_minutely.requests + EXCLUDED.requests,
    errors = usage_minutely.errors + EXCLUDED.errors,
    last_used_at = GREATEST(usage_minutely.last_used_at, EXCLUDED.last_used_at)`;

/**
 * A PostgreSQL array literal of uuids or whole numbers, none of which needs quoting: one string that
 * pg sends as it is. Given arrays, pg walks and escapes every element, and the flush built an ISO
 * text per time before that — for 2,000 keys 10–14 ms of the server's event loop every 5 s, every
 * request arriving meanwhile waiting (docs/EVALUATION.md "Read-path tail", the fifth pass).
 */
const arrayLiteral = (values: readonly (string | number)[]): string => `{${values.join(',')}}`;

/** Whole ms, as a Date keeps them (it drops a fraction): the instant the ISO text of before named. */
const wholeMs = (ms: number): number => Math.trunc(ms);

/** A last use as an array element: whole ms, or NULL for none. */
const lastUse = (ms: number): string | number => (ms === Number.NEGATIVE_INFINITY ? 'NULL' : wholeMs(ms));

/** Adds a batch of counters and their keys' last uses (ms since the epoch) atomically. */
export async function addUsage(db: Queryable, cells: readonly UsageCell[]): Promise<void> {
  await db.query(FLUSH_SQL, [
    arrayLiteral(cells.map((c) => c.keyId)),
    arrayLiteral(cells.map((c) => wholeMs(c.minute))),
    arrayLiteral(cells.map((c) => c.requests)),
    arrayLiteral(cells.map((c) => c.errors)),
    arrayLiteral(cells.map((c) => lastUse(c.lastUsed))),
  ]);
}

export type UsageWindow = '1h' | '24h' | '7d' | '30d';
export type UsageBucketSize = 'minute' | 'hour' | 'day';

/** Bucket size and count per window. */
export const USAGE_WINDOWS: Record<UsageWindow, { bucket: UsageBucketSize; count: number; step: string }> = {
  '1h': { bucket: 'minute', count: 60, step: '1 minute' },
  '24h': { bucket: 'hour', count: 24, step: '1 hour' },
  '7d': { bucket: 'day', count: 7, step: '24 hours' },
  '30d': { bucket: 'day', count: 30, step: '24 hours' },
};

export interface UsageSeries {
  key_id: string;
  window: UsageWindow;
  from: string;
  to: string;
  bucket: UsageBucketSize;
  totals: { requests: number; errors: number };
  buckets: { start: string; requests: number; errors: number }[];
}

/**
 * Buckets are truncated in UTC whatever the session time zone, and every bucket is present (zero
 * when idle). The last bucket is the one holding `now`; minutes after `now` are not counted.
 */
const SERIES_SQL = `WITH buckets AS (
  SELECT generate_series(date_trunc($2, $3::timestamptz, 'UTC') - ($4::int - 1) * $5::interval,
    date_trunc($2, $3::timestamptz, 'UTC'), $5::interval) AS start
), counts AS (
  SELECT date_trunc($2, minute, 'UTC') AS start, sum(requests) AS requests, sum(errors) AS errors
  FROM usage_minutely
  WHERE key_id = $1 AND minute >= (SELECT min(start) FROM buckets) AND minute <= $3::timestamptz
  GROUP BY 1
)
SELECT b.start, COALESCE(c.requests, 0)::int8 AS requests, COALESCE(c.errors, 0)::int8 AS errors
FROM buckets b LEFT JOIN counts c ON c.start = b.start
ORDER BY b.start`;

export async function usageSeries(
  db: Queryable,
  keyId: string,
  window: UsageWindow,
  now: Date,
): Promise<UsageSeries> {
  const { bucket, count, step } = USAGE_WINDOWS[window];
  const rows = await db.query<{ start: string | Date; requests: number | string; errors: number | string }>(
    SERIES_SQL,
    [keyId, bucket, now.toISOString(), count, step],
  );
  const buckets = rows.map((r) => ({
    start: new Date(r.start).toISOString(),
    requests: Number(r.requests),
    errors: Number(r.errors),
  }));
  const totals = { requests: 0, errors: 0 };
  for (const b of buckets) {
    totals.requests += b.requests;
    totals.errors += b.errors;
  }
  return {
    key_id: keyId,
    window,
    from: buckets[0]?.start ?? now.toISOString(),
    to: now.toISOString(),
    bucket,
    totals,
    buckets,
  };
}
