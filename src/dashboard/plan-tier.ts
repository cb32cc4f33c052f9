import type { FastifyRequest } from 'fastify';
import { reachesTier } from '../domain/plans.ts';
import type { Tier } from '../domain/types.ts';
import { errors } from '../http/errors.ts';
import { signedIn } from '../http/session-auth.ts';

/**
 * The dashboard reads data with the signed-in user's plan, by the rule the API applies to that plan's
 * keys: what a key would be refused with 403 tier_required, the session is refused too (or, inside a
 * page, the part is left out and the page says which tier shows it).
 */
export const sessionReaches = (request: FastifyRequest, tier: Tier): boolean =>
  reachesTier(signedIn(request).user.plan, tier);

export function requireSessionTier(request: FastifyRequest, tier: Tier, what: string): void {
  const { plan } = signedIn(request).user;
  if (!reachesTier(plan, tier)) throw errors.tierRequired(tier, plan, what);
}
