import type { Engine, EventSource } from '../types.ts';
import { ANNOUNCEMENT_DV_RULES, announcementDv } from './announcement-dv.ts';
import { ANNOUNCEMENT_SIZE_RULES, announcementSize } from './announcement-size.ts';
import { MATERIALITY_RULES, materiality } from './materiality.ts';
import { REGIME_AWARE_RULES, regimeAware } from './regime-aware.ts';

export const ENGINES: readonly Engine[] = [materiality, regimeAware, announcementSize, announcementDv];

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

/**
 * Every `rule` a rationale row of any engine may name: a closed set in the API (`RationaleRule`).
 * Stored signals keep the rationale of the engine version that computed them, so a rule renamed or
 * dropped in a later version must stay listed here (every name so far is still in use).
 */
export const RATIONALE_RULES: readonly string[] = [
  ...new Set([
    ...MATERIALITY_RULES,
    ...REGIME_AWARE_RULES,
    ...ANNOUNCEMENT_SIZE_RULES,
    ...ANNOUNCEMENT_DV_RULES,
  ]),
];
