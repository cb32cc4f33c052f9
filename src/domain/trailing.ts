import type { EngineInput } from './types.ts';

export interface DatedValue {
  date: string; // YYYY-MM-DD
  value: number;
}

const DAY_MS = 86_400_000;

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** First index whose date is >= `date` in an ascending array. */
function lowerBound(history: readonly DatedValue[], date: string): number {
  let lo = 0;
  let hi = history.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((history[mid]?.date ?? '') < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A ticker's awards in the 365 days strictly before `date` (ascending `history`).
 * Strictly before: same-day awards are not yet known when an award is announced.
 */
export function trailingStats(history: readonly DatedValue[], date: string): EngineInput['trailing'] {
  const start = lowerBound(history, addDays(date, -365));
  const end = lowerBound(history, date);
  const values = history.slice(start, end).map((h) => h.value);
  if (values.length === 0) return { count: 0, totalValue: 0, medianValue: 0 };
  values.sort((x, y) => x - y);
  const mid = values.length >> 1;
  const median = values.length % 2 ? (values[mid] ?? 0) : ((values[mid - 1] ?? 0) + (values[mid] ?? 0)) / 2;
  return { count: values.length, totalValue: values.reduce((sum, v) => sum + v, 0), medianValue: median };
}
