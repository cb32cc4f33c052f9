import {
  type ClassificationLabel,
  type Engine,
  type EngineInput,
  type EngineOutput,
  engineKey,
  type RationaleItem,
  type RegimeResult,
} from '../types.ts';
import { materiality, round4, scoreMateriality, sumContributions, toScore } from './materiality.ts';

/**
 * Materiality, then shifted by the market backdrop at the award date: good news lands better in
 * a risk-on tape and gets drowned out when volatility is high or markets are falling; a sector
 * already outperforming (ITA for defense work, XLI otherwise) tends to keep rewarding awards.
 */

/** In this order in the rationale. */
const REGIME_WEIGHTS = { risk_on: 10, risk_off: -8, high_volatility: -6 } as const;
/** Points per unit of 60-day relative return, capped so ±10 % outperformance moves ±5 points. */
const RELATIVE_STRENGTH_WEIGHT = 50;

/** The rules it adds to materiality's rationale (a closed set: `RationaleRule` in the OpenAPI document). */
export const REGIME_AWARE_RULES = [
  'regime_unavailable',
  ...(Object.keys(REGIME_WEIGHTS) as (keyof typeof REGIME_WEIGHTS)[]).map((name) => `regime_${name}`),
  'sector_relative_strength',
];
const RELATIVE_STRENGTH_CAP = 0.1;

const DEFENSE_LABELS = new Set<ClassificationLabel>([
  'aircraft',
  'shipbuilding',
  'missiles_munitions',
  'space',
  'ground_vehicles',
  'electronics_comms',
]);

export const regimeAware: Engine<EngineOutput> = {
  name: 'regime-aware',
  // 1.1.0: built on materiality 2.0.0; its own regime rules are unchanged.
  version: '1.1.0',
  tier: 'intelligence',
  isDefault: false,
  score: scoreRegimeAware,
};

/** regime-aware 1.1.0 is built on materiality 2.0.0, and takes its output when the caller has it. */
const BASE_KEY = engineKey(materiality);

function scoreRegimeAware(input: EngineInput, earlier?: ReadonlyMap<string, EngineOutput>): EngineOutput {
  const base = earlier?.get(BASE_KEY) ?? scoreMateriality(input);
  const regime = input.regime;
  if (regime === null) return { scores: base.scores, rationale: [...base.rationale, NO_REGIME] };
  const rationale = base.rationale.concat(regimeRationale(regime, input.contract.classification));
  const volatility = regime.scores.high_volatility;
  return {
    scores: {
      signal: toScore(sumContributions(rationale)),
      importance: base.scores.importance,
      confidence: toScore(base.scores.confidence - 10 * volatility),
      risk: toScore(base.scores.risk + 15 * volatility + 10 * regime.scores.risk_off),
    },
    rationale,
  };
}

const NO_REGIME: RationaleItem = {
  rule: 'regime_unavailable',
  weight: 0,
  value: 0,
  contribution: 0,
  detail: 'no regime at the award date; materiality unchanged',
};

/**
 * A run scores thousands of awards per award date against the same regime: its rows (two variants,
 * defense or not) are built once per regime object and shared (rows are never changed).
 */
const rowsByRegime = new WeakMap<
  RegimeResult,
  { defense: readonly RationaleItem[]; other: readonly RationaleItem[] }
>();

function regimeRationale(
  regime: RegimeResult,
  classification: ClassificationLabel,
): readonly RationaleItem[] {
  let cached = rowsByRegime.get(regime);
  if (cached === undefined) {
    cached = { defense: buildRegimeRows(regime, true), other: buildRegimeRows(regime, false) };
    rowsByRegime.set(regime, cached);
  }
  return DEFENSE_LABELS.has(classification) ? cached.defense : cached.other;
}

function buildRegimeRows(regime: RegimeResult, defense: boolean): RationaleItem[] {
  const rows: RationaleItem[] = [];
  for (const name of Object.keys(REGIME_WEIGHTS) as (keyof typeof REGIME_WEIGHTS)[]) {
    const weight = REGIME_WEIGHTS[name];
    const value = regime.scores[name];
    rows.push({
      rule: `regime_${name}`,
      weight,
      value: round4(value),
      contribution: round4(weight * value),
      detail: `${name} probability ${value.toFixed(3)} as of ${regime.asOf} (dominant ${regime.dominant})`,
    });
  }
  rows.push(relativeStrengthRow(regime, defense));
  return rows;
}

function relativeStrengthRow(regime: RegimeResult, defense: boolean): RationaleItem {
  const etf = defense ? 'ITA' : 'XLI';
  const raw = (defense ? regime.features.ita_rel_60d : regime.features.xli_rel_60d) ?? 0;
  const value = Math.max(-RELATIVE_STRENGTH_CAP, Math.min(RELATIVE_STRENGTH_CAP, raw));
  return {
    rule: 'sector_relative_strength',
    weight: RELATIVE_STRENGTH_WEIGHT,
    value: round4(value),
    contribution: round4(RELATIVE_STRENGTH_WEIGHT * value),
    detail: `${etf} 60-day return minus SPY's: ${(100 * raw).toFixed(2)}%`,
  };
}
