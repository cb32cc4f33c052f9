/**
 * The score of a DoD announcement event, from what was public when its page went up (about 17:00
 * New York time of the page's date), and the universe of events the announcement study prices.
 *
 * The rule (`ann-size-1`) was chosen on announcements dated 2014-08-01 → 2016-12-31 only, and its
 * quartile cut points are constants taken from those events, so a study of later dates applies it
 * unchanged (docs/EVALUATION.md, "Announcements"). Changing anything here that changes a score is a
 * new version, and the out-of-sample figures of the old one do not carry over.
 *
 * Score = the company's announced value on the page / its announced value over the 365 days strictly
 * before the page. Every event of one company on one page gets the same score: the market reads the
 * page, not the paragraph, and those events share one price reaction. Kind is not in the score: in
 * sample no kind (award, modification, option, order) moved prices differently, and size restricted
 * to new awards and orders separated less than size over all kinds.
 */
import { addDays, TRAILING_DAYS, trailingStatsMany } from '../domain/trailing.ts';
import { quantile } from './stats.ts';

export const ANNOUNCEMENT_SCORE_VERSION = 'ann-size-1';

/** Where the rule and its cut points were chosen, and the later period they are judged on. */
export const IN_SAMPLE = { from: '2014-08-01', to: '2016-12-31' } as const;
export const OUT_OF_SAMPLE = { from: '2017-01-01', to: '2019-03-08' } as const;

/**
 * Quartile cut points (25th, 50th, 75th percentiles, to 4 significant digits) of the scores of the
 * in-sample study universe; Q1 ≤ c0 < Q2 ≤ c1 < Q3 ≤ c2 < Q4.
 */
export const SCORE_CUTS: readonly number[] = [0.002018, 0.006078, 0.01894];

/** What the score reads of an event: what the page said, and the ticker it was resolved to. */
export interface ScoreInput {
  id: string;
  ticker: string;
  recipient: string;
  /** The page's date, YYYY-MM-DD. */
  date: string;
  kind: string;
  /** Whole dollars (a multiple-award ceiling split evenly among its awardees). */
  value: number;
}

export interface AnnouncementScore {
  /** The company's value on the page / its trailing-year value; +∞ with no trailing value; null without a full year of history. */
  score: number | null;
  /** This event's value / the company's trailing-year value (same conventions). */
  relativeSize: number | null;
  /** The company's announced value on the page (this event's and its same-page siblings'). */
  pageValue: number;
  /** The company's announced value in [date − 365 days, date); null without a full year of history. */
  trailingValue: number | null;
}

/**
 * Scores of `events` (any order; the result is in the same order). `historyFrom` is the first date
 * the stored announcements cover: an event whose trailing year starts before it has no score, since a
 * partial year would understate the denominator. An event's score reads only its own page and the
 * pages of the year before, so adding announcements of later dates never changes it.
 */
export function scoreAnnouncements(events: readonly ScoreInput[], historyFrom: string): AnnouncementScore[] {
  const out: AnnouncementScore[] = new Array(events.length);
  const byTicker = new Map<string, number[]>();
  events.forEach((e, i) => {
    const list = byTicker.get(e.ticker);
    if (list) list.push(i);
    else byTicker.set(e.ticker, [i]);
  });
  for (const indexes of byTicker.values()) {
    const history = indexes
      .map((i) => ({ date: (events[i] as ScoreInput).date, value: (events[i] as ScoreInput).value }))
      .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    const pageValue = new Map<string, number>();
    for (const h of history) pageValue.set(h.date, (pageValue.get(h.date) ?? 0) + h.value);
    const trailing = trailingStatsMany(
      history,
      indexes.map((i) => (events[i] as ScoreInput).date),
    );
    indexes.forEach((i, k) => {
      const e = events[i] as ScoreInput;
      const page = pageValue.get(e.date) ?? e.value;
      if (addDays(e.date, -TRAILING_DAYS) < historyFrom) {
        out[i] = { score: null, relativeSize: null, pageValue: page, trailingValue: null };
        return;
      }
      const total = trailing[k]?.totalValue ?? 0;
      const ratio = (x: number): number => (total > 0 ? x / total : Number.POSITIVE_INFINITY);
      out[i] = { score: ratio(page), relativeSize: ratio(e.value), pageValue: page, trailingValue: total };
    });
  }
  return out;
}

/** A rule the announcement study can judge: its version, in-sample cut points and scores. */
export interface AnnouncementRule<T extends ScoreInput = ScoreInput> {
  version: string;
  /** What the score is, in words, for the report (ends without a full stop). */
  describe: string;
  cuts: readonly number[];
  /** Why an event the rule gives no score is left out of the study. */
  unscored: UniverseExclusion;
  /** Scores of `events` in their order; `historyFrom` is the first date the stored announcements cover. */
  score(events: readonly T[], historyFrom: string): AnnouncementScore[];
}

/** `ann-size-1` as the announcement evaluation's rule. */
export const SIZE_RULE: AnnouncementRule = {
  version: ANNOUNCEMENT_SCORE_VERSION,
  describe:
    "The company's announced value on the page (its events' values, a multiple-award ceiling split evenly " +
    'among the awardees) / its announced value in the 365 days strictly before the page; ∞ with none',
  cuts: SCORE_CUTS,
  unscored: 'short_history',
  score: scoreAnnouncements,
};

// -------------------------------------------------------------------------------------------------
// The study universe

export interface PriceSeriesExclusion {
  ticker: string;
  /** Events dated before this are left out. */
  before: string;
  why: string;
}

/**
 * Tickers whose price series, before a date, is not the company the events are about. The resolver
 * maps names to today's listed parent, and the series carries today's ticker back in time.
 */
export const PRICE_SERIES_EXCLUSIONS: readonly PriceSeriesExclusion[] = [
  {
    ticker: 'RTX',
    before: '2020-04-03',
    why: 'the RTX series before the Raytheon merger is United Technologies; Raytheon Co. (RTN) has no series',
  },
  {
    ticker: 'LHX',
    before: '2019-07-01',
    why: 'the LHX series before the L3 merger is Harris; L-3 Technologies has no series',
  },
  {
    ticker: 'DELL',
    before: '2018-12-28',
    why: 'Dell Technologies class C shares were listed on 2018-12-28; the series before is not that stock',
  },
  {
    ticker: 'JCI',
    before: '2016-09-02',
    why: 'Johnson Controls merged with Tyco on 2016-09-02; which company the series follows before is not checked',
  },
];

export interface OwnershipExclusion {
  ticker: string;
  /** The acquired company's names as they appear on the pages. */
  recipient: RegExp;
  /** Acquired by `ticker` on this date: earlier events were another company's news. */
  before: string;
  why: string;
}

/**
 * Recipients the resolver gives to their later owner (its aliases are not dated): before the
 * acquisition their awards were not the owner's, neither as news for its stock nor in its trailing
 * total. Dates as in data/SOURCES.md (aliases caveat) where it gives them.
 */
export const OWNERSHIP_EXCLUSIONS: readonly OwnershipExclusion[] = [
  {
    ticker: 'LMT',
    recipient: /sikorsky/i,
    before: '2015-11-06',
    why: 'Sikorsky was United Technologies until Lockheed Martin bought it',
  },
  {
    ticker: 'NOC',
    recipient: /alliant\s*tech|\batk\b|orbital\s*(?:sciences|atk)/i,
    before: '2018-06-06',
    why: 'Orbital ATK (Alliant Techsystems, Orbital Sciences) was listed on its own until Northrop Grumman bought it',
  },
  {
    ticker: 'GD',
    recipient: /\bcsra\b/i,
    before: '2018-04-03',
    why: 'CSRA was listed on its own until General Dynamics bought it',
  },
  {
    ticker: 'BA',
    recipient: /aurora\s+flight/i,
    before: '2017-11-08',
    why: 'Aurora Flight Sciences was private until Boeing bought it',
  },
  {
    ticker: 'LDOS',
    recipient: /dynetics/i,
    before: '2020-01-31',
    why: 'Dynetics was private until Leidos bought it',
  },
  {
    ticker: 'LDOS',
    recipient: /gibbs\s*(?:&|and)\s*cox/i,
    before: '2020-01-01',
    why: 'Gibbs & Cox was private until Leidos bought it in 2021, after every page here',
  },
  {
    ticker: 'TXT',
    recipient: /airborne\s+tactical/i,
    before: '2016-07-08',
    why: 'ATAC was private until Textron bought it in the first half of 2016 (closing date not checked: events before July 2016 are left out)',
  },
];

export type UniverseExclusion =
  | 'ownership'
  | 'price_series'
  | 'no_series'
  | 'not_listed'
  | 'short_history'
  | 'no_dollar_volume';

export const UNIVERSE_EXCLUSION_TEXT: Readonly<Record<UniverseExclusion, string>> = {
  ownership: 'recipient not yet owned by the resolved company (scored without them as well)',
  price_series: "the ticker's price series is another company's at that date",
  no_series: 'no price series for the ticker',
  not_listed: "the ticker's series starts after the announcement (not listed then)",
  short_history: 'less than a year of announcement history before the date (no score)',
  no_dollar_volume: 'fewer than 60 trading days of shipped dollar volume before the date (no score)',
};

export const ownershipExcluded = (e: { ticker: string; recipient: string; date: string }): boolean =>
  OWNERSHIP_EXCLUSIONS.some(
    (x) => x.ticker === e.ticker && e.date < x.before && x.recipient.test(e.recipient),
  );

export const priceSeriesExcluded = (e: { ticker: string; date: string }): boolean =>
  PRICE_SERIES_EXCLUSIONS.some((x) => x.ticker === e.ticker && e.date < x.before);

/** Quartile cut points (type 7) of scores, +∞ (no trailing value) counted as the largest: how SCORE_CUTS were taken. */
export function scoreQuartileCuts(scores: readonly number[]): number[] {
  const sorted = scores
    .map((s) => (s === Number.POSITIVE_INFINITY ? Number.MAX_VALUE : s))
    .sort((a, b) => a - b);
  if (sorted.length === 0 || sorted.some((s) => !Number.isFinite(s))) {
    throw new RangeError('quartile cut points need scores that are numbers or +∞');
  }
  return [0.25, 0.5, 0.75].map((p) => quantile(sorted, p));
}
