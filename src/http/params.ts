import { defaultEngine, engineNames, getEngine } from '../domain/engines/index.ts';
import type { Engine } from '../domain/types.ts';
import { errors } from './errors.ts';

/** `engine=` or the registry default; an unknown name is a 400 listing the known ones. */
export function pickEngine(name: string | undefined): Engine {
  if (name === undefined) return defaultEngine();
  const engine = getEngine(name);
  if (!engine) throw errors.unknownEngine(name, engineNames());
  return engine;
}

export function checkDateRange(from: string | undefined, to: string | undefined): void {
  if (from !== undefined && to !== undefined && from > to) {
    throw errors.invalidParameter('from', `must be on or before "to" (${to})`);
  }
}

export const upper = (value: string | undefined): string | undefined => value?.toUpperCase();
