import { createHash } from 'node:crypto';
import type { BackoffPolicy, RateLimiter } from '../infra/limiter.ts';

const MINUTE = 60_000;

/** Sign-in attempts per address and email: the hard limit on guessing one account from one place. */
export const SIGN_IN_PER_PAIR = { limit: 5, windowMs: 15 * MINUTE };
/** Sign-in attempts per address across emails: against one password sprayed over many accounts. */
export const SIGN_IN_PER_ADDRESS = { limit: 20, windowMs: 15 * MINUTE };
/**
 * Sign-in attempts per email from any address: 5 pass at once, then each further one waits 1 s, 2 s,
 * 4 s … at most 60 s after the previous one. A delay rather than a limit, so guesses spread over many
 * addresses slow to one a minute while the account can never be locked.
 */
export const SIGN_IN_PER_EMAIL: BackoffPolicy = {
  free: 5,
  baseMs: 1000,
  maxMs: MINUTE,
  windowMs: 15 * MINUTE,
};
/** Sign-ups per address: each one costs a password hash. */
export const SIGN_UP_PER_ADDRESS = { limit: 10, windowMs: 60 * MINUTE };

/** Buckets name the email by a digest: the shared store holds no addresses of users. */
const emailKey = (email: string) =>
  createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The dashboard's sign-in and sign-up throttles, on the app's RateLimiter, so in cluster mode every
 * instance counts in the same Redis. Attempts are counted, atomically, before the password is hashed:
 * parallel guesses cannot all slip in while earlier ones are still being checked. Each method answers
 * the seconds to wait, 0 when the attempt may go ahead.
 */
export class AuthThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly now: () => Date,
  ) {}

  async signIn(address: string, email: string): Promise<number> {
    const now = this.now().getTime();
    const account = emailBucket(email);
    // Look before counting: an attempt the account's delay refuses must not spend the address's allowance.
    const early = await this.limiter.backoff(account, SIGN_IN_PER_EMAIL, now, true);
    if (!early.allowed) return seconds(early.retryAt - now);
    for (const [bucket, { limit, windowMs }] of [
      [pairBucket(address, email), SIGN_IN_PER_PAIR],
      [`signin:ip:${address}`, SIGN_IN_PER_ADDRESS],
    ] as const) {
      const decision = await this.limiter.hit(bucket, limit, windowMs, now);
      if (!decision.allowed) return seconds(decision.resetAt - now);
    }
    const counted = await this.limiter.backoff(account, SIGN_IN_PER_EMAIL, now);
    return counted.allowed ? 0 : seconds(counted.retryAt - now);
  }

  /** A correct password clears the pair and the email; the per-address count stays (it caps spraying). */
  async signedIn(address: string, email: string): Promise<void> {
    await this.limiter.reset(pairBucket(address, email));
    await this.limiter.reset(emailBucket(email));
  }

  async signUp(address: string): Promise<number> {
    const now = this.now().getTime();
    const { limit, windowMs } = SIGN_UP_PER_ADDRESS;
    const decision = await this.limiter.hit(`signup:ip:${address}`, limit, windowMs, now);
    return decision.allowed ? 0 : seconds(decision.resetAt - now);
  }
}

const emailBucket = (email: string) => `signin:email:${emailKey(email)}`;
const pairBucket = (address: string, email: string) => `signin:pair:${address}:${emailKey(email)}`;
