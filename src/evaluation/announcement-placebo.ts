/**
 * The announcement study's placebo test (placebo.ts): the top − bottom score quartile over 0→+5 against
 * XAR (market-adjusted), with every event's day 0 moved by ±6 … ±60 trading days of XAR's calendar. XAR
 * was listed in 2011: for events before its first close (another era's pages) SPY stands in.
 */
import {
  type AnnouncementEvent,
  announcementDay0,
  type Grouping,
  windowReturn,
} from './announcement-study.ts';
import type { PricePoint } from './event-study.ts';
import { type PlaceboSummary, type PlaceboUnit, placeboTest } from './placebo.ts';

export const PLACEBO_BENCHMARKS = ['XAR', 'SPY'] as const;
export const PLACEBO_WINDOW = { label: '0→+5', from: 0, to: 5 } as const;

/** The placebo test of `grouping`'s contrast (its top vs bottom group) over the studied events. */
export function announcementPlacebo(
  events: readonly AnnouncementEvent[],
  closes: ReadonlyMap<string, readonly PricePoint[]>,
  grouping: Grouping,
): (PlaceboSummary & { benchmark: string }) | null {
  const first = events.map((e) => e.date).sort()[0] ?? '\uffff';
  // The first benchmark whose closes begin before the first event.
  const benchmark = PLACEBO_BENCHMARKS.find((b) => (closes.get(b)?.[0]?.date ?? '\uffff') < first);
  const calendar = benchmark ? (closes.get(benchmark) ?? []) : [];
  const contrast = grouping.contrast;
  if (!benchmark || !contrast || calendar.length === 0) return null;
  const units: PlaceboUnit[] = [];
  for (const event of events) {
    const label = grouping.groupOf(event);
    const group = label === contrast.top ? 'top' : label === contrast.bottom ? 'bottom' : null;
    const day0 = announcementDay0(calendar, event.date);
    if (group && day0.ok) units.push({ ticker: event.ticker, day0: day0.index, group });
  }
  const summary = placeboTest(units, (unit, day0) => {
    if (day0 < 0 || day0 >= calendar.length) return null;
    const r = windowReturn(closes.get(unit.ticker) ?? [], calendar, day0, PLACEBO_WINDOW);
    return r.ok ? r.tickerReturn - r.benchmarkReturn : null;
  });
  return { ...summary, benchmark };
}
