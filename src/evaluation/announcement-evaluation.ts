/**
 * The announcement study of one period with the committed score (announcement-score.ts): which
 * stored events it prices and why the others are left out, their scores, and the study grouped by
 * score quartile (in-sample cut points), by kind, and by score quartile within each kind.
 */

import { announcementPlacebo } from './announcement-placebo.ts';
import {
  type AnnouncementRule,
  type AnnouncementScore,
  IN_SAMPLE,
  ownershipExcluded,
  priceSeriesExcluded,
  type ScoreInput,
  SIZE_RULE,
  scoreQuartileCuts,
  type UniverseExclusion,
} from './announcement-score.ts';
import {
  type AnnouncementEvent,
  type AnnouncementStudyResult,
  cutGrouping,
  type Grouping,
  kindGrouping,
  runAnnouncementStudy,
  scoreQuartiles,
} from './announcement-study.ts';
import type { PricePoint } from './event-study.ts';
import type { PlaceboSummary } from './placebo.ts';

export interface Period {
  from: string;
  to: string;
}

export interface AnnouncementEvaluation {
  version: string;
  /** The rule in words. */
  describe: string;
  period: Period;
  cuts: readonly number[];
  /** Where the cut points came from, for the report. */
  cutsSource: string;
  /** Stored events with a ticker dated in the period, and why those not studied were left out. */
  inPeriod: number;
  excluded: Partial<Record<UniverseExclusion, number>>;
  /** This period's own quartile cut points: how far its scores drifted from the in-sample ones. */
  periodCuts: number[] | null;
  scores: ReadonlyMap<string, AnnouncementScore>;
  result: AnnouncementStudyResult;
  /** Q4 − Q1 over 0→+5 vs XAR (SPY before XAR's listing) beside its shifted-date placebos (announcement-placebo.ts). */
  placebo: (PlaceboSummary & { benchmark: string }) | null;
}

const QUARTILES = ['Q1', 'Q2', 'Q3', 'Q4'] as const;
export const SCORE_GROUPING = 'score quartile';
export const kindScoreGrouping = (kind: string): string => `score quartile, ${kind} only`;

/**
 * `events`: every stored event with a ticker up to the period's end (earlier ones are the trailing
 * history). `historyFrom`: the first date the stored announcements cover. The first applicable reason
 * excludes an event, in the order of UniverseExclusion.
 */
export function evaluateAnnouncements<T extends ScoreInput>(
  events: readonly T[],
  historyFrom: string,
  closes: ReadonlyMap<string, readonly PricePoint[]>,
  period: Period,
  rule: AnnouncementRule<T> = SIZE_RULE as AnnouncementRule<T>,
): AnnouncementEvaluation {
  const inPeriod = (e: { date: string }): boolean => e.date >= period.from && e.date <= period.to;
  const excluded: Partial<Record<UniverseExclusion, number>> = {};
  const exclude = (reason: UniverseExclusion): void => {
    excluded[reason] = (excluded[reason] ?? 0) + 1;
  };
  const owned = events.filter((e) => {
    if (!ownershipExcluded(e)) return true;
    if (inPeriod(e)) exclude('ownership');
    return false;
  });
  const scored = rule.score(owned, historyFrom);
  const scores = new Map<string, AnnouncementScore>();
  const studied: AnnouncementEvent[] = [];
  owned.forEach((e, i) => {
    if (!inPeriod(e)) return;
    const s = scored[i] as AnnouncementScore;
    scores.set(e.id, s);
    const first = closes.get(e.ticker)?.[0]?.date;
    if (priceSeriesExcluded(e)) exclude('price_series');
    else if (first === undefined) exclude('no_series');
    else if (first > e.date) exclude('not_listed');
    else if (s.score === null) exclude(rule.unscored);
    else {
      studied.push({
        id: e.id,
        ticker: e.ticker,
        date: e.date,
        kind: e.kind,
        score: s.score,
        relativeSize: s.relativeSize,
      });
    }
  });
  const cutsSource = `in sample ${IN_SAMPLE.from} → ${IN_SAMPLE.to}, ${rule.version}`;
  const kinds = [...new Set(studied.map((e) => e.kind))].sort();
  const quartiles = scoreQuartiles(rule.cuts, cutsSource);
  const groupings: Grouping[] = [
    quartiles,
    kindGrouping(kinds),
    ...kinds.map((kind) =>
      cutGrouping(
        kindScoreGrouping(kind),
        rule.cuts,
        (e) => (e.kind === kind ? e.score : null),
        QUARTILES,
        `score quartiles (cut points from ${cutsSource}) among ${kind} events`,
      ),
    ),
  ];
  return {
    version: rule.version,
    describe: rule.describe,
    period,
    cuts: rule.cuts,
    cutsSource,
    inPeriod: events.filter(inPeriod).length,
    excluded,
    periodCuts: studied.length > 0 ? scoreQuartileCuts(studied.map((e) => e.score)) : null,
    scores,
    result: runAnnouncementStudy(studied, closes, { groupings }),
    placebo: announcementPlacebo(studied, closes, quartiles),
  };
}

/**
 * The bar a score must clear to be worth publishing: top − bottom quartile ≥ +0.30 % over 0→+5
 * against XAR (market-adjusted) with a date-clustered t ≥ 2.5, and the same sign under the SPY
 * market model.
 */
export const ANNOUNCEMENT_BAR = { window: '0→+5', minDiff: 0.003, minT: 2.5 } as const;

export interface Contrast {
  diff: number;
  t: number;
  n: number;
  dates: number;
}

/** Top − bottom score quartile for one benchmark and window; null when either quartile is empty. */
export function scoreContrast(
  evaluation: AnnouncementEvaluation,
  benchmark: { ticker: string; model: string },
  window: string,
  grouping = SCORE_GROUPING,
): Contrast | null {
  const panel = evaluation.result.panels.find(
    (p) =>
      p.window.label === window &&
      p.benchmark.ticker === benchmark.ticker &&
      p.benchmark.model === benchmark.model,
  );
  const c = panel?.groupings.find((g) => g.name === grouping)?.contrast;
  if (!c || !Number.isFinite(c.diff)) return null;
  return { diff: c.diff, t: c.t, n: c.n, dates: c.dates };
}

export function barVerdict(evaluation: AnnouncementEvaluation): {
  xar: Contrast | null;
  spyMarket: Contrast | null;
  met: boolean;
} {
  const xar = scoreContrast(evaluation, { ticker: 'XAR', model: 'adjusted' }, ANNOUNCEMENT_BAR.window);
  const spyMarket = scoreContrast(evaluation, { ticker: 'SPY', model: 'market' }, ANNOUNCEMENT_BAR.window);
  const met =
    xar !== null &&
    spyMarket !== null &&
    xar.diff >= ANNOUNCEMENT_BAR.minDiff &&
    xar.t >= ANNOUNCEMENT_BAR.minT &&
    Math.sign(spyMarket.diff) === Math.sign(xar.diff);
  return { xar, spyMarket, met };
}
