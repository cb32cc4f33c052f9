/**
 * Sliding-window rate limiting: a request is admitted iff fewer than `limit` admitted
 * requests fall in the last `windowMs`. Refused requests are not counted.
 */
export interface LimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one (0 when refused). */
  remaining: number;
  /** Millisecond epoch when the oldest counted request leaves the window (now + windowMs when none). */
  resetAt: number;
}

/**
 * A delay that grows with each attempt instead of a hard limit: the first `free` attempts within
 * `windowMs` pass at once; after that an attempt must come at least `backoffDelay(policy, n)` after the
 * previous one, n being the attempts counted in the window. Refused attempts are not counted, so the
 * delay never exceeds `maxMs` after the latest admitted attempt.
 */
export interface BackoffPolicy {
  free: number;
  baseMs: number;
  maxMs: number;
  windowMs: number;
}

export interface BackoffDecision {
  allowed: boolean;
  /** Millisecond epoch from which an attempt is admitted (`now` when this one was). */
  retryAt: number;
}

/** baseMs · 2^(n − free), at most maxMs: the wait after the latest of n counted attempts (n ≥ free). */
export function backoffDelay(policy: BackoffPolicy, counted: number): number {
  return Math.min(policy.maxMs, policy.baseMs * 2 ** (counted - policy.free));
}

export interface RateLimiter {
  hit(bucket: string, limit: number, windowMs: number, now?: number): Promise<LimitDecision>;
  /**
   * hit() answered at once, by a limiter that holds its buckets in this process; absent on limiters
   * that ask another process (Redis, the cluster primary). Lets a request with a cached key pass the
   * access hook without a promise.
   */
  hitSync?(bucket: string, limit: number, windowMs: number, now?: number): LimitDecision;
  /**
   * Admits and counts an attempt iff `policy` allows one now, in one atomic step like hit(). With
   * `peek` the decision is the same but nothing is counted: a cheap check before other buckets are spent.
   */
  backoff(bucket: string, policy: BackoffPolicy, now?: number, peek?: boolean): Promise<BackoffDecision>;
  /** Forgets everything counted in a bucket (of hit or of backoff). */
  reset(bucket: string): Promise<void>;
  close(): Promise<void>;
  /** Where decisions are made and whether that store is answering now (for /health; no I/O). */
  state?(): LimiterState;
}

/** Where rate limits are decided: this process, the cluster primary (over IPC), or Redis. */
export const LIMITER_STORES = ['memory', 'cluster primary', 'redis'] as const;

export interface LimiterState {
  ok: boolean;
  store: (typeof LIMITER_STORES)[number];
  detail?: string;
}

/**
 * The limiter could not decide (its process did not answer in time, or is gone): the request is
 * refused with a 503, never let through uncounted and never left waiting.
 */
export class LimiterUnavailableError extends Error {}
