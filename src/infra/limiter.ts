/**
 * Sliding-window rate limiting (DESIGN §4): a request is admitted iff fewer than `limit` admitted
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

export interface RateLimiter {
  hit(bucket: string, limit: number, windowMs: number, now?: number): Promise<LimitDecision>;
  close(): Promise<void>;
}
