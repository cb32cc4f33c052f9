import { randomBytes } from 'node:crypto';
import { Redis, type Result } from 'ioredis';
import type { BackoffDecision, BackoffPolicy, LimitDecision, RateLimiter } from './limiter.ts';

/**
 * The whole decision in one script, so it is atomic across every instance sharing the Redis:
 * forget entries that left the window, count, admit (ZADD) only below the limit, refresh the TTL,
 * and report the oldest counted entry for X-RateLimit-Reset. Scores are the caller's ms timestamps;
 * the cutoff is computed by the caller too, so no float formatting happens in Lua.
 *
 * KEYS[1] bucket key; ARGV: now, cutoff (now - window), limit, window ms, unique member.
 * Returns { allowed 0|1, count after the decision, oldest score or nil }.
 */
const SLIDING_LOG_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { allowed, count, oldest[2] or false }
`;

/**
 * RateLimiter.backoff in one script, on the same kind of sorted set as the sliding log: forget attempts
 * that left the window, count them, and admit (ZADD, unless peeking) only if the newest is at least
 * min(base · 2^(count − free), max) old once `free` are counted — backoffDelay() in Lua.
 *
 * KEYS[1] bucket key; ARGV: now, cutoff (now - window), free, base ms, max ms, window ms, unique member,
 * peek 0|1. Returns { allowed 0|1, retryAt }.
 */
const BACKOFF_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local now = tonumber(ARGV[1])
local free = tonumber(ARGV[3])
local count = redis.call('ZCARD', KEYS[1])
local retryAt = now
if count >= free then
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  local delay = math.min(tonumber(ARGV[5]), tonumber(ARGV[4]) * 2 ^ (count - free))
  retryAt = math.max(now, tonumber(newest[2]) + delay)
end
if retryAt > now then
  return { 0, retryAt }
end
if ARGV[8] == '0' then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[7])
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
end
return { 1, retryAt }
`;

const COMMAND = 'marketIntelSlidingLog';
const BACKOFF_COMMAND = 'marketIntelBackoff';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    marketIntelSlidingLog(
      key: string,
      now: string,
      cutoff: string,
      limit: string,
      windowMs: string,
      member: string,
    ): Result<[number, number, string | null], Context>;
    marketIntelBackoff(
      key: string,
      now: string,
      cutoff: string,
      free: string,
      baseMs: string,
      maxMs: string,
      windowMs: string,
      member: string,
      peek: '0' | '1',
    ): Result<[number, number], Context>;
  }
}

export interface RedisLimiterOptions {
  /** Prefix of every bucket key (default `mi:rl:`); tests isolate themselves with a random one. */
  keyPrefix?: string;
  /** Quit the client on close(): true when the limiter opened the connection itself. */
  ownsClient?: boolean;
}

/**
 * Sliding-log limiter shared by every instance through a Redis sorted set per bucket.
 *
 * Time comes from the caller (`now`, default Date.now()), not from Redis TIME: the decision's resetAt
 * is then on the same clock as the instance writing the headers, and tests can inject time. The cost
 * is that instances must keep their clocks in sync (NTP); a skew of d ms shifts one instance's view
 * of the window by d ms, it never lets the count exceed the limit at any single instant.
 */
export class RedisLimiter implements RateLimiter {
  readonly redis: Redis;
  readonly keyPrefix: string;
  readonly #ownsClient: boolean;
  /** Members are `now:instance:sequence`, so two requests in the same millisecond never collide. */
  readonly #instance = randomBytes(6).toString('base64url');
  #sequence = 0;

  constructor(redis: Redis, options: RedisLimiterOptions = {}) {
    this.redis = redis;
    this.keyPrefix = options.keyPrefix ?? 'mi:rl:';
    this.#ownsClient = options.ownsClient ?? false;
    redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: SLIDING_LOG_LUA });
    redis.defineCommand(BACKOFF_COMMAND, { numberOfKeys: 1, lua: BACKOFF_LUA });
  }

  async hit(bucket: string, limit: number, windowMs: number, now = Date.now()): Promise<LimitDecision> {
    const [allowed, count, oldest] = await this.redis.marketIntelSlidingLog(
      this.keyPrefix + bucket,
      String(now),
      String(now - windowMs),
      String(limit),
      String(windowMs),
      this.#member(now),
    );
    return {
      allowed: allowed === 1,
      limit,
      remaining: allowed === 1 ? Math.max(0, limit - count) : 0,
      resetAt: oldest === null ? now + windowMs : Number(oldest) + windowMs,
    };
  }

  async backoff(
    bucket: string,
    policy: BackoffPolicy,
    now = Date.now(),
    peek = false,
  ): Promise<BackoffDecision> {
    const [allowed, retryAt] = await this.redis.marketIntelBackoff(
      this.keyPrefix + bucket,
      String(now),
      String(now - policy.windowMs),
      String(policy.free),
      String(policy.baseMs),
      String(policy.maxMs),
      String(policy.windowMs),
      this.#member(now),
      peek ? '1' : '0',
    );
    return { allowed: allowed === 1, retryAt };
  }

  async reset(bucket: string): Promise<void> {
    await this.redis.del(this.keyPrefix + bucket);
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await this.redis.quit();
  }

  #member(now: number): string {
    return `${now}:${this.#instance}:${(this.#sequence++).toString(36)}`;
  }
}

/** The longest a limiter command may take, queued while connecting included (ioredis commandTimeout). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * A limiter on its own connection. A command fails after REDIS_COMMAND_TIMEOUT_MS, or after one retry
 * on a new connection, instead of queueing while Redis is down, so a request sees an error (the
 * FailoverLimiter then decides locally) rather than hanging. The client reconnects by itself.
 */
export function createRedisLimiter(url: string, keyPrefix?: string): RedisLimiter {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    // Reconnect every 100 ms, 200 ms, … at most every 2 s, for as long as it takes.
    retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
  });
  return new RedisLimiter(redis, { keyPrefix, ownsClient: true });
}
