/**
 * The prediction engine: at an event's `available_at`, from closes at or before it, the 5-trading-day
 * abnormal return of the event's ticker against SPY — a centre and an interval meant to hold the
 * realized value `level` of the time.
 *
 * Abnormal return = adj_close(ticker, day0 + h) / adj_close(ticker, day0) − the same ratio of the
 * benchmark, day0 the last trading day (the benchmark's calendar) whose 16:00 New York close is at or
 * before the moment the prediction is made, day0 + h the h-th trading day after it.
 *
 * The centre is 0: no rule of this project predicts the direction of the move (docs/EVALUATION.md,
 * "Announcements"), so the honest mean is none. The interval is where the evidence is: a stock's
 * volatility relative to the market persists, so its recent daily abnormal returns forecast how
 * wide the next five days' will be. scale = √h · √(w·σ²_short + (1 − w)·σ²_long), the σ's the root mean
 * square of daily abnormal returns over the last SHORT and LONG trading days up to day0; the interval is
 * [q_low · scale, q_high · scale], q the quantiles of realized / scale in the fit period. `w`, the
 * windows and the quantiles were fixed on 2014-08-01 → 2016-12-31 only (scripts/fit-prediction.ts).
 */
import { lowerBound } from './trailing.ts';

export interface PricePoint {
  date: string; // YYYY-MM-DD, ascending
  adjClose: number;
}

export const PREDICTION_MODEL = {
  name: 'abnormal-return-5d',
  version: '1.0.0',
  benchmark: 'SPY',
  horizonDays: 5,
  level: 0.8,
  /** Trading days of the short and long volatility windows, and the short one's weight. */
  short: 60,
  long: 250,
  weight: 0.75,
  /** The interval's unit is REF · (scale / REF)^power: power < 1 spends less width on volatile names. */
  power: 0.5,
  /** Fewest valid daily abnormal returns in the long window (the short one needs a quarter of its own). */
  minLong: 60,
  /** Quantiles of realized / scale in the fit period at (1 − level)/2 and (1 + level)/2. */
  qLow: -0.9087,
  qHigh: 1.1653,
  /** The fit period's realized quantiles themselves: the interval every event would get unconditionally. */
  unconditional: { low: -0.0243, high: 0.0325 },
  fit: { from: '2014-08-01', to: '2016-12-31' },
  test: { from: '2017-01-01', to: '2019-03-08' },
} as const;

export type PredictionModel = typeof PREDICTION_MODEL;

/** What the model reads: the tuning constants (a fit explores others). */
export type ModelParams = Record<
  'horizonDays' | 'short' | 'long' | 'weight' | 'power' | 'minLong' | 'qLow' | 'qHigh',
  number
>;

export interface Prediction {
  day0: string;
  expected: number;
  low: number;
  high: number;
  /** √h · σ, the forecast standard deviation. */
  scale: number;
  /** The interval's unit: REF · (scale / REF)^power. */
  unit: number;
}

export type PredictionResult =
  | ({ ok: true } & Prediction)
  | { ok: false; reason: 'calendar_not_known' | 'before_history' | 'no_close_on_day0' | 'short_history' };

const NEW_YORK = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** The New York date of `at`, and whether that day's 16:00 close is at or before it. */
export function newYorkDay(at: Date): { date: string; afterClose: boolean } {
  const parts = Object.fromEntries(NEW_YORK.formatToParts(at).map((p) => [p.type, p.value]));
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    afterClose: Number(parts.hour) >= 16,
  };
}

/**
 * Index in `calendar` of day 0 for a prediction made at `at`; null when the calendar does not yet reach
 * that New York date (a trading day's candle may still be missing) or starts after it.
 */
export function day0Index(calendar: readonly { date: string }[], at: Date): number | null {
  const { date, afterClose } = newYorkDay(at);
  const last = calendar[calendar.length - 1];
  if (!last || last.date < date) return null;
  const i = lowerBound(calendar, date);
  const index = afterClose && calendar[i]?.date === date ? i : i - 1;
  return index >= 0 ? index : null;
}

/** The ticker's adjusted close on each calendar day from `from` to `to` (undefined where it has none). */
function alignedCloses(
  ticker: readonly PricePoint[],
  calendar: readonly PricePoint[],
  from: number,
  to: number,
): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  let k = lowerBound(ticker, calendar[from]?.date ?? '');
  for (let t = from; t <= to; t++) {
    const day = calendar[t]?.date ?? '';
    while ((ticker[k]?.date ?? '\uffff') < day) k++;
    const candle = ticker[k];
    out.push(candle?.date === day && candle.adjClose > 0 ? candle.adjClose : undefined);
  }
  return out;
}

/** Daily abnormal returns (ticker − benchmark) of the `count` days ending at `end`, where both days have closes. */
export function dailyAbnormal(
  ticker: readonly PricePoint[],
  calendar: readonly PricePoint[],
  end: number,
  count: number,
): number[] {
  const from = Math.max(0, end - count);
  const closes = alignedCloses(ticker, calendar, from, end);
  const out: number[] = [];
  for (let t = from + 1; t <= end; t++) {
    const a = closes[t - from - 1];
    const b = closes[t - from];
    const m0 = calendar[t - 1]?.adjClose ?? 0;
    const m1 = calendar[t]?.adjClose ?? 0;
    if (a !== undefined && b !== undefined && m0 > 0 && m1 > 0) out.push(b / a - m1 / m0);
  }
  return out;
}

/** A typical 5-day scale (3 %): the unit where (scale / REF)^power leaves the scale as it is. */
export const REF_SCALE = 0.03;

const rms = (xs: readonly number[]): number => Math.sqrt(xs.reduce((s, x) => s + x * x, 0) / xs.length);

/** The prediction made at day0 index `t` of `calendar` (the benchmark's series). */
export function predictAt(
  ticker: readonly PricePoint[],
  calendar: readonly PricePoint[],
  t: number,
  params: ModelParams = PREDICTION_MODEL,
): PredictionResult {
  const day0 = calendar[t];
  if (!day0) return { ok: false, reason: 'before_history' };
  const onDay0 = ticker[lowerBound(ticker, day0.date)];
  if (onDay0?.date !== day0.date) return { ok: false, reason: 'no_close_on_day0' };
  const long = dailyAbnormal(ticker, calendar, t, params.long);
  const short = long.slice(-params.short);
  if (long.length < params.minLong || short.length < params.short / 4) {
    return { ok: false, reason: 'short_history' };
  }
  const variance = params.weight * rms(short) ** 2 + (1 - params.weight) * rms(long) ** 2;
  const scale = Math.sqrt(params.horizonDays * variance);
  const unit = REF_SCALE * (scale / REF_SCALE) ** params.power;
  return {
    ok: true,
    day0: day0.date,
    expected: 0,
    low: params.qLow * unit,
    high: params.qHigh * unit,
    scale,
    unit,
  };
}

/** The prediction made at `at` (an event's `available_at`). */
export function predict(
  ticker: readonly PricePoint[],
  calendar: readonly PricePoint[],
  at: Date,
  params: ModelParams = PREDICTION_MODEL,
): PredictionResult {
  const t = day0Index(calendar, at);
  if (t === null) {
    const first = calendar[0];
    return first && newYorkDay(at).date < first.date
      ? { ok: false, reason: 'before_history' }
      : { ok: false, reason: 'calendar_not_known' };
  }
  return predictAt(ticker, calendar, t, params);
}

/** The realized abnormal return from day0 index `t` over `h` trading days; null when not (yet) priced. */
export function realizedAt(
  ticker: readonly PricePoint[],
  calendar: readonly PricePoint[],
  t: number,
  h: number,
): number | null {
  const end = calendar[t + h];
  const start = calendar[t];
  if (!start || !end) return null;
  const [a, b] = [ticker[lowerBound(ticker, start.date)], ticker[lowerBound(ticker, end.date)]];
  if (a?.date !== start.date || b?.date !== end.date || !(a.adjClose > 0)) return null;
  return b.adjClose / a.adjClose - end.adjClose / start.adjClose;
}
