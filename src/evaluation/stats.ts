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

/** Least-squares line y = alpha + beta·x; null below two points or when x does not vary. */
export function olsLine(x: readonly number[], y: readonly number[]): { alpha: number; beta: number } | null {
  if (x.length !== y.length) throw new RangeError(`x has ${x.length} values, y has ${y.length}`);
  if (x.length < 2) return null;
  const mx = mean(x);
  const my = mean(y);
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < x.length; i++) {
    const dx = (x[i] ?? 0) - mx;
    sxx += dx * dx;
    sxy += dx * ((y[i] ?? 0) - my);
  }
  if (!(sxx > 0)) return null;
  const beta = sxy / sxx;
  return { alpha: my - beta * mx, beta };
}

/** A value and the cluster (e.g. the date) whose shocks it shares with the other members. */
export interface Clustered {
  value: number;
  cluster: string;
}

export interface ClusteredEstimate {
  estimate: number;
  /** Cluster-robust standard error; NaN below two clusters. */
  se: number;
  /** estimate / se; NaN when se is not positive. */
  t: number;
  n: number;
  clusters: number;
}

/**
 * Cluster-robust variance G/(G−1) · Σ_g c_g², where c_g sums weight · (value − center) over the
 * members of cluster g across all `parts`. Both estimators below are linear in the values, so this
 * one sum is their sandwich variance (with only the G/(G−1) small-sample factor, no (n−1)/(n−k)).
 */
function clusteredVariance(
  parts: readonly { values: readonly Clustered[]; center: number; weight: number }[],
): { variance: number; clusters: number } {
  const sums = new Map<string, number>();
  for (const { values, center, weight } of parts) {
    for (const v of values) sums.set(v.cluster, (sums.get(v.cluster) ?? 0) + weight * (v.value - center));
  }
  const g = sums.size;
  if (g < 2) return { variance: Number.NaN, clusters: g };
  let ss = 0;
  for (const c of sums.values()) ss += c * c;
  return { variance: (g / (g - 1)) * ss, clusters: g };
}

function estimateOf(estimate: number, variance: number, n: number, clusters: number): ClusteredEstimate {
  const se = Math.sqrt(variance);
  return { estimate, se, t: se > 0 ? estimate / se : Number.NaN, n, clusters };
}

/**
 * Mean with a cluster-robust standard error (OLS on a constant, clustered):
 *
 *   x̄ = Σ x_i / n,   V(x̄) = G/(G−1) · Σ_g (Σ_{i∈g} (x_i − x̄))² / n²,   t = x̄ / √V
 *
 * Members of one cluster that move together add their residuals before squaring, so ten events on
 * one day with one market shock weigh about as one observation, not ten. With every value its own
 * cluster V = s²/n and t is the ordinary `tStatistic`.
 */
export function clusteredMean(values: readonly Clustered[]): ClusteredEstimate {
  const n = values.length;
  const m = mean(values.map((v) => v.value));
  const { variance, clusters } = clusteredVariance([{ values, center: m, weight: 1 / n }]);
  return estimateOf(m, variance, n, clusters);
}

/**
 * mean(a) − mean(b) with a cluster-robust standard error: the slope of OLS of the value on
 * [1, D] (D = 1 for members of `a`) over a ∪ b, with the clustered sandwich
 * V = G/(G−1) · (X'X)⁻¹ (Σ_g X_g'e_g e_g'X_g) (X'X)⁻¹. The slope's row of (X'X)⁻¹ is
 * [−n_a, n] / (n_a·n_b) and cluster g's score X_g'e_g is [S_ag + S_bg, S_ag], where S_ag sums
 * (x − mean(a)) over a's members in g and S_bg sums (x − mean(b)) over b's; so the sandwich reduces to
 *
 *   V = G/(G−1) · Σ_g (S_ag/n_a − S_bg/n_b)²,   G = clusters in a ∪ b.
 *
 * A cluster with members in both groups enters once, and a shock common to it cancels in the
 * difference instead of being counted in both groups' variances.
 */
export function clusteredDifference(a: readonly Clustered[], b: readonly Clustered[]): ClusteredEstimate {
  const ma = mean(a.map((v) => v.value));
  const mb = mean(b.map((v) => v.value));
  const { variance, clusters } = clusteredVariance([
    { values: a, center: ma, weight: 1 / a.length },
    { values: b, center: mb, weight: -1 / b.length },
  ]);
  return estimateOf(ma - mb, variance, a.length + b.length, clusters);
}
