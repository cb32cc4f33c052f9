import { ENGINES } from '../../src/domain/engines/index.ts';
import type { SignalFilter } from '../../src/store/signals.ts';

const engine = ENGINES[0];

/** A signals list filter for the first engine, first page of 20 without rationales, with `extra` on top. */
export function firstEngineFilter(extra: Partial<SignalFilter> = {}): SignalFilter {
  return {
    engine: engine?.name ?? '',
    engineVersion: engine?.version ?? '',
    withRationale: false,
    limit: 20,
    offset: 0,
    ...extra,
  };
}
