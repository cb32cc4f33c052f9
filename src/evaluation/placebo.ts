/**
 * Placebo discipline: a study's top − bottom contrast beside the same study with every event's date
 * moved by k trading days (k = ±6 … ±60), where no news can be. If the real dates do not beat nearly all
 * of the moved ones, the contrast is which events (which companies, which seasons) were sorted into the
 * groups, not what happened on their dates. Also the contrast within companies (each event's abnormal
 * return minus its company's mean over the sample), since a size measure can sort companies rather than
 * news. t is clustered by the (real or moved) date: events of one date share its market.
 *
 * A rule counts as evidence only when the real contrast beats at least 95 % of its placebos AND its
 * clustered t is at least 2.5 on the period it is judged on (out of sample); anything else is reported
 * as "no evidence", in those words.
 */
import { type Clustered, clusteredDifference } from './stats.ts';

export interface PlaceboUnit {
  ticker: string;
  /** Index of the event's day 0 in the study's trading calendar. */
  day0: number;
  group: 'top' | 'bottom';
}

/** The abnormal return of a unit with day 0 at calendar index `day0`; null when that window is not priced. */
export type Pricer = (unit: PlaceboUnit, day0: number) => number | null;

/** ±6, ±9, … ±60 trading days: 38 placebos, none overlapping the real 0→+5 window. */
export const PLACEBO_SHIFTS: readonly number[] = Array.from({ length: 19 }, (_, i) => 6 + 3 * i).flatMap(
  (k) => [-k, k],
);

/** The bar: beats this share of placebos, with this clustered t (the real dates, out of sample). */
export const EVIDENCE_BAR = { percentile: 0.95, t: 2.5 } as const;

export interface Contrast {
  diff: number | null;
  t: number | null;
  n: number;
  dates: number;
}

export interface PlaceboSummary {
  real: Contrast;
  /** Within companies: each abnormal return minus its ticker's mean over the priced units. */
  demeaned: Contrast;
  placebos: { shift: number; diff: number | null; t: number | null }[];
  /** Share of placebos whose contrast is below the real one (0–1), and the same within companies. */
  percentile: number | null;
  demeanedPercentile: number | null;
  placeboMean: number | null;
  placeboSd: number | null;
  /** Placebos with |t| ≥ 2: how often chance alone reaches "significance" here. */
  placebosAbsTOver2: number;
  evidence: boolean;
  /** The verdict in words, for reports and the Evidence page. */
  verdict: string;
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

interface Priced {
  unit: PlaceboUnit;
  value: number;
  cluster: string;
}

function priceAll(units: readonly PlaceboUnit[], shift: number, price: Pricer): Priced[] {
  const out: Priced[] = [];
  for (const unit of units) {
    const day0 = unit.day0 + shift;
    const value = price(unit, day0);
    if (value !== null && Number.isFinite(value)) out.push({ unit, value, cluster: String(day0) });
  }
  return out;
}

function contrast(priced: readonly Priced[]): Contrast {
  const side = (g: PlaceboUnit['group']): Clustered[] =>
    priced.filter((p) => p.unit.group === g).map((p) => ({ value: p.value, cluster: p.cluster }));
  const top = side('top');
  const bottom = side('bottom');
  if (top.length === 0 || bottom.length === 0) return { diff: null, t: null, n: priced.length, dates: 0 };
  const e = clusteredDifference(top, bottom);
  return { diff: finite(e.estimate), t: finite(e.t), n: e.n, dates: e.clusters };
}

/** Each value minus its ticker's mean over `priced`. */
function demean(priced: readonly Priced[]): Priced[] {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const p of priced) {
    const s = sums.get(p.unit.ticker) ?? { sum: 0, n: 0 };
    s.sum += p.value;
    s.n += 1;
    sums.set(p.unit.ticker, s);
  }
  return priced.map((p) => {
    const s = sums.get(p.unit.ticker) as { sum: number; n: number };
    return { ...p, value: p.value - s.sum / s.n };
  });
}

const below = (xs: readonly (number | null)[], x: number | null): number | null => {
  const known = xs.filter((v): v is number => v !== null);
  if (x === null || known.length === 0) return null;
  return known.filter((v) => v < x).length / known.length;
};

/** The real contrast, its within-company version and the shifted-date placebos of both, and the verdict. */
export function placeboTest(
  units: readonly PlaceboUnit[],
  price: Pricer,
  shifts: readonly number[] = PLACEBO_SHIFTS,
): PlaceboSummary {
  const realPriced = priceAll(units, 0, price);
  const real = contrast(realPriced);
  const demeaned = contrast(demean(realPriced));
  const placebos: PlaceboSummary['placebos'] = [];
  const demeanedDiffs: (number | null)[] = [];
  for (const shift of shifts) {
    const priced = priceAll(units, shift, price);
    const c = contrast(priced);
    placebos.push({ shift, diff: c.diff, t: c.t });
    demeanedDiffs.push(contrast(demean(priced)).diff);
  }
  const diffs = placebos.map((p) => p.diff).filter((d): d is number => d !== null);
  const mean = diffs.length ? diffs.reduce((s, d) => s + d, 0) / diffs.length : null;
  const sd =
    diffs.length > 1 && mean !== null
      ? Math.sqrt(diffs.reduce((s, d) => s + (d - mean) ** 2, 0) / (diffs.length - 1))
      : null;
  const percentile = below(
    placebos.map((p) => p.diff),
    real.diff,
  );
  const evidence =
    percentile !== null && percentile >= EVIDENCE_BAR.percentile && (real.t ?? 0) >= EVIDENCE_BAR.t;
  return {
    real,
    demeaned,
    placebos,
    percentile,
    demeanedPercentile: below(demeanedDiffs, demeaned.diff),
    placeboMean: mean,
    placeboSd: sd,
    placebosAbsTOver2: placebos.filter((p) => p.t !== null && Math.abs(p.t) >= 2).length,
    evidence,
    verdict: verdictText(real, percentile, placebos.length, evidence),
  };
}

const pct = (x: number | null, digits = 2): string =>
  x === null ? 'n/a' : `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(digits)} %`;

function verdictText(real: Contrast, percentile: number | null, count: number, evidence: boolean): string {
  const where =
    percentile === null
      ? 'not comparable to its placebos'
      : `above ${Math.round(100 * percentile)} % of ${count} placebos`;
  const t = real.t === null ? 'n/a' : real.t.toFixed(2).replace('-', '−');
  const figures = `top − bottom ${pct(real.diff)} (t ${t}), ${where}`;
  return evidence
    ? `Evidence: ${figures}; it clears both bars (≥ 95 % of placebos, t ≥ 2.5).`
    : `No evidence: ${figures}; the bar is beating ≥ 95 % of shifted-date placebos and t ≥ 2.5.`;
}
