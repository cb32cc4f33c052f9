/**
 * Event study: do signal scores carry information about the award's stock?
 *
 * For every scored contract: day 0 = the first trading day on or after the award date; the
 * window return over days 0..+h is adj_close(day h) / adj_close(day −1) − 1 (so day 0's own move
 * is in it), and the abnormal return is the ticker's window return minus the benchmark's over the
 * very same dates (market-adjusted model, no beta). Contracts are grouped by signal-score bucket.
 *
 * Nothing is filled in: a contract is priced only when the ticker and the benchmark both have a
 * candle on each of the window's trading days (the benchmark's calendar: day −1 … day h); anything
 * else is excluded and counted with its reason.
 */

import { lowerBound } from '../domain/trailing.ts';
import type { PricePoint, ScoredEvent } from '../store/evaluation.ts';
import { mean, sampleStd, tStatistic, welchT } from './stats.ts';

export type { PricePoint, ScoredEvent };

export interface ScoreBucket {
  label: string;
  min: number;
  max: number;
}

/** The default signal threshold (SIGNAL_THRESHOLD = 75) opens the top bucket. */
export const DEFAULT_BUCKETS: readonly ScoreBucket[] = [
  { label: '0–39', min: 0, max: 39 },
  { label: '40–59', min: 40, max: 59 },
  { label: '60–74', min: 60, max: 74 },
  { label: '75–100', min: 75, max: 100 },
];
export const DEFAULT_HORIZONS: readonly number[] = [5, 20];
export const DEFAULT_BENCHMARKS: readonly string[] = ['ITA', 'SPY'];

export type ExclusionReason =
  | 'no_ticker_candles'
  | 'before_ticker_history'
  | 'after_ticker_history'
  | 'ticker_gap'
  | 'no_benchmark_candles'
  | 'before_benchmark_history'
  | 'after_benchmark_history'
  | 'benchmark_gap';

export const EXCLUSION_TEXT: Readonly<Record<ExclusionReason, string>> = {
  no_ticker_candles: 'no candles for the ticker at all',
  before_ticker_history: 'no ticker candle before day 0 (award before its price history)',
  after_ticker_history: "window ends after the ticker's last candle",
  ticker_gap: "ticker candles missing on a trading day of the window (a gap in the ticker's series)",
  no_benchmark_candles: 'no candles for the benchmark',
  before_benchmark_history: "award before the benchmark's history",
  after_benchmark_history: "window ends after the benchmark's last candle",
  benchmark_gap: 'benchmark candles missing on a trading day of the window',
};

export type AbnormalReturn =
  | {
      ok: true;
      /** Day −1 (base), day 0 and day h. */
      base: string;
      day0: string;
      end: string;
      tickerReturn: number;
      benchmarkReturn: number;
      abnormal: number;
    }
  | { ok: false; reason: ExclusionReason };

/**
 * Abnormal return of `ticker` against `benchmark` over days 0..+horizon after `awardDate`.
 * The trading calendar is the benchmark's; the ticker must have a candle on each of its days.
 */
export function abnormalReturn(
  ticker: readonly PricePoint[],
  benchmark: readonly PricePoint[],
  awardDate: string,
  horizon: number,
): AbnormalReturn {
  if (!Number.isInteger(horizon) || horizon < 0) throw new RangeError(`horizon must be ≥ 0, got ${horizon}`);
  if (ticker.length === 0) return { ok: false, reason: 'no_ticker_candles' };
  if (benchmark.length === 0) return { ok: false, reason: 'no_benchmark_candles' };
  const i0 = lowerBound(ticker, awardDate);
  if (i0 === 0) return { ok: false, reason: 'before_ticker_history' };
  if (i0 + horizon >= ticker.length) return { ok: false, reason: 'after_ticker_history' };
  const j0 = lowerBound(benchmark, awardDate);
  if (j0 === 0) return { ok: false, reason: 'before_benchmark_history' };
  if (j0 + horizon >= benchmark.length) return { ok: false, reason: 'after_benchmark_history' };
  const bBase = benchmark[j0 - 1];
  const bEnd = benchmark[j0 + horizon];
  if (!bBase || !bEnd) return { ok: false, reason: 'benchmark_gap' };
  // Every benchmark trading day from day −1 to day h needs a ticker candle…
  for (let k = -1; k <= horizon; k++) {
    const date = benchmark[j0 + k]?.date ?? '';
    if (ticker[lowerBound(ticker, date)]?.date !== date) return { ok: false, reason: 'ticker_gap' };
  }
  // …and a ticker candle the benchmark lacks inside the window means the benchmark has a gap.
  const first = lowerBound(ticker, bBase.date);
  const last = lowerBound(ticker, bEnd.date);
  if (last - first !== horizon + 1) return { ok: false, reason: 'benchmark_gap' };
  const tBase = ticker[first];
  const tEnd = ticker[last];
  const day0 = ticker[first + 1];
  if (!tBase || !tEnd || !day0) return { ok: false, reason: 'ticker_gap' };
  const tickerReturn = tEnd.adjClose / tBase.adjClose - 1;
  const benchmarkReturn = bEnd.adjClose / bBase.adjClose - 1;
  return {
    ok: true,
    base: tBase.date,
    day0: day0.date,
    end: tEnd.date,
    tickerReturn,
    benchmarkReturn,
    abnormal: tickerReturn - benchmarkReturn,
  };
}

export interface GroupStats {
  label: string;
  /** Contracts priced. */
  n: number;
  /** Distinct (ticker, day 0) pairs: same-day awards of one company are one market event. */
  events: number;
  mean: number;
  median: number;
  std: number;
  /** mean / (std / √n) over contracts. */
  t: number;
  /** The same over (ticker, day 0) clusters, each the mean of its contracts. */
  tEvents: number;
  positiveShare: number;
}

export interface Panel {
  benchmark: string;
  horizon: number;
  groups: GroupStats[];
  all: GroupStats;
  /** Top bucket minus bottom bucket, with Welch's t over (ticker, day 0) clusters. */
  topMinusBottom: { diff: number; t: number } | null;
  priced: number;
  excluded: Partial<Record<ExclusionReason, number>>;
}

export interface EventRow {
  event: ScoredEvent;
  bucket: string;
  /** `${benchmark}:${horizon}` → result. */
  results: Map<string, AbnormalReturn>;
}

export interface EventStudyResult {
  contracts: number;
  buckets: readonly ScoreBucket[];
  horizons: readonly number[];
  benchmarks: readonly string[];
  panels: Panel[];
  rows: EventRow[];
}

export interface EventStudyOptions {
  buckets?: readonly ScoreBucket[];
  horizons?: readonly number[];
  benchmarks?: readonly string[];
}

export function bucketOf(score: number, buckets: readonly ScoreBucket[]): string {
  const b = buckets.find((x) => score >= x.min && score <= x.max);
  if (!b) throw new RangeError(`score ${score} is in no bucket`);
  return b.label;
}

export const panelKey = (benchmark: string, horizon: number): string => `${benchmark}:${horizon}`;

/** Prices every event against every benchmark and horizon, then aggregates by bucket. */
export function runEventStudy(
  events: readonly ScoredEvent[],
  candles: ReadonlyMap<string, readonly PricePoint[]>,
  options: EventStudyOptions = {},
): EventStudyResult {
  const buckets = options.buckets ?? DEFAULT_BUCKETS;
  const horizons = options.horizons ?? DEFAULT_HORIZONS;
  const benchmarks = options.benchmarks ?? DEFAULT_BENCHMARKS;
  const rows: EventRow[] = events.map((event) => {
    const results = new Map<string, AbnormalReturn>();
    const series = candles.get(event.ticker) ?? [];
    for (const benchmark of benchmarks) {
      for (const horizon of horizons) {
        results.set(
          panelKey(benchmark, horizon),
          abnormalReturn(series, candles.get(benchmark) ?? [], event.awardDate, horizon),
        );
      }
    }
    return { event, bucket: bucketOf(event.score, buckets), results };
  });
  const panels: Panel[] = [];
  for (const benchmark of benchmarks) {
    for (const horizon of horizons) panels.push(panelOf(rows, buckets, benchmark, horizon));
  }
  return { contracts: events.length, buckets, horizons, benchmarks, panels, rows };
}

interface Priced {
  ticker: string;
  day0: string;
  abnormal: number;
}

function panelOf(
  rows: readonly EventRow[],
  buckets: readonly ScoreBucket[],
  benchmark: string,
  horizon: number,
): Panel {
  const key = panelKey(benchmark, horizon);
  const excluded: Partial<Record<ExclusionReason, number>> = {};
  const byBucket = new Map<string, Priced[]>(buckets.map((b) => [b.label, []]));
  const everything: Priced[] = [];
  for (const row of rows) {
    const r = row.results.get(key);
    if (!r) continue;
    if (!r.ok) {
      excluded[r.reason] = (excluded[r.reason] ?? 0) + 1;
      continue;
    }
    const priced = { ticker: row.event.ticker, day0: r.day0, abnormal: r.abnormal };
    byBucket.get(row.bucket)?.push(priced);
    everything.push(priced);
  }
  const groups = buckets.map((b) => groupStats(b.label, byBucket.get(b.label) ?? []));
  const bottom = byBucket.get(buckets[0]?.label ?? '') ?? [];
  const top = byBucket.get(buckets[buckets.length - 1]?.label ?? '') ?? [];
  const topMinusBottom =
    top.length > 1 && bottom.length > 1
      ? {
          diff: mean(top.map((p) => p.abnormal)) - mean(bottom.map((p) => p.abnormal)),
          t: welchT(clusterMeans(top), clusterMeans(bottom)),
        }
      : null;
  return {
    benchmark,
    horizon,
    groups,
    all: groupStats('all', everything),
    topMinusBottom,
    priced: everything.length,
    excluded,
  };
}

/** Mean abnormal return per (ticker, day 0): one observation per market event. */
export function clusterMeans(priced: readonly Priced[]): number[] {
  const clusters = new Map<string, number[]>();
  for (const p of priced) {
    const k = `${p.ticker}\u0000${p.day0}`;
    const list = clusters.get(k);
    if (list) list.push(p.abnormal);
    else clusters.set(k, [p.abnormal]);
  }
  return [...clusters.values()].map((xs) => mean(xs));
}

function groupStats(label: string, priced: readonly Priced[]): GroupStats {
  const xs = priced.map((p) => p.abnormal);
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median =
    sorted.length === 0
      ? Number.NaN
      : sorted.length % 2
        ? (sorted[mid] ?? Number.NaN)
        : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  const clusters = clusterMeans(priced);
  return {
    label,
    n: xs.length,
    events: clusters.length,
    mean: mean(xs),
    median,
    std: sampleStd(xs),
    t: tStatistic(xs),
    tEvents: tStatistic(clusters),
    positiveShare: xs.length === 0 ? Number.NaN : xs.filter((x) => x > 0).length / xs.length,
  };
}
