import type { Engine, EventSource } from '../types.ts';
import { announcementSize } from './announcement-size.ts';
import { materiality } from './materiality.ts';
import { regimeAware } from './regime-aware.ts';

export const ENGINES: readonly Engine[] = [materiality, regimeAware, announcementSize];

export function getEngine(name: string): Engine | undefined {
  return ENGINES.find((engine) => engine.name === name);
}

/** Exactly one engine is marked default; the registry test pins that. */
export function defaultEngine(): Engine {
  return ENGINES.find((engine) => engine.isDefault) ?? materiality;
}

export function engineNames(): string[] {
  return ENGINES.map((engine) => engine.name);
}

/** Whether `engine` scores events of `source` (an engine without `sources` scores every source). */
export const scoresSource = (engine: Pick<Engine, 'sources'>, source: EventSource): boolean =>
  engine.sources === undefined || engine.sources.includes(source);
