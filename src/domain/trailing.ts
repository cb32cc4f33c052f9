import type { EngineInput } from './types.ts';

export interface DatedValue {
  date: string; // YYYY-MM-DD
  value: number;
}

const DAY_MS = 86_400_000;

/** How far back the trailing statistics look: the awards in [date − TRAILING_DAYS, date). */
export const TRAILING_DAYS = 365;

/**
 * The part of a ticker's history that the trailing statistics of dates `first`..`last` can see:
 * awards dated from `from` (inclusive) to `until` (exclusive).
 */
export function trailingSpan(first: string, last: string): { from: string; until: string } {
  return { from: addDays(first, -TRAILING_DAYS), until: last };
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** First index whose date is >= `date` in an array sorted by date. */
export function lowerBound(series: readonly { date: string }[], date: string): number {
  let lo = 0;
  let hi = series.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((series[mid]?.date ?? '') < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A ticker's awards in the 365 days strictly before `date` (ascending `history`).
 * Strictly before: same-day awards are not yet known when an award is announced.
 */
export function trailingStats(history: readonly DatedValue[], date: string): EngineInput['trailing'] {
  const start = lowerBound(history, addDays(date, -TRAILING_DAYS));
  const end = lowerBound(history, date);
  const values = history.slice(start, end).map((h) => h.value);
  if (values.length === 0) return { count: 0, totalValue: 0, medianValue: 0 };
  values.sort((x, y) => x - y);
  const mid = values.length >> 1;
  const median = values.length % 2 ? (values[mid] ?? 0) : ((values[mid - 1] ?? 0) + (values[mid] ?? 0)) / 2;
  return { count: values.length, totalValue: values.reduce((sum, v) => sum + v, 0), medianValue: median };
}

/**
 * `trailingStats` for many dates of one ticker's history at once, in O((n + q) log n): the queries
 * are visited in date order while a 365-day window slides over `history`, and a Fenwick tree over
 * the window's value ranks answers the median. Gives exactly what `trailingStats` gives for each
 * date (whole-dollar values sum exactly), in the order of `dates`.
 */
export function trailingStatsMany(
  history: readonly DatedValue[],
  dates: readonly string[],
): EngineInput['trailing'][] {
  const out: EngineInput['trailing'][] = new Array(dates.length);
  // Each history entry's value rank, from one sort of the entries by value (a Map from value to rank
  // cost a hash of a double per entry and per slide: a large import's scoring spent seconds there).
  const { ranks, rankOf } = valueRanks(history);
  const tree = new FenwickCounter(ranks.length);
  const order = dates
    .map((_, i) => i)
    .sort((a, b) => {
      const x = dates[a] ?? '';
      const y = dates[b] ?? '';
      return x < y ? -1 : x > y ? 1 : 0;
    });
  let start = 0;
  let end = 0;
  let total = 0;
  // Queries come in date order and many share a date: the window start is worked out once per date.
  let lastDate: string | null = null;
  let from = '';
  for (const qi of order) {
    const date = dates[qi] ?? '';
    if (date !== lastDate) {
      lastDate = date;
      from = windowStart(date);
    }
    while (end < history.length && (history[end]?.date ?? '') < date) {
      tree.add(rankOf[end] ?? 0, 1);
      total += history[end]?.value ?? 0;
      end += 1;
    }
    while (start < end && (history[start]?.date ?? '') < from) {
      tree.add(rankOf[start] ?? 0, -1);
      total -= history[start]?.value ?? 0;
      start += 1;
    }
    const count = end - start;
    if (count === 0) {
      out[qi] = { count: 0, totalValue: 0, medianValue: 0 };
      continue;
    }
    const mid = count >> 1;
    const upper = ranks[tree.kth(mid)] ?? 0;
    const median = count % 2 ? upper : ((ranks[tree.kth(mid - 1)] ?? 0) + upper) / 2;
    out[qi] = { count, totalValue: total, medianValue: median };
  }
  return out;
}

/** The distinct values of `history` ascending, and each entry's index among them. */
function valueRanks(history: readonly DatedValue[]): { ranks: number[]; rankOf: Int32Array } {
  const values = new Float64Array(history.length);
  for (let i = 0; i < history.length; i++) values[i] = history[i]?.value ?? 0;
  const byValue = new Int32Array(history.length);
  for (let i = 0; i < byValue.length; i++) byValue[i] = i;
  byValue.sort((a, b) => (values[a] ?? 0) - (values[b] ?? 0));
  const ranks: number[] = [];
  const rankOf = new Int32Array(history.length);
  for (const i of byValue) {
    const value = values[i] ?? 0;
    if (ranks.length === 0 || ranks[ranks.length - 1] !== value) ranks.push(value);
    rankOf[i] = ranks.length - 1;
  }
  return { ranks, rankOf };
}

/**
 * `addDays(date, -TRAILING_DAYS)`, remembered: scoring asks it for every distinct (ticker, date) of a
 * run, hundreds of thousands of times over a few thousand dates, and each `Date` parse and format
 * costs microseconds. Bounded, as a long-running process scores ever newer dates.
 */
function windowStart(date: string): string {
  let from = windowStarts.get(date);
  if (from === undefined) {
    if (windowStarts.size >= WINDOW_STARTS_LIMIT) windowStarts.clear();
    from = addDays(date, -TRAILING_DAYS);
    windowStarts.set(date, from);
  }
  return from;
}

const windowStarts = new Map<string, string>();
/** About 27 years of dates. */
const WINDOW_STARTS_LIMIT = 10_000;

/** Counts per rank with prefix sums and "k-th smallest" (0-based) by binary lifting. */
class FenwickCounter {
  private readonly tree: Int32Array;
  private readonly top: number;
  constructor(size: number) {
    this.tree = new Int32Array(size + 1);
    this.top = size === 0 ? 0 : 2 ** Math.floor(Math.log2(size));
  }
  add(rank: number, delta: number): void {
    for (let i = rank + 1; i < this.tree.length; i += i & -i) this.tree[i] = (this.tree[i] ?? 0) + delta;
  }
  kth(k: number): number {
    let pos = 0;
    let remaining = k + 1;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = pos + step;
      const count = this.tree[next] ?? 0;
      if (next < this.tree.length && count < remaining) {
        pos = next;
        remaining -= count;
      }
    }
    return pos; // the rank (0-based) whose prefix count first reaches k + 1
  }
}
