import { type RegimeSpan, regimeSpans } from '../domain/regime-band.ts';
import { REGIME_LOOKBACK_DAYS } from '../domain/regimes.ts';
import type { Queryable } from '../store/db.ts';
import { candleSeries } from '../store/market.ts';

const shiftDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The dominant market regime over [from, to] as spans, from the benchmarks' candles (SPY, XLI, ITA)
 * as the scoring pipeline reads them: the same computation that places each award in its regime.
 */
export async function regimeBand(db: Queryable, from: string, to: string): Promise<RegimeSpan[]> {
  const since = shiftDays(from, -REGIME_LOOKBACK_DAYS);
  const [spy, xli, ita] = await Promise.all(
    ['SPY', 'XLI', 'ITA'].map((ticker) => candleSeries(db, ticker, since, to)),
  );
  return regimeSpans(spy ?? [], xli ?? [], ita ?? [], from, to);
}
