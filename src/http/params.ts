import type { FastifyRequest } from 'fastify';
import { defaultEngine, engineNames, getEngine } from '../domain/engines/index.ts';
import type { Engine } from '../domain/types.ts';
import { requireTier, showsRationale } from './auth.ts';
import { errors } from './errors.ts';

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

/** A signal as this caller may see it: per-rule rationale only on the intelligence tier. */
export function visibleSignal<T extends { rationale?: unknown }>(request: FastifyRequest, signal: T): T {
  return signalShown(signal, showsRationale(request));
}

/** The signal as it is, or without its per-rule rationale when the reader's tier may not see it. */
export function signalShown<T extends { rationale?: unknown }>(signal: T, withRationale: boolean): T {
  if (withRationale) return signal;
  const { rationale: _hidden, ...rest } = signal;
  return rest as T;
}

export function checkDateRange(from: string | undefined, to: string | undefined): void {
  if (from !== undefined && to !== undefined && from > to) {
    throw errors.invalidParameter('from', `must be on or before "to" (${to})`);
  }
}

export const upper = (value: string | undefined): string | undefined => value?.toUpperCase();
