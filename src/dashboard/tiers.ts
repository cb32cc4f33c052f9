import type { FastifyRequest } from 'fastify';
import { defaultEngine, ENGINES, engineNames, getEngine } from '../domain/engines/index.ts';
import { reachesTier } from '../domain/plans.ts';
import type { Engine } from '../domain/types.ts';
import { errors } from '../http/errors.ts';
import { signedIn } from '../http/session-auth.ts';

/**
 * The API's tier rules for the signed-in user's plan, as a key of that plan meets them
 * (src/http/params.ts `pickEngine`, src/http/auth.ts `showsRationale`): an unknown engine is a 400, an
 * engine above the plan's tier a 403 `tier_required` naming both, and the per-rule rationale is shown
 * on the intelligence tier only.
 */
export function sessionEngine(request: FastifyRequest, name: string | undefined): Engine {
  const engine = name === undefined ? defaultEngine() : getEngine(name);
  if (!engine) throw errors.unknownEngine(name ?? '', engineNames());
  const { plan } = signedIn(request).user;
  if (!reachesTier(plan, engine.tier)) throw errors.tierRequired(engine.tier, plan, `engine ${engine.name}`);
  return engine;
}

export const sessionShowsRationale = (request: FastifyRequest): boolean =>
  reachesTier(signedIn(request).user.plan, 'intelligence');

/** Every engine with its tier and whether the user's plan reaches it (the page's engine picker). */
export function engineChoices(request: FastifyRequest) {
  const { plan } = signedIn(request).user;
  const fallback = defaultEngine().name;
  return ENGINES.map((e) => ({
    name: e.name,
    version: e.version,
    tier: e.tier,
    reachable: reachesTier(plan, e.tier),
    default: e.name === fallback,
  }));
}
