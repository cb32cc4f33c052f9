import { computeRegime } from './regimes.ts';
import type { Candle, RegimeName } from './types.ts';

/** A stretch of days over which the market kept one dominant regime. */
export interface RegimeSpan {
  from: string;
  to: string;
  dominant: RegimeName;
}

/** Monday-based week number of a YYYY-MM-DD day, counted from 1970-01-05 (a Monday). */
const weekOf = (date: string): number => Math.floor((Date.parse(`${date}T00:00:00Z`) / 86_400_000 - 4) / 7);

/**
 * The dominant regime over [from, to] as consecutive spans: the regime (computeRegime, the one every
 * award is placed in, so no look-ahead) of each week's last SPY trading day holds for that week. A week
 * is as fine as a chart spanning decades can show, and 52 regimes a year cost a few milliseconds.
 */
export function regimeSpans(
  spy: readonly Candle[],
  xli: readonly Candle[],
  ita: readonly Candle[],
  from: string,
  to: string,
): RegimeSpan[] {
  const spans: RegimeSpan[] = [];
  let weekStart: string | null = null;
  for (let i = 0; i < spy.length; i++) {
    const day = spy[i] as Candle;
    if (day.date < from || day.date > to) continue;
    weekStart ??= day.date;
    const next = spy[i + 1];
    if (next && next.date <= to && weekOf(next.date) === weekOf(day.date)) continue;
    const regime = computeRegime({
      asOf: day.date,
      spy: spy as Candle[],
      xli: xli as Candle[],
      ita: ita as Candle[],
    });
    const start: string = weekStart;
    weekStart = null;
    if (!regime) continue;
    const last = spans.at(-1);
    if (last && last.dominant === regime.dominant) last.to = day.date;
    else spans.push({ from: start, to: day.date, dominant: regime.dominant });
  }
  return spans;
}
