/** How much an award still matters as it ages: exponential decay with a configurable half-life. */

export interface DecayInput {
  signalScore: number;
  awardDate: string;
  now: Date;
  halfLifeDays?: number;
}

export interface DecayResult {
  model: 'exponential';
  half_life_days: number;
  age_days: number;
  strength: number;
  effective_score: number;
}

export const DEFAULT_HALF_LIFE_DAYS = 30;
const MS_PER_DAY = 86_400_000;

export function decay(input: DecayInput): DecayResult {
  const halfLife = input.halfLifeDays ?? DEFAULT_HALF_LIFE_DAYS;
  const age = ageInDays(input.awardDate, input.now);
  const strength = Math.round(0.5 ** (age / halfLife) * 10_000) / 10_000;
  return {
    model: 'exponential',
    half_life_days: halfLife,
    age_days: age,
    strength,
    effective_score: Math.round(input.signalScore * strength),
  };
}

/** Whole UTC days since the award date; a future-dated award counts as brand new, not negative. */
function ageInDays(awardDate: string, now: Date): number {
  const award = Date.parse(`${awardDate.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(award)) return 0;
  return Math.max(0, Math.floor((now.getTime() - award) / MS_PER_DAY));
}
