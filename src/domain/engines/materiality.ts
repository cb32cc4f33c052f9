import type { ClassificationLabel, Engine, EngineInput, EngineOutput, RationaleItem } from '../types.ts';

/**
 * How much an award should matter to its company's stock. Each rule maps one fact to a value in
 * [0, 1]; contribution = weight × value, and the contributions add up to the signal score (the
 * weights sum to 100, so the sum never needs clamping, but it is clamped anyway for safety).
 *
 * Why 2.0.0's log scales and weights: docs/EVALUATION.md#materiality-200-calibration
 */

const WEIGHTS = {
  award_size: 35,
  relative_to_median: 25,
  share_of_trailing: 10,
  agency: 10,
  classification: 15,
  match_confidence: 5,
} as const;

/** The rules of its rationale, in its order (a closed set: `RationaleRule` in the OpenAPI document). */
export const MATERIALITY_RULES = Object.keys(WEIGHTS) as readonly (keyof typeof WEIGHTS)[];

/** Platform programs are multi-year franchises; support services are re-competed and fungible. */
const CLASSIFICATION_VALUE: Record<ClassificationLabel, number> = {
  aircraft: 1,
  shipbuilding: 1,
  missiles_munitions: 1,
  space: 0.95,
  ground_vehicles: 0.85,
  electronics_comms: 0.8,
  cybersecurity: 0.6,
  research_development: 0.6,
  it_services: 0.5,
  construction_facilities: 0.4,
  healthcare: 0.4,
  logistics_supply: 0.3,
  professional_services: 0.25,
  other: 0.15,
};

const AGENCY_VALUES: ReadonlyArray<readonly [RegExp, number, string]> = [
  [/DEFENSE|ARMY|NAVY|AIR FORCE|SPACE FORCE|MARINE CORPS|DARPA|DEFENCE/i, 1, 'defense'],
  [/AERONAUTICS AND SPACE|NASA/i, 0.85, 'NASA'],
  [/HOMELAND SECURITY|DHS|COAST GUARD/i, 0.7, 'homeland security'],
  [/ENERGY/i, 0.5, 'energy'],
  [/VETERANS|HEALTH AND HUMAN SERVICES/i, 0.4, 'health/veterans'],
];
const OTHER_AGENCY_VALUE = 0.2;

/** log10 dollars: ≤ $1M → 0, $14M (the primes' median) → 0.46, $100M → 0.8, ≥ $316M → 1. */
const SIZE_FLOOR_LOG10 = 6;
const SIZE_SPAN_LOG10 = 2.5;
/** Ratio to the trailing median, log10: 1/10 → 0, 1× → 0.5, 10× → 1. */
const RELATIVE_SPAN_LOG10 = 2;
/** Share of trailing dollars, log10: ≤ 0.1 % → 0, 1 % → 0.33, 10 % → 0.67, 100 % → 1. */
const SHARE_FLOOR_LOG10 = -3;
/** Awards below the resolver's default threshold never reach an engine; spread [0.8, 1] over [0, 1]. */
const MATCH_FLOOR = 0.8;
/** When the company has no trailing awards there is nothing to compare with: neutral. */
const NEUTRAL = 0.5;

export const materiality: Engine<EngineOutput> = {
  name: 'materiality',
  version: '2.0.0',
  tier: 'developer',
  isDefault: true,
  score: scoreMateriality,
};

export function scoreMateriality(input: EngineInput): EngineOutput {
  const rationale = materialityRationale(input);
  const signal = sumContributions(rationale);
  const size = sizeValue(input.contract.value);
  const classValue = CLASSIFICATION_VALUE[input.contract.classification];
  const share = shareValue(input);
  const match = input.contract.matchConfidence;
  return {
    scores: {
      signal: toScore(signal),
      importance: toScore(100 * (0.6 * size + 0.4 * classValue)),
      confidence: toScore(100 * (0.7 * match + 0.3 * historyDepth(input.trailing.count))),
      // Concentration in one award, a shaky ticker match and an unclassifiable purchase all
      // make the signal more likely to mislead.
      risk: toScore(100 * (0.4 * share + 0.4 * Math.min(1, 2 * (1 - match)) + 0.2 * (1 - classValue))),
    },
    rationale,
  };
}

export function materialityRationale(input: EngineInput): RationaleItem[] {
  const { contract } = input;
  const [agencyValue, agencyLabel] = agencyValueOf(contract.awardingAgency);
  return [
    row('award_size', sizeValue(contract.value), `award value $${dollars(contract.value)}`),
    row('relative_to_median', relativeValue(input), relativeDetail(input)),
    row('share_of_trailing', shareValue(input), shareDetail(input)),
    row('agency', agencyValue, `${contract.awardingAgency} (${agencyLabel})`),
    row('classification', CLASSIFICATION_VALUE[contract.classification], contract.classification),
    row(
      'match_confidence',
      matchValue(contract.matchConfidence),
      `ticker match confidence ${contract.matchConfidence}`,
    ),
  ];
}

function row(rule: keyof typeof WEIGHTS, value: number, detail: string): RationaleItem {
  const weight = WEIGHTS[rule];
  return { rule, weight, value: round4(value), contribution: round4(weight * value), detail };
}

function sizeValue(value: number): number {
  if (value <= 0) return 0;
  return clamp01((Math.log10(value) - SIZE_FLOOR_LOG10) / SIZE_SPAN_LOG10);
}

/** 1× the median → 0.5; 10× → 1; 1/10 → 0. */
function relativeValue(input: EngineInput): number {
  const { medianValue, count } = input.trailing;
  if (count === 0 || medianValue <= 0 || input.contract.value <= 0) return NEUTRAL;
  return clamp01(0.5 + Math.log10(input.contract.value / medianValue) / RELATIVE_SPAN_LOG10);
}

function relativeDetail(input: EngineInput): string {
  const { medianValue, count } = input.trailing;
  if (count === 0 || medianValue <= 0) return 'no trailing awards in the last 365 days; neutral';
  const ratio = input.contract.value / medianValue;
  return `${ratio.toFixed(2)}× the trailing 365-day median of $${dollars(medianValue)}`;
}

/** This award's share of the company's last-365-day award dollars including itself. */
function shareOf(input: EngineInput): number {
  return input.contract.value / (Math.max(input.trailing.totalValue, 0) + input.contract.value);
}

/** The share on a log scale: a 0.1 % award is noise, a 10 % award is news. */
function shareValue(input: EngineInput): number {
  if (input.trailing.count === 0 || input.contract.value <= 0) return NEUTRAL;
  return clamp01((Math.log10(shareOf(input)) - SHARE_FLOOR_LOG10) / -SHARE_FLOOR_LOG10);
}

function shareDetail(input: EngineInput): string {
  if (input.trailing.count === 0) return 'no trailing awards in the last 365 days; neutral';
  const share = input.contract.value > 0 ? shareOf(input) : 0;
  return `${(100 * share).toFixed(2)}% of $ awarded over ${input.trailing.count + 1} awards in 365 days`;
}

/** A run names a handful of agencies thousands of times each: the patterns are tried once per name. */
const AGENCY_CACHE_LIMIT = 10_000;
const agencyCache = new Map<string, readonly [number, string]>();

function agencyValueOf(agency: string): readonly [number, string] {
  const hit = agencyCache.get(agency);
  if (hit !== undefined) return hit;
  let found: readonly [number, string] = [OTHER_AGENCY_VALUE, 'other agency'];
  for (const [pattern, value, label] of AGENCY_VALUES) {
    if (pattern.test(agency)) {
      found = [value, label];
      break;
    }
  }
  if (agencyCache.size >= AGENCY_CACHE_LIMIT) agencyCache.clear();
  agencyCache.set(agency, found);
  return found;
}

function matchValue(confidence: number): number {
  return clamp01((confidence - MATCH_FLOOR) / (1 - MATCH_FLOOR));
}

function historyDepth(count: number): number {
  return Math.min(1, count / 10);
}

export function sumContributions(rows: readonly RationaleItem[]): number {
  return rows.reduce((sum, r) => sum + r.contribution, 0);
}

export function toScore(x: number): number {
  return Math.round(Math.min(100, Math.max(0, x)));
}

/** Whole dollars with thousands separators, as `toLocaleString('en-US')` writes them (which is slow). */
export function dollars(x: number): string {
  const n = Math.round(x);
  const plain = String(Math.abs(n));
  // Only plain digit strings are grouped: not exponent notation (≥ 1e21), NaN or Infinity.
  if (plain.length <= 3 || !/^\d+$/.test(plain)) return n < 0 ? `-${plain}` : plain;
  let digits = plain.slice(0, ((plain.length - 1) % 3) + 1);
  for (let i = digits.length; i < plain.length; i += 3) digits += `,${plain.slice(i, i + 3)}`;
  return n < 0 ? `-${digits}` : digits;
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

export function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
