import { type Candle, REGIME_NAMES, type RegimeName, type RegimeResult } from './types.ts';

/** Bump whenever features or logits change: stored regimes are tagged with it. */
export const REGIME_VERSION = 'regime-1';

export interface RegimeInput {
  asOf: string;
  spy: Candle[];
  xli: Candle[];
  ita: Candle[];
}

const TRADING_DAYS_PER_YEAR = 252;
const MIN_SPY_CANDLES = 200;

export function sma(values: number[], n: number): number | null {
  if (n <= 0 || values.length < n) return null;
  let sum = 0;
  for (let i = values.length - n; i < values.length; i++) sum += values[i] ?? 0;
  return sum / n;
}

/** Annualized standard deviation (sample, n-1) of the last n daily log returns. */
export function realizedVol(closes: number[], n: number): number | null {
  if (n < 2 || closes.length < n + 1) return null;
  const returns: number[] = [];
  for (let i = closes.length - n; i < closes.length; i++) {
    returns.push(Math.log((closes[i] ?? 0) / (closes[i - 1] ?? 1)));
  }
  const mean = returns.reduce((a, b) => a + b, 0) / n;
  const variance = returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1);
  return Math.sqrt(variance * TRADING_DAYS_PER_YEAR);
}

export function computeRegime(input: RegimeInput): RegimeResult | null {
  const spy = closesUpTo(input.spy, input.asOf);
  if (spy.closes.length < MIN_SPY_CANDLES) return null;
  const features = regimeFeatures(
    spy.closes,
    closesUpTo(input.xli, input.asOf).closes,
    closesUpTo(input.ita, input.asOf).closes,
  );
  const scores = softmax(regimeLogits(features));
  return {
    asOf: spy.lastDate,
    benchmark: 'SPY',
    dominant: dominantOf(scores),
    scores,
    features,
    version: REGIME_VERSION,
  };
}

/**
 * The features read at most the last 273 closes (a year of 20-day volatility windows) and need 200;
 * closes further back cannot change a regime, so at most this many are taken.
 */
const LOOKBACK_CLOSES = 400;

/**
 * Calendar days of candles before a date that hold at least LOOKBACK_CLOSES trading days (400 are
 * about 580 calendar days): a regime computed from this window equals one computed from the whole series.
 */
export const REGIME_LOOKBACK_DAYS = 800;

/**
 * Dates and adjusted closes of a series, taken out once per candle array when it is in strictly
 * ascending date order (null when it is not). Regimes are computed for thousands of award dates
 * against the same three arrays; reading two flat arrays instead of the candle objects made that
 * 4× faster on candles loaded from the database.
 */
const seriesOf = new WeakMap<readonly Candle[], { dates: string[]; closes: number[] } | null>();

function ascendingSeries(candles: readonly Candle[]): { dates: string[]; closes: number[] } | null {
  const dates: string[] = [];
  const closes: number[] = [];
  for (const [i, candle] of candles.entries()) {
    if (i > 0 && candle.date <= (dates[i - 1] as string)) return null;
    dates.push(candle.date);
    closes.push(candle.adjClose);
  }
  return { dates, closes };
}

/** Callers promise ascending candles, but the no-look-ahead rule is checked here, not trusted. */
function closesUpTo(candles: readonly Candle[], asOf: string): { closes: number[]; lastDate: string } {
  let series = seriesOf.get(candles);
  if (series === undefined) {
    series = ascendingSeries(candles);
    seriesOf.set(candles, series);
  }
  if (series === null) return closesUpToUnsorted(candles, asOf);
  const { dates } = series;
  // First index dated after asOf: everything before it is on or before asOf.
  let lo = 0;
  let hi = dates.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((dates[mid] as string) <= asOf) lo = mid + 1;
    else hi = mid;
  }
  return {
    closes: series.closes.slice(Math.max(0, lo - LOOKBACK_CLOSES), lo),
    lastDate: dates[lo - 1] ?? asOf,
  };
}

function closesUpToUnsorted(
  candles: readonly Candle[],
  asOf: string,
): { closes: number[]; lastDate: string } {
  const kept = candles.filter((c) => c.date <= asOf).sort((a, b) => (a.date < b.date ? -1 : 1));
  return {
    closes: kept.slice(-LOOKBACK_CLOSES).map((c) => c.adjClose),
    lastDate: kept[kept.length - 1]?.date ?? asOf,
  };
}

function periodReturn(closes: readonly number[], n: number): number | null {
  const last = closes[closes.length - 1];
  const base = closes[closes.length - 1 - n];
  if (last === undefined || base === undefined || base === 0) return null;
  return last / base - 1;
}

export function regimeFeatures(spy: number[], xli: number[], ita: number[]): Record<string, number> {
  const sma50 = sma(spy, 50) ?? 0;
  const sma200 = sma(spy, 200) ?? 0;
  const spyRet60 = periodReturn(spy, 60) ?? 0;
  const vol20 = realizedVol(spy, 20) ?? 0;
  return {
    spy_sma50: round6(sma50),
    spy_sma200: round6(sma200),
    trend: round6(sma200 === 0 ? 0 : sma50 / sma200 - 1),
    ret_20d: round6(periodReturn(spy, 20) ?? 0),
    ret_60d: round6(spyRet60),
    vol_20d: round6(vol20),
    vol_pct_1y: round6(volPercentile(spy, vol20)),
    drawdown: round6(drawdown(spy)),
    xli_rel_60d: round6(relativeReturn(xli, spyRet60)),
    ita_rel_60d: round6(relativeReturn(ita, spyRet60)),
  };
}

function relativeReturn(closes: readonly number[], benchmarkReturn: number): number {
  const ret = periodReturn(closes, 60);
  return ret === null ? 0 : ret - benchmarkReturn;
}

/**
 * Mid-rank of today's 20-day vol among the last year's daily values (1 = the most turbulent);
 * ties count half so a perfectly steady market sits at 0.5 rather than at the top.
 */
function volPercentile(closes: readonly number[], today: number): number {
  const history: number[] = [];
  const first = Math.max(21, closes.length - TRADING_DAYS_PER_YEAR + 1);
  // realizedVol of each 21-close window, with the same operations in the same order (so the same
  // floating-point results), from log returns computed once instead of once per window.
  const returns = new Float64Array(closes.length);
  for (let i = Math.max(1, first - 20); i < closes.length; i++) {
    returns[i] = Math.log((closes[i] ?? 0) / (closes[i - 1] ?? 1));
  }
  for (let end = first; end <= closes.length; end++) {
    let sum = 0;
    for (let i = end - 20; i < end; i++) sum += returns[i] ?? 0;
    const mean = sum / 20;
    let squares = 0;
    for (let i = end - 20; i < end; i++) squares += ((returns[i] ?? 0) - mean) ** 2;
    history.push(Math.sqrt((squares / 19) * TRADING_DAYS_PER_YEAR));
  }
  if (history.length === 0) return 0.5;
  const eps = 1e-12;
  const below = history.filter((v) => v < today - eps).length;
  const equal = history.filter((v) => Math.abs(v - today) <= eps).length;
  return (below + equal / 2) / history.length;
}

/** Fall from the highest close of the last 252 days, as a non-positive fraction. */
function drawdown(closes: readonly number[]): number {
  const window = closes.slice(-TRADING_DAYS_PER_YEAR);
  const high = Math.max(...window);
  const last = window[window.length - 1] ?? high;
  return high > 0 ? last / high - 1 : 0;
}

/**
 * Linear logits, hand-set so that typical magnitudes (trend ±5 %, 60-day return ±10 %, drawdown
 * to −20 %, vol percentile 0–1) move each regime by a few units:
 *   risk_on         = 40·trend + 8·ret_60d + 3·(0.5 − vol_pct) + 10·drawdown
 *   risk_off        = −40·trend − 8·ret_60d + 15·(−drawdown) − 1
 *   high_volatility = 6·(vol_pct − 0.6) + 8·(vol_20d − 0.18)
 *   range_bound     = 1 − 60·|trend| − 10·|ret_20d|
 */
function regimeLogits(f: Record<string, number>): Record<RegimeName, number> {
  const trend = f.trend ?? 0;
  const ret60 = f.ret_60d ?? 0;
  const ret20 = f.ret_20d ?? 0;
  const volPct = f.vol_pct_1y ?? 0.5;
  const vol = f.vol_20d ?? 0;
  const dd = f.drawdown ?? 0;
  return {
    risk_on: 40 * trend + 8 * ret60 + 3 * (0.5 - volPct) + 10 * dd,
    risk_off: -40 * trend - 8 * ret60 + 15 * -dd - 1,
    high_volatility: 6 * (volPct - 0.6) + 8 * (vol - 0.18),
    range_bound: 1 - 60 * Math.abs(trend) - 10 * Math.abs(ret20),
  };
}

function softmax(logits: Record<RegimeName, number>): Record<RegimeName, number> {
  const max = Math.max(...REGIME_NAMES.map((n) => logits[n]));
  const exp = (name: RegimeName): number => Math.exp(logits[name] - max);
  const total = REGIME_NAMES.reduce((sum, n) => sum + exp(n), 0);
  const share = (name: RegimeName): number => round6(exp(name) / total);
  return {
    risk_on: share('risk_on'),
    risk_off: share('risk_off'),
    high_volatility: share('high_volatility'),
    range_bound: share('range_bound'),
  };
}

function dominantOf(scores: Record<RegimeName, number>): RegimeName {
  let best: RegimeName = REGIME_NAMES[0];
  for (const name of REGIME_NAMES) if (scores[name] > scores[best]) best = name;
  return best;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
