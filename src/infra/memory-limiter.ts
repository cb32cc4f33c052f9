import {
  type BackoffDecision,
  type BackoffPolicy,
  backoffDelay,
  type LimitDecision,
  type LimiterState,
  type RateLimiter,
} from './limiter.ts';

/**
 * The admitted requests of one bucket, oldest first, in a ring buffer: pruning advances `head`, so a
 * request costs O(expired entries) however large the limit (no Array#shift over 3000 entries).
 * Capacity is a power of two so the index wraps with a mask; it grows by doubling up to the limit.
 */
interface Log {
  times: Float64Array;
  head: number;
  size: number;
  /** The window of the latest hit, so the sweeper knows when the whole log has expired. */
  windowMs: number;
}

export interface MemoryLimiterOptions {
  /** How often buckets idle for longer than their window are dropped (default 60 s). */
  sweepIntervalMs?: number;
}

const INITIAL_CAPACITY = 8;

/**
 * Exact sliding-log limiter for a single process. A request at `now` counts until
 * `now + windowMs`: it is admitted iff fewer than `limit` admitted requests have a timestamp in
 * `(now - windowMs, now]`. Refused requests are not recorded. In `serve --workers N` without Redis the
 * primary holds the one instance and answers the workers over IPC (ipc-limiter.ts).
 */
export class MemoryLimiter implements RateLimiter {
  readonly #logs = new Map<string, Log>();
  readonly #timer: NodeJS.Timeout;

  constructor(options: MemoryLimiterOptions = {}) {
    this.#timer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.#timer.unref();
  }

  state(): LimiterState {
    return { ok: true, store: 'memory' };
  }

  /** Number of buckets held in memory (idle ones disappear at the next sweep). */
  get bucketCount(): number {
    return this.#logs.size;
  }

  hit(bucket: string, limit: number, windowMs: number, now = Date.now()): Promise<LimitDecision> {
    return Promise.resolve(this.hitSync(bucket, limit, windowMs, now));
  }

  backoff(bucket: string, policy: BackoffPolicy, now = Date.now(), peek = false): Promise<BackoffDecision> {
    return Promise.resolve(this.backoffSync(bucket, policy, now, peek));
  }

  reset(bucket: string): Promise<void> {
    this.resetSync(bucket);
    return Promise.resolve();
  }

  /** hit() without the promise: the cluster primary answers its workers with it (IPC limiter). */
  hitSync(bucket: string, limit: number, windowMs: number, now = Date.now()): LimitDecision {
    const log = this.#logs.get(bucket);
    if (log) {
      log.windowMs = windowMs;
      prune(log, now - windowMs);
    }
    const count = log?.size ?? 0;
    if (count >= limit) {
      const resetAt = log && log.size > 0 ? oldest(log) + windowMs : now + windowMs;
      return { allowed: false, limit, remaining: 0, resetAt };
    }
    const target = log ?? this.#create(bucket, windowMs);
    // Keep the log sorted even if the clock steps back: such a request counts a little longer, never shorter.
    push(target, target.size > 0 ? Math.max(now, newest(target)) : now);
    return { allowed: true, limit, remaining: limit - target.size, resetAt: oldest(target) + windowMs };
  }

  /** backoff() without the promise; `policy` is not kept. */
  backoffSync(bucket: string, policy: BackoffPolicy, now = Date.now(), peek = false): BackoffDecision {
    const log = this.#logs.get(bucket);
    if (log) {
      log.windowMs = policy.windowMs;
      prune(log, now - policy.windowMs);
    }
    const counted = log?.size ?? 0;
    const retryAt =
      log && counted >= policy.free ? Math.max(now, newest(log) + backoffDelay(policy, counted)) : now;
    const allowed = retryAt <= now;
    if (allowed && !peek) {
      const target = log ?? this.#create(bucket, policy.windowMs);
      push(target, target.size > 0 ? Math.max(now, newest(target)) : now);
    }
    return { allowed, retryAt };
  }

  resetSync(bucket: string): void {
    this.#logs.delete(bucket);
  }

  /** Drops every bucket whose newest admitted request has left its window. */
  sweep(now = Date.now()): void {
    for (const [bucket, log] of this.#logs) {
      if (log.size === 0 || newest(log) <= now - log.windowMs) this.#logs.delete(bucket);
    }
  }

  close(): Promise<void> {
    clearInterval(this.#timer);
    this.#logs.clear();
    return Promise.resolve();
  }

  #create(bucket: string, windowMs: number): Log {
    const log: Log = { times: new Float64Array(INITIAL_CAPACITY), head: 0, size: 0, windowMs };
    this.#logs.set(bucket, log);
    return log;
  }
}

function at(log: Log, offset: number): number {
  return log.times[(log.head + offset) & (log.times.length - 1)] ?? 0;
}

function oldest(log: Log): number {
  return at(log, 0);
}

function newest(log: Log): number {
  return at(log, log.size - 1);
}

/** Forgets requests at or before `cutoff` (they have left the window). */
function prune(log: Log, cutoff: number): void {
  const mask = log.times.length - 1;
  while (log.size > 0 && oldest(log) <= cutoff) {
    log.head = (log.head + 1) & mask;
    log.size -= 1;
  }
  if (log.size === 0) log.head = 0;
}

function push(log: Log, time: number): void {
  if (log.size === log.times.length) grow(log);
  log.times[(log.head + log.size) & (log.times.length - 1)] = time;
  log.size += 1;
}

function grow(log: Log): void {
  const times = new Float64Array(log.times.length * 2);
  for (let i = 0; i < log.size; i += 1) times[i] = at(log, i);
  log.times = times;
  log.head = 0;
}
