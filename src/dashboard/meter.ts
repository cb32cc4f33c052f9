import type { FastifyReply, FastifyRequest } from 'fastify';
import { PLAN_LIMITS, RATE_WINDOW_MS } from '../domain/plans.ts';
import { setLimitHeaders } from '../http/auth.ts';
import { errors } from '../http/errors.ts';
import { routeOf } from '../http/route-of.ts';
import type { Services } from '../http/types.ts';
import type { Session } from './sessions.ts';

type Need = 'none' | 'optional' | 'user' | 'admin';

const READS = new Set(['GET', 'HEAD']);

/**
 * Whether a dashboard request is a metered read: a GET or HEAD of a route that needs a signed-in user.
 * Sign-in, sign-up and sign-out are not (they have their own throttles, and signing out must always
 * work); neither are writes, so a user past the allowance can still revoke a key.
 */
export const meteredRead = (method: string, need: Need): boolean =>
  READS.has(method) && (need === 'user' || need === 'admin');

/** The limiter bucket of a user's dashboard reads: one per user, whichever of their sessions reads. */
export const dashboardBucket = (userId: string): string => `dash:user:${userId}`;

/**
 * Dashboard reads are limited like API reads: per user, on the app's RateLimiter (so every instance
 * of a cluster counts in the same Redis), a 60-second sliding window of the plan's `dashboardRpm`,
 * the three `X-RateLimit-*` headers on every metered answer, and past the allowance the API's 429
 * envelope with `Retry-After`. Refused reads are not counted, as with keys.
 */
export function dashboardMeter({ limiter, now }: Pick<Services, 'limiter' | 'now'>) {
  return async (reply: FastifyReply, session: Session): Promise<void> => {
    const allowance = PLAN_LIMITS[session.user.plan].dashboardRpm;
    const at = now().getTime();
    const decision = await limiter.hit(dashboardBucket(session.user.id), allowance, RATE_WINDOW_MS, at);
    setLimitHeaders(reply, decision);
    if (!decision.allowed) {
      throw errors.dashboardRateLimited(Math.max(1, Math.ceil((decision.resetAt - at) / 1000)));
    }
  };
}

/** The user a request's usage is attributed to: the signed-in user of a metered dashboard read. */
export function meteredUser(request: FastifyRequest): string | null {
  const need = routeOf(request).config.access;
  if (!request.session || need?.kind !== 'session') return null;
  return meteredRead(request.method, need.need) ? request.session.user.id : null;
}
