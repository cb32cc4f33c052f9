import type { Queryable } from '../store/db.ts';

const MINUTE_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Cell {
  keyId: string;
  minute: number;
  requests: number;
  errors: number;
}

interface Batch {
  cells: Map<string, Cell>;
  lastUsed: Map<string, number>;
}

export interface UsageRecorderOptions {
  /** Called when a flush fails; the batch is kept and retried by the next flush. */
  onError?: (error: unknown) => void;
}

/**
 * One statement, so a batch lands atomically (a failed flush can be merged back and retried without
 * double counting) in one round trip: the per-minute counters and the keys' last-used times.
 */
const FLUSH_SQL = `WITH counted AS (
  INSERT INTO usage_minutely (key_id, minute, requests, errors)
  SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[])
  ON CONFLICT (key_id, minute) DO UPDATE SET requests = usage_minutely.requests + EXCLUDED.requests,
    errors = usage_minutely.errors + EXCLUDED.errors
  RETURNING 1
), touched AS (
  UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, u.t)
  FROM unnest($5::uuid[], $6::timestamptz[]) AS u(id, t) WHERE k.id = u.id
  RETURNING 1
)
SELECT (SELECT count(*) FROM counted) AS counted, (SELECT count(*) FROM touched) AS touched`;

/**
 * Counts keyed requests per key per UTC minute in memory and writes them in batches:
 * recording never touches the database; `flush()` (every 5 s once started, and on close) does.
 */
export class UsageRecorder {
  readonly #db: Queryable;
  readonly #onError: (error: unknown) => void;
  #pending: Batch = emptyBatch();
  /** Flushes run one after another, so close() also waits for one already under way. */
  #flushing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;

  constructor(db: Queryable, options: UsageRecorderOptions = {}) {
    this.#db = db;
    this.#onError =
      options.onError ??
      ((error) => process.emitWarning(`usage flush failed: ${String(error)}`, 'UsageRecorderWarning'));
  }

  /** (key, minute) cells waiting for the next flush. */
  get pendingCells(): number {
    return this.#pending.cells.size;
  }

  record(keyId: string, status: number, at: Date | number = Date.now()): void {
    // A malformed id would make every later batch fail, so it is refused here rather than at flush;
    // an id already in the batch passed this check.
    if (!this.#pending.lastUsed.has(keyId) && !UUID.test(keyId)) {
      throw new TypeError(`usage key id is not a uuid: ${keyId}`);
    }
    const time = typeof at === 'number' ? at : at.getTime();
    const minute = Math.floor(time / MINUTE_MS) * MINUTE_MS;
    add(this.#pending, { keyId, minute, requests: 1, errors: status >= 400 ? 1 : 0 }, time);
  }

  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce());
    return this.#flushing;
  }

  start(intervalMs = 5000): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.flush();
  }

  async #flushOnce(): Promise<void> {
    const batch = this.#pending;
    if (batch.cells.size === 0) return;
    // Swapped before the await: requests recorded while the write is in flight go to the next batch.
    this.#pending = emptyBatch();
    const cells = [...batch.cells.values()];
    const keys = [...batch.lastUsed];
    try {
      await this.#db.query(FLUSH_SQL, [
        cells.map((c) => c.keyId),
        cells.map((c) => new Date(c.minute).toISOString()),
        cells.map((c) => c.requests),
        cells.map((c) => c.errors),
        keys.map(([id]) => id),
        keys.map(([, time]) => new Date(time).toISOString()),
      ]);
    } catch (error) {
      for (const cell of cells) add(this.#pending, cell, batch.lastUsed.get(cell.keyId) ?? cell.minute);
      this.#onError(error);
    }
  }
}

function emptyBatch(): Batch {
  return { cells: new Map(), lastUsed: new Map() };
}

function add(batch: Batch, cell: Cell, usedAt: number): void {
  const id = `${cell.keyId}|${cell.minute}`;
  const current = batch.cells.get(id);
  if (current) {
    current.requests += cell.requests;
    current.errors += cell.errors;
  } else {
    batch.cells.set(id, { ...cell });
  }
  const last = batch.lastUsed.get(cell.keyId);
  if (last === undefined || usedAt > last) batch.lastUsed.set(cell.keyId, usedAt);
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
