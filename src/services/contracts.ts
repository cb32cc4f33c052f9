import { decay } from '../domain/decay.ts';
import { weeklyBars, weeklyWindow } from '../domain/weekly.ts';
import type { Queryable } from '../store/db.ts';
import { getEvent } from '../store/events.ts';
import { candleSeries, getRegime } from '../store/market.ts';

/**
 * One contract with its latest signal under `engine`, the weekly prices around its award, its regime
 * and how far the signal has decayed; null when there is no such contract.
 */
export async function contractBundle(db: Queryable, id: string, engine: string, now: () => Date) {
  const event = await getEvent(db, id, engine);
  if (!event) return null;
  const { contract, signal } = event;
  const window = weeklyWindow(contract.award_date);
  // The era owner's series: a 2010 award to Sikorsky is priced on United Technologies' (RTX's file).
  // An owner with no listed stock that day has no prices at all.
  const priced = contract.series_ticker ?? contract.ticker;
  const [candles, regime] = await Promise.all([
    priced === null ? [] : candleSeries(db, priced, window.from, window.to),
    getRegime(db, id),
  ]);
  const decayed = signal
    ? decay({ signalScore: signal.signal_score, awardDate: contract.award_date, now: now() })
    : null;
  return { contract, signal, weekly_prices: weeklyBars(candles), regime, decay: decayed };
}
