import type { FastifyRequest } from 'fastify';
import { defaultEngine, ENGINES, engineNames, getEngine } from '../domain/engines/index.ts';
import type { Engine } from '../domain/types.ts';
import { errors } from '../http/errors.ts';
import { showsField } from '../http/reader-tier.ts';
import { requireSessionTier, sessionReaches } from './plan-tier.ts';

/**
 * `engine=` for the signed-in user, as src/http/params.ts `pickEngine` decides it for a key of their
 * plan: an unknown engine is a 400 naming the known ones, one above the plan's tier a 403
 * `tier_required`.
 */
export function sessionEngine(request: FastifyRequest, name: string | undefined): Engine {
  const engine = name === undefined ? defaultEngine() : getEngine(name);
  if (!engine) throw errors.unknownEngine(name ?? '', engineNames());
  requireSessionTier(request, engine.tier, `engine ${engine.name}`);
  return engine;
}

export const sessionShowsRationale = (request: FastifyRequest): boolean =>
  showsField(request, 'signal', 'rationale');

/** Every engine with its tier and whether the user's plan reaches it (the pages' engine pickers). */
export function engineChoices(request: FastifyRequest) {
  const fallback = defaultEngine().name;
  return ENGINES.map((e) => ({
    name: e.name,
    version: e.version,
    tier: e.tier,
    reachable: sessionReaches(request, e.tier),
    default: e.name === fallback,
  }));
}
