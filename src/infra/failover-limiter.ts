import type { BackoffDecision, BackoffPolicy, LimitDecision, LimiterState, RateLimiter } from './limiter.ts';
import { MemoryLimiter } from './memory-limiter.ts';
import type { RedisLimiter } from './redis-limiter.ts';

/** Client states after a connection was lost (ioredis): a command would wait, so none is sent. */
const LOST = new Set(['reconnecting', 'close', 'end']);

export interface FailoverEvents {
  /** Redis stopped answering: this process now decides alone. */
  degraded(error: unknown): void;
  /** Redis answered again: shared limits are back. */
  recovered(downMs: number): void;
}

export interface FailoverOptions {
  /** While degraded, Redis is tried again at most this often (default 1 s); other calls stay local. */
  probeEveryMs?: number;
  clock?: () => number;
}

/**
 * The Redis limiter, with this process's exact in-memory limiter behind it. A call Redis cannot answer
 * (refused at once while disconnected, or past the client's command deadline) is decided locally, so a
 * request never waits on Redis longer than that deadline and never fails because of it. While degraded
 * every call is local except one probe per `probeEveryMs`; the first probe Redis answers ends it.
 *
 * Policy during an outage: each process enforces the full limit on its own (a key spread over N
 * processes may get up to N times its limit); sign-in back-off the same way. What was counted locally is
 * not copied to Redis afterwards, so a key may get up to one extra window's worth in the minute after
 * recovery. See docs/OPERATIONS.md.
 */
export class FailoverLimiter implements RateLimiter {
  readonly #redis: RedisLimiter;
  readonly #local = new MemoryLimiter();
  readonly #events: FailoverEvents;
  readonly #probeEveryMs: number;
  readonly #clock: () => number;
  /** When the outage began; null while Redis answers. */
  #downSince: number | null = null;
  #nextProbe = 0;
  /** Calls decided locally because Redis could not answer. */
  localDecisions = 0;

  constructor(redis: RedisLimiter, events: FailoverEvents, options: FailoverOptions = {}) {
    this.#redis = redis;
    this.#events = events;
    this.#probeEveryMs = options.probeEveryMs ?? 1000;
    this.#clock = options.clock ?? Date.now;
  }

  /** True while limits are decided per process. */
  get degraded(): boolean {
    return this.#downSince !== null;
  }

  state(): LimiterState {
    if (this.#downSince === null) return { ok: true, store: 'redis' };
    const seconds = Math.round((this.#clock() - this.#downSince) / 1000);
    return {
      ok: false,
      store: 'redis',
      detail: `Redis unreachable for ${seconds} s: limits enforced per process`,
    };
  }

  get redis(): RedisLimiter {
    return this.#redis;
  }

  hit(bucket: string, limit: number, windowMs: number, now?: number): Promise<LimitDecision> {
    return this.#decide(
      () => this.#redis.hit(bucket, limit, windowMs, now),
      () => this.#local.hitSync(bucket, limit, windowMs, now),
    );
  }

  backoff(bucket: string, policy: BackoffPolicy, now?: number, peek?: boolean): Promise<BackoffDecision> {
    return this.#decide(
      () => this.#redis.backoff(bucket, policy, now, peek),
      () => this.#local.backoffSync(bucket, policy, now, peek),
    );
  }

  async reset(bucket: string): Promise<void> {
    this.#local.resetSync(bucket);
    await this.#decide(
      () => this.#redis.reset(bucket),
      () => undefined,
    );
  }

  async close(): Promise<void> {
    await this.#local.close();
    await this.#redis.close();
  }

  async #decide<T>(remote: () => Promise<T>, local: () => T): Promise<T> {
    const connection = this.#redis.redis.status;
    if (this.#downSince !== null) {
      // A probe only when connected: a command to a client still reconnecting would just wait out
      // its deadline.
      const now = this.#clock();
      if (now < this.#nextProbe || connection !== 'ready') return this.#locally(local);
      this.#nextProbe = now + this.#probeEveryMs;
    } else if (LOST.has(connection)) {
      this.#degrade(new Error(`the connection to Redis is ${connection}`));
      return this.#locally(local);
    }
    let answer: T;
    try {
      answer = await remote();
    } catch (error) {
      this.#degrade(error);
      return this.#locally(local);
    }
    if (this.#downSince !== null) {
      const downMs = this.#clock() - this.#downSince;
      this.#downSince = null;
      this.#events.recovered(downMs);
    }
    return answer;
  }

  #degrade(error: unknown): void {
    if (this.#downSince !== null) return;
    this.#downSince = this.#clock();
    this.#nextProbe = this.#downSince + this.#probeEveryMs;
    this.#events.degraded(error);
  }

  #locally<T>(local: () => T): T {
    this.localDecisions += 1;
    return local();
  }
}
