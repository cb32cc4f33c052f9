import type { Candle } from './types.ts';

export interface WeeklyBar {
  week_start: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

const MS_PER_DAY = 86_400_000;
/** The bundle shows eight weeks either side of the award. */
const WINDOW_DAYS = 56;

/** Aggregates daily bars into ISO weeks (Monday start); input order does not matter. */
export function weeklyBars(candles: Candle[]): WeeklyBar[] {
  const sorted = [...candles].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const weeks: WeeklyBar[] = [];
  for (const candle of sorted) {
    const weekStart = mondayOf(candle.date);
    const current = weeks[weeks.length - 1];
    if (current !== undefined && current.week_start === weekStart) {
      current.high = Math.max(current.high, candle.high);
      current.low = Math.min(current.low, candle.low);
      current.close = candle.close;
      current.volume += candle.volume;
    } else {
      weeks.push({
        week_start: weekStart,
        open: candle.open,
        high: candle.high,
        low: candle.low,
        close: candle.close,
        volume: candle.volume,
      });
    }
  }
  return weeks;
}

export function weeklyWindow(awardDate: string): { from: string; to: string } {
  const day = utcDay(awardDate);
  return { from: isoDate(day - WINDOW_DAYS * MS_PER_DAY), to: isoDate(day + WINDOW_DAYS * MS_PER_DAY) };
}

export function mondayOf(date: string): string {
  const day = utcDay(date);
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
  return isoDate(day - weekday * MS_PER_DAY);
}

function utcDay(date: string): number {
  return Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
