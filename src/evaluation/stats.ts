/** Small descriptive statistics shared by the evaluation reports. */

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** Sample standard deviation (n − 1); NaN below two values. */
export function sampleStd(xs: readonly number[]): number {
  if (xs.length < 2) return Number.NaN;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return Math.sqrt(ss / (xs.length - 1));
}

/** One-sample t-statistic of the mean against 0: mean / (std / √n); NaN when undefined. */
export function tStatistic(xs: readonly number[]): number {
  const s = sampleStd(xs);
  if (!(s > 0)) return Number.NaN;
  return mean(xs) / (s / Math.sqrt(xs.length));
}

/** Welch's t-statistic for mean(a) − mean(b). */
export function welchT(a: readonly number[], b: readonly number[]): number {
  const va = sampleStd(a) ** 2 / a.length;
  const vb = sampleStd(b) ** 2 / b.length;
  const se = Math.sqrt(va + vb);
  if (!(se > 0)) return Number.NaN;
  return (mean(a) - mean(b)) / se;
}

/** Quantile with linear interpolation between order statistics (type 7, as R and NumPy default). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[hi] ?? Number.NaN;
  return a + (b - a) * (pos - lo);
}

export interface Distribution {
  n: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  /** Quantiles 0, 0.1, …, 1. */
  deciles: number[];
  /** Counts in [0,10), [10,20), …, [90,100]; 100 falls in the last bucket. */
  buckets: number[];
  /** Distinct values taken. */
  distinct: number;
}

export function scoreDistribution(scores: readonly number[]): Distribution {
  const sorted = [...scores].sort((a, b) => a - b);
  const buckets = Array.from({ length: 10 }, () => 0);
  for (const s of sorted) {
    const i = Math.min(9, Math.max(0, Math.floor(s / 10)));
    buckets[i] = (buckets[i] ?? 0) + 1;
  }
  return {
    n: sorted.length,
    mean: mean(sorted),
    std: sampleStd(sorted),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    deciles: Array.from({ length: 11 }, (_, i) => quantile(sorted, i / 10)),
    buckets,
    distinct: new Set(sorted).size,
  };
}
