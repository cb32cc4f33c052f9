/**
 * The announcement rule `ann-dv-1`: size relative to the company at that date, in money really awarded.
 *
 * Score = the company's awarded value on the page (domain/awarded-value.ts: a shared ceiling is a
 * licence, valued at its obligated share) / its average daily dollar volume (close × volume) over the
 * DV_WINDOW trading days strictly before the page's date — "how many days of the stock's trading the
 * award is worth". Every event of one company on one page gets the same score, as in `ann-size-1`.
 * No score without DV_WINDOW days of dollar volume before the date (tickers without shipped volume
 * included). Only data dated before the page is read, so later prices never change a score.
 *
 * The rule, DV_WINDOW and DV_CUTS were fixed on the in-sample pages (2014-08-01 → 2016-12-31) only
 * (docs/EVALUATION.md §4c). Changing anything that changes a score is a new version.
 */
import { awardedValue, type ParagraphMoney } from '../domain/awarded-value.ts';
import type { DollarVolumePoint, DollarVolumeSeries } from '../sources/dollar-volume.ts';
import type { AnnouncementRule, AnnouncementScore, ScoreInput } from './announcement-score.ts';

export const DV_SCORE_VERSION = 'ann-dv-1';

/** Trading days of dollar volume averaged (about three months). */
export const DV_WINDOW = 60;

/**
 * Quartile cut points (25th, 50th, 75th percentiles, 4 significant digits) of the in-sample study
 * universe's scores; Q1 ≤ c0 < Q2 ≤ c1 < Q3 ≤ c2 < Q4.
 */
export const DV_CUTS: readonly number[] = [0.08086, 0.2593, 0.7559];

export type DvInput = ScoreInput & ParagraphMoney;

/** First index of `series` whose date is ≥ `date` (binary search; series ascending). */
function firstAtOrAfter(series: readonly DollarVolumePoint[], date: string): number {
  let lo = 0;
  let hi = series.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((series[mid] as DollarVolumePoint).date < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Mean dollar volume over the `window` trading days strictly before `date`; null with fewer. */
export function trailingDollarVolume(
  series: readonly DollarVolumePoint[] | undefined,
  date: string,
  window = DV_WINDOW,
): number | null {
  if (!series) return null;
  const end = firstAtOrAfter(series, date);
  if (end < window) return null;
  let sum = 0;
  for (let i = end - window; i < end; i++) sum += (series[i] as DollarVolumePoint).dollars;
  return sum / window;
}

/** Scores of `events` in their order (AnnouncementScore: `trailingValue` is the average daily dollar volume). */
export function scoreDollarVolume(
  events: readonly DvInput[],
  dollarVolume: DollarVolumeSeries,
): AnnouncementScore[] {
  const awarded = events.map((e) => awardedValue(e).value);
  const pages = new Map<string, number>();
  events.forEach((e, i) => {
    const key = `${e.ticker}\u0000${e.date}`;
    pages.set(key, (pages.get(key) ?? 0) + (awarded[i] ?? 0));
  });
  return events.map((e, i) => {
    const pageValue = pages.get(`${e.ticker}\u0000${e.date}`) ?? 0;
    const adv = trailingDollarVolume(dollarVolume.get(e.ticker), e.date);
    if (adv === null || adv <= 0) return { score: null, relativeSize: null, pageValue, trailingValue: null };
    return { score: pageValue / adv, relativeSize: (awarded[i] ?? 0) / adv, pageValue, trailingValue: adv };
  });
}

/** `ann-dv-1` as the announcement evaluation's rule. */
export function dollarVolumeRule(dollarVolume: DollarVolumeSeries): AnnouncementRule<DvInput> {
  return {
    version: DV_SCORE_VERSION,
    describe:
      "The company's awarded value on the page (face value for one awardee; for a shared ceiling each holder's " +
      'share of the amount obligated at award, else of the ceiling × 0.00025) / its average daily dollar volume ' +
      `(as-traded close × volume) over the ${DV_WINDOW} trading days strictly before the page`,
    cuts: DV_CUTS,
    unscored: 'no_dollar_volume',
    score: (events) => scoreDollarVolume(events, dollarVolume),
  };
}
