/**
 * Announcement study: do scores computed when a contract is announced carry information about the
 * stock's move after the announcement?
 *
 * Timing. The Department of Defense posts its daily "Contracts for <date>" page at about 17:00 New
 * York time, after the close. The last price before the news is therefore the close of the
 * announcement date when that is a trading day (in the benchmark's calendar), else the close of the
 * last trading day before it: that close is day 0. A window from day a to day b is the return from
 * close(day a) to close(day b); the post-announcement windows start at day 0, so day 0's own move
 * (made before the news) is not in them, and the pre-event window −1 → 0 ends at the last close before
 * the news: a move there means the news leaked or the timing is wrong.
 *
 * Abnormal returns, per benchmark:
 * - market-adjusted: AR = R_i − R_b, both compounded over the same dates;
 * - market model: AR = R_i − (h·α + β·R_b), h = the window's trading days, α and β from OLS of the
 *   ticker's daily returns on the benchmark's over an estimation window of 250 trading days ending
 *   20 trading days before day 0 (days −269 … −20: clear of the pre-event and event windows). The
 *   expected return is linear in the window's benchmark return so that α = 0, β = 1 gives exactly the
 *   market-adjusted AR; it is exact for one day and differs from compounding α + β·r_b day by day by
 *   second-order terms (to leading order β(β−1)/2 · (R_b² − Σ r_b²), r_b the daily returns).
 *
 * Nothing is filled in: a window is priced only when the ticker and the benchmark both have a candle
 * on each of its trading days (the rules of `abnormalReturn`, which prices every window here), and a
 * market-model AR also needs 120 valid daily returns in the estimation window; anything else is
 * excluded and counted with its reason.
 *
 * Inference is clustered by day 0: every event of one date shares that date's market and sector
 * shocks (and several contracts of one company on one page have the very same return), so events of
 * one date are not independent observations. Clustering by day 0 rather than by the page's date puts
 * a holiday's page with the previous trading day's, since both have the very same windows.
 */

import { lowerBound } from '../domain/trailing.ts';
import { abnormalReturn, EXCLUSION_TEXT, type ExclusionReason, type PricePoint } from './event-study.ts';
import {
  type Clustered,
  type ClusteredEstimate,
  clusteredDifference,
  clusteredMean,
  olsLine,
  quantile,
} from './stats.ts';

export interface AnnouncementEvent {
  id: string;
  ticker: string;
  /** The date of the "Contracts for <date>" page, YYYY-MM-DD. */
  date: string;
  score: number;
  /** Award kind, a categorical key for grouping. */
  kind: string;
  /** A size measure such as amount / the company's trailing-year total; null when undefined. */
  relativeSize: number | null;
}

/** From close(day `from`) to close(day `to`), in trading days relative to day 0. */
export interface EventWindow {
  label: string;
  from: number;
  to: number;
}

export const ANNOUNCEMENT_WINDOWS: readonly EventWindow[] = [
  { label: '−1→0', from: -1, to: 0 },
  { label: '0→+1', from: 0, to: 1 },
  { label: '0→+5', from: 0, to: 5 },
  { label: '0→+20', from: 0, to: 20 },
];

export type ReturnModel = 'adjusted' | 'market';

/** A benchmark ticker and how the expected return is taken from it. */
export interface BenchmarkSpec {
  ticker: string;
  model: ReturnModel;
}

/** Sector ETFs market-adjusted; the market model against the broad market. */
export const ANNOUNCEMENT_BENCHMARKS: readonly BenchmarkSpec[] = [
  { ticker: 'XAR', model: 'adjusted' },
  { ticker: 'ITA', model: 'adjusted' },
  { ticker: 'SPY', model: 'adjusted' },
  { ticker: 'SPY', model: 'market' },
];

export const benchmarkLabel = (b: BenchmarkSpec): string =>
  `${b.ticker} ${b.model === 'adjusted' ? 'market-adjusted' : 'market model'}`;

/** Estimation window of the market model, in trading days of the benchmark's calendar. */
export interface EstimationSpec {
  /** Daily returns in the window. */
  length: number;
  /** The window's last return is that of day −gap. */
  gap: number;
  /** Fewer valid daily returns than this exclude the event. */
  minDays: number;
}

export const MARKET_MODEL_ESTIMATION: EstimationSpec = { length: 250, gap: 20, minDays: 120 };

export type AnnouncementExclusion = ExclusionReason | 'short_estimation_window' | 'flat_estimation_benchmark';

export const ANNOUNCEMENT_EXCLUSION_TEXT: Readonly<Record<AnnouncementExclusion, string>> = {
  ...EXCLUSION_TEXT,
  before_ticker_history: 'no ticker candle at the start of the window',
  before_benchmark_history: "window starts before the benchmark's history",
  after_benchmark_history:
    "window ends after the benchmark's last candle (or the announcement is after it, so day 0 is unknown)",
  short_estimation_window: "too few valid daily returns in the market model's estimation window",
  flat_estimation_benchmark: "the benchmark does not move in the market model's estimation window",
};

// -------------------------------------------------------------------------------------------------
// Timing and returns

export type Day0 =
  | { ok: true; index: number; date: string }
  | { ok: false; reason: 'no_benchmark_candles' | 'before_benchmark_history' | 'after_benchmark_history' };

/**
 * Day 0 of an announcement in `calendar`: the announcement date if it is a trading day, else the
 * last trading day before it. An announcement after the calendar's last day has no day 0: a trading
 * day between that candle and the announcement cannot be ruled out.
 */
export function announcementDay0(calendar: readonly { date: string }[], announced: string): Day0 {
  if (calendar.length === 0) return { ok: false, reason: 'no_benchmark_candles' };
  const last = calendar[calendar.length - 1];
  if (!last || announced > last.date) return { ok: false, reason: 'after_benchmark_history' };
  const i = lowerBound(calendar, announced);
  const index = calendar[i]?.date === announced ? i : i - 1;
  const day = calendar[index];
  if (!day) return { ok: false, reason: 'before_benchmark_history' };
  return { ok: true, index, date: day.date };
}

export type WindowReturn =
  | {
      ok: true;
      /** Dates of close(day from) and close(day to). */
      start: string;
      end: string;
      /** Trading days from start to end. */
      days: number;
      tickerReturn: number;
      benchmarkReturn: number;
    }
  | { ok: false; reason: ExclusionReason };

/**
 * Returns of the ticker and the benchmark from close(day0 + from) to close(day0 + to), `day0` an
 * index in `benchmark` (its calendar). The pricing is `abnormalReturn`'s: its day −1 is our start,
 * so it is called with the trading day after the start and a horizon of the window's length − 1.
 */
export function windowReturn(
  ticker: readonly PricePoint[],
  benchmark: readonly PricePoint[],
  day0: number,
  window: EventWindow,
): WindowReturn {
  const { from, to } = window;
  if (!Number.isInteger(from) || !Number.isInteger(to) || to <= from) {
    throw new RangeError(`window ${window.label} must run forward over whole days, got ${from} → ${to}`);
  }
  const start = day0 + from;
  if (start < 0) return { ok: false, reason: 'before_benchmark_history' };
  const next = benchmark[start + 1];
  if (!next) return { ok: false, reason: 'after_benchmark_history' };
  const r = abnormalReturn(ticker, benchmark, next.date, to - from - 1);
  if (!r.ok) return r;
  return {
    ok: true,
    start: r.base,
    end: r.end,
    days: to - from,
    tickerReturn: r.tickerReturn,
    benchmarkReturn: r.benchmarkReturn,
  };
}

export type MarketModelFit =
  | {
      ok: true;
      alpha: number;
      beta: number;
      /** Valid daily returns used, and the dates of the first and last return days of the window. */
      days: number;
      from: string;
      to: string;
    }
  | { ok: false; reason: 'short_estimation_window' | 'flat_estimation_benchmark' };

/**
 * α and β of r_ticker = α + β·r_benchmark by OLS on daily returns over days
 * −(gap + length − 1) … −gap (the window is cut at the benchmark's first candle). A day's return is
 * valid when the ticker has a candle on that trading day and on the one before it: a return across a
 * missing candle would span two days and is left out, not spread.
 */
export function estimateMarketModel(
  ticker: readonly PricePoint[],
  benchmark: readonly PricePoint[],
  day0: number,
  spec: EstimationSpec = MARKET_MODEL_ESTIMATION,
): MarketModelFit {
  const last = day0 - spec.gap;
  const first = Math.max(1, last - spec.length + 1);
  const x: number[] = [];
  const y: number[] = [];
  // One pass over the ticker's candles alongside the calendar: the ticker's close on each day, if any.
  let k = lowerBound(ticker, benchmark[first - 1]?.date ?? '');
  let previous: number | undefined;
  for (let t = first - 1; t <= last; t++) {
    const day = benchmark[t];
    if (!day) break;
    while ((ticker[k]?.date ?? '\uffff') < day.date) k++;
    const candle = ticker[k];
    const close = candle?.date === day.date && candle.adjClose > 0 ? candle.adjClose : undefined;
    const before = benchmark[t - 1];
    if (t >= first && close !== undefined && previous !== undefined && before && before.adjClose > 0) {
      x.push(day.adjClose / before.adjClose - 1);
      y.push(close / previous - 1);
    }
    previous = close;
  }
  if (x.length < spec.minDays) return { ok: false, reason: 'short_estimation_window' };
  const line = olsLine(x, y);
  if (!line) return { ok: false, reason: 'flat_estimation_benchmark' };
  return {
    ok: true,
    alpha: line.alpha,
    beta: line.beta,
    days: x.length,
    from: benchmark[first]?.date ?? '',
    to: benchmark[last]?.date ?? '',
  };
}

export type AnnouncementReturn =
  | {
      ok: true;
      day0: string;
      start: string;
      end: string;
      tickerReturn: number;
      benchmarkReturn: number;
      /** The model's expected return: R_b, or h·α + β·R_b. */
      expected: number;
      abnormal: number;
    }
  | { ok: false; reason: AnnouncementExclusion };

/** `${ticker}:${model}:${window label}` → result. */
export const resultKey = (benchmark: BenchmarkSpec, window: EventWindow): string =>
  `${benchmark.ticker}:${benchmark.model}:${window.label}`;

export interface AnnouncementRow {
  event: AnnouncementEvent;
  results: Map<string, AnnouncementReturn>;
}

/**
 * One event against every benchmark and window. `fits` caches market-model fits by ticker, benchmark
 * and day 0: contracts of one company on one page share them.
 */
export function priceAnnouncement(
  event: AnnouncementEvent,
  prices: ReadonlyMap<string, readonly PricePoint[]>,
  benchmarks: readonly BenchmarkSpec[],
  windows: readonly EventWindow[],
  estimation: EstimationSpec = MARKET_MODEL_ESTIMATION,
  fits: Map<string, MarketModelFit> = new Map(),
): AnnouncementRow {
  const results = new Map<string, AnnouncementReturn>();
  const series = prices.get(event.ticker) ?? [];
  for (const benchmark of benchmarks) {
    const calendar = prices.get(benchmark.ticker) ?? [];
    const day0 = announcementDay0(calendar, event.date);
    for (const window of windows) {
      const key = resultKey(benchmark, window);
      if (!day0.ok) {
        results.set(key, day0);
        continue;
      }
      const r = windowReturn(series, calendar, day0.index, window);
      if (!r.ok) {
        results.set(key, r);
        continue;
      }
      let expected = r.benchmarkReturn;
      if (benchmark.model === 'market') {
        const fitKey = `${event.ticker}\u0000${benchmark.ticker}\u0000${day0.date}`;
        let fit = fits.get(fitKey);
        if (!fit) {
          fit = estimateMarketModel(series, calendar, day0.index, estimation);
          fits.set(fitKey, fit);
        }
        if (!fit.ok) {
          results.set(key, fit);
          continue;
        }
        expected = r.days * fit.alpha + fit.beta * r.benchmarkReturn;
      }
      results.set(key, {
        ok: true,
        day0: day0.date,
        start: r.start,
        end: r.end,
        tickerReturn: r.tickerReturn,
        benchmarkReturn: r.benchmarkReturn,
        expected,
        abnormal: r.tickerReturn - expected,
      });
    }
  }
  return { event, results };
}

// -------------------------------------------------------------------------------------------------
// Groupings

export interface Grouping {
  name: string;
  labels: readonly string[];
  /** The event's group, or null when it has none (it then counts in "all" only). */
  groupOf: (event: AnnouncementEvent) => string | null;
  /** The two groups whose difference is tested, high minus low; null for unordered groups. */
  contrast: { top: string; bottom: string } | null;
  /** How the groups were formed, for the report (e.g. the cut points and where they came from). */
  note: string;
}

/** Quantiles (type 7) of `values` at `probabilities`, ascending: cut points for `bucketIndex`. */
export function cutPoints(values: readonly number[], probabilities: readonly number[]): number[] {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) throw new RangeError('no finite values to compute cut points on');
  return [...probabilities].sort((a, b) => a - b).map((p) => quantile(sorted, p));
}

/** Quartile cut points of `values` (25th, 50th, 75th percentiles). */
export function quartileCuts(values: readonly number[]): number[] {
  return cutPoints(values, [0.25, 0.5, 0.75]);
}

/**
 * Bucket of `value` among ascending `cuts`: 0 for value ≤ cuts[0], i for cuts[i−1] < value ≤ cuts[i],
 * cuts.length above the last cut; null for null or NaN. Ties at a cut go to the lower bucket, so with
 * integer scores and many ties the buckets can be uneven; they are never reshuffled to balance.
 */
export function bucketIndex(value: number | null, cuts: readonly number[]): number | null {
  if (value === null || Number.isNaN(value)) return null;
  let i = 0;
  while (i < cuts.length && value > (cuts[i] ?? Number.NaN)) i++;
  return i;
}

function checkCuts(cuts: readonly number[]): void {
  for (let i = 0; i < cuts.length; i++) {
    const c = cuts[i] ?? Number.NaN;
    if (!Number.isFinite(c) || (i > 0 && c < (cuts[i - 1] ?? Number.NaN))) {
      throw new RangeError(`cut points must be finite and ascending, got ${cuts.join(', ')}`);
    }
  }
}

const cutText = (x: number): string => String(Number(x.toPrecision(4)));

/** '≤ c0', '(c0, c1]', …, '> c_last'. */
export function rangeLabels(cuts: readonly number[]): string[] {
  checkCuts(cuts);
  if (cuts.length === 0) return ['all values'];
  const labels = [`≤ ${cutText(cuts[0] ?? 0)}`];
  for (let i = 1; i < cuts.length; i++) {
    labels.push(`(${cutText(cuts[i - 1] ?? 0)}, ${cutText(cuts[i] ?? 0)}]`);
  }
  labels.push(`> ${cutText(cuts[cuts.length - 1] ?? 0)}`);
  return labels;
}

/** Groups by a numeric value and fixed cut points; the contrast is the highest bucket minus the lowest. */
export function cutGrouping(
  name: string,
  cuts: readonly number[],
  measure: (event: AnnouncementEvent) => number | null,
  labels: readonly string[] = rangeLabels(cuts),
  note = `cut points ${cuts.map(cutText).join(', ')}`,
): Grouping {
  checkCuts(cuts);
  if (labels.length !== cuts.length + 1) {
    throw new RangeError(
      `${cuts.length} cut points make ${cuts.length + 1} groups, got ${labels.length} labels`,
    );
  }
  const bottom = labels[0] ?? '';
  const top = labels[labels.length - 1] ?? '';
  return {
    name,
    labels,
    groupOf: (event) => {
      const i = bucketIndex(measure(event), cuts);
      return i === null ? null : (labels[i] ?? null);
    },
    contrast: labels.length > 1 ? { top, bottom } : null,
    note,
  };
}

/**
 * Score quartiles Q1 … Q4 with cut points given, e.g. `quartileCuts` of an in-sample period's
 * scores applied unchanged out of sample, so the out-of-sample buckets are not fitted to its data.
 */
export function scoreQuartiles(cuts: readonly number[], source = 'the sample'): Grouping {
  if (cuts.length !== 3) throw new RangeError(`quartiles need 3 cut points, got ${cuts.length}`);
  return cutGrouping(
    'score quartile',
    cuts,
    (e) => e.score,
    ['Q1', 'Q2', 'Q3', 'Q4'],
    quartileNote(cuts, source),
  );
}

function quartileNote(cuts: readonly number[], source: string): string {
  const [q1, q2, q3] = cuts.map(cutText);
  return `Q1 ≤ ${q1} < Q2 ≤ ${q2} < Q3 ≤ ${q3} < Q4 (cut points from ${source})`;
}

/** Groups by relative size with given cut points; the contrast is the largest bucket minus the smallest. */
export function relativeSizeGrouping(cuts: readonly number[]): Grouping {
  return cutGrouping('relative size', cuts, (e) => e.relativeSize);
}

/** One group per award kind (sorted); no contrast, kinds have no order. */
export function kindGrouping(kinds: Iterable<string>): Grouping {
  const labels = [...new Set(kinds)].sort();
  const known = new Set(labels);
  return {
    name: 'award kind',
    labels,
    groupOf: (event) => (known.has(event.kind) ? event.kind : null),
    contrast: null,
    note: `${labels.length} kinds`,
  };
}

// -------------------------------------------------------------------------------------------------
// Aggregation

export interface GroupSummary {
  label: string;
  /** Events priced. */
  n: number;
  /** Distinct day-0 dates among them: the clusters. */
  dates: number;
  mean: number;
  /** Standard error and t clustered by day 0. */
  se: number;
  t: number;
}

export interface ContrastSummary {
  top: string;
  bottom: string;
  /** Events and dates in the two groups together. */
  n: number;
  dates: number;
  /** mean(top) − mean(bottom), its clustered standard error and t. */
  diff: number;
  se: number;
  t: number;
}

export interface GroupingSummary {
  name: string;
  note: string;
  groups: GroupSummary[];
  contrast: ContrastSummary | null;
  /** Priced events with no group in this grouping. */
  ungrouped: number;
}

export interface AnnouncementPanel {
  window: EventWindow;
  benchmark: BenchmarkSpec;
  priced: number;
  excluded: Partial<Record<AnnouncementExclusion, number>>;
  all: GroupSummary;
  groupings: GroupingSummary[];
}

export interface AnnouncementStudyOptions {
  windows?: readonly EventWindow[];
  benchmarks?: readonly BenchmarkSpec[];
  estimation?: EstimationSpec;
  /** Default: score quartiles with cut points from these events, and award kinds. */
  groupings?: readonly Grouping[];
}

export interface AnnouncementStudyResult {
  events: number;
  windows: readonly EventWindow[];
  benchmarks: readonly BenchmarkSpec[];
  estimation: EstimationSpec;
  groupings: readonly Grouping[];
  /** Window-major: every benchmark for the first window, then the next window. */
  panels: AnnouncementPanel[];
  rows: AnnouncementRow[];
}

/** Prices every event against every benchmark and window, then aggregates by group. */
export function runAnnouncementStudy(
  events: readonly AnnouncementEvent[],
  prices: ReadonlyMap<string, readonly PricePoint[]>,
  options: AnnouncementStudyOptions = {},
): AnnouncementStudyResult {
  const windows = options.windows ?? ANNOUNCEMENT_WINDOWS;
  const benchmarks = options.benchmarks ?? ANNOUNCEMENT_BENCHMARKS;
  const estimation = options.estimation ?? MARKET_MODEL_ESTIMATION;
  const groupings =
    options.groupings ??
    (events.length === 0
      ? []
      : [
          scoreQuartiles(quartileCuts(events.map((e) => e.score)), 'these events (in sample)'),
          kindGrouping(events.map((e) => e.kind)),
        ]);
  const fits = new Map<string, MarketModelFit>();
  const rows = events.map((e) => priceAnnouncement(e, prices, benchmarks, windows, estimation, fits));
  const panels: AnnouncementPanel[] = [];
  for (const window of windows) {
    for (const benchmark of benchmarks) panels.push(panelOf(rows, groupings, benchmark, window));
  }
  return { events: events.length, windows, benchmarks, estimation, groupings, panels, rows };
}

function panelOf(
  rows: readonly AnnouncementRow[],
  groupings: readonly Grouping[],
  benchmark: BenchmarkSpec,
  window: EventWindow,
): AnnouncementPanel {
  const key = resultKey(benchmark, window);
  const excluded: Partial<Record<AnnouncementExclusion, number>> = {};
  const priced: { event: AnnouncementEvent; value: Clustered }[] = [];
  for (const row of rows) {
    const r = row.results.get(key);
    if (!r) continue;
    if (!r.ok) excluded[r.reason] = (excluded[r.reason] ?? 0) + 1;
    else priced.push({ event: row.event, value: { value: r.abnormal, cluster: r.day0 } });
  }
  return {
    window,
    benchmark,
    priced: priced.length,
    excluded,
    all: groupSummary(
      'all',
      priced.map((p) => p.value),
    ),
    groupings: groupings.map((grouping) => {
      const byGroup = new Map<string, Clustered[]>(grouping.labels.map((l) => [l, []]));
      let ungrouped = 0;
      for (const p of priced) {
        const list = byGroup.get(grouping.groupOf(p.event) ?? '');
        if (list) list.push(p.value);
        else ungrouped++;
      }
      const c = grouping.contrast;
      return {
        name: grouping.name,
        note: grouping.note,
        groups: grouping.labels.map((l) => groupSummary(l, byGroup.get(l) ?? [])),
        contrast: c
          ? contrastSummary(c.top, c.bottom, byGroup.get(c.top) ?? [], byGroup.get(c.bottom) ?? [])
          : null,
        ungrouped,
      };
    }),
  };
}

function groupSummary(label: string, values: readonly Clustered[]): GroupSummary {
  const e: ClusteredEstimate = clusteredMean(values);
  return { label, n: e.n, dates: e.clusters, mean: e.estimate, se: e.se, t: e.t };
}

function contrastSummary(
  top: string,
  bottom: string,
  a: readonly Clustered[],
  b: readonly Clustered[],
): ContrastSummary {
  const e = clusteredDifference(a, b);
  return { top, bottom, n: e.n, dates: e.clusters, diff: e.estimate, se: e.se, t: e.t };
}
