import type { FastifyRequest } from 'fastify';
import { defaultEngine, engineNames, getEngine } from '../domain/engines/index.ts';
import type { Engine } from '../domain/types.ts';
import { requireTier } from './auth.ts';
import { errors } from './errors.ts';
import { shownTo } from './reader-tier.ts';

/**
 * `engine=` or the registry default; an unknown name is a 400 listing the known ones, and an engine
 * above the caller's tier is a 403 naming that tier.
 */
export function pickEngine(request: FastifyRequest, name: string | undefined): Engine {
  const engine = name === undefined ? defaultEngine() : getEngine(name);
  if (!engine) throw errors.unknownEngine(name ?? '', engineNames());
  requireTier(request, engine.tier, `engine ${engine.name}`);
  return engine;
}

/** A signal as this caller may see it (src/domain/field-tiers.ts: rationale on the intelligence tier). */
export const visibleSignal = <T extends object>(request: FastifyRequest, signal: T): T =>
  shownTo(request, 'signal', signal);

export function checkDateRange(from: string | undefined, to: string | undefined): void {
  if (from !== undefined && to !== undefined && from > to) {
    throw errors.invalidParameter('from', `must be on or before "to" (${to})`);
  }
}

export const upper = (value: string | undefined): string | undefined => value?.toUpperCase();
