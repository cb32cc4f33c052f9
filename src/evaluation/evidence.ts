/**
 * The event study as the dashboard's Evidence page shows it: every bucket's mean abnormal return with a
 * 95 % confidence interval, per benchmark and window, and whether top − bottom is significant. The
 * study itself is event-study.ts's; this only chooses its windows and benchmarks and summarises it.
 */

import { lowerBound } from '../domain/trailing.ts';
import type { Queryable } from '../store/db.ts';
import { type PricePoint, priceSeries, type ScoredEvent, scoredEvents } from '../store/evaluation.ts';
import { abnormalReturn, type GroupStats, type Panel, runEventStudy } from './event-study.ts';
import { type PlaceboSummary, type PlaceboUnit, placeboTest } from './placebo.ts';

/** Every benchmark the API serves (`/api/v1/benchmarks`) and three windows: the next day, a week, a month. */
export const EVIDENCE_BENCHMARKS: readonly string[] = ['ITA', 'SPY', 'XLI'];
export const EVIDENCE_HORIZONS: readonly number[] = [1, 5, 20];
/** Two-sided 5 %, normal approximation (every bucket but a tiny one has hundreds of contracts). */
export const Z_95 = 1.96;

export interface BucketEvidence {
  label: string;
  /** Contracts priced, and distinct (ticker, day 0) market events among them. */
  n: number;
  events: number;
  /** Mean abnormal return over the contracts, a fraction (0.01 = 1 %). */
  mean: number | null;
  /** Its standard error, std / √n, and mean ± 1.96 SE. */
  se: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  /** t over contracts, and over market events (same-day awards of one company are one event). */
  t: number | null;
  tEvents: number | null;
}

export interface PanelEvidence {
  benchmark: string;
  horizon: number;
  priced: number;
  excluded: Record<string, number>;
  buckets: BucketEvidence[];
  all: BucketEvidence;
  /** Top bucket minus bottom bucket; t is Welch's over market events. */
  topMinusBottom: { diff: number; t: number | null; significant: boolean } | null;
}

export interface EvidenceSummary {
  buckets: { label: string; min: number; max: number }[];
  benchmarks: string[];
  horizons: number[];
  panels: PanelEvidence[];
  /** Top − bottom bucket over PLACEBO_HORIZON days against PLACEBO_BENCHMARK beside shifted-date placebos. */
  placebo: (PlaceboSummary & { benchmark: string; horizon: number }) | null;
}

/** The placebo test's panel: a week against SPY (total return; ITA's adj_close leaves out dividends). */
export const PLACEBO_BENCHMARK = 'SPY';
export const PLACEBO_HORIZON = 5;

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

function bucketEvidence(g: GroupStats): BucketEvidence {
  const se = g.n > 1 ? g.std / Math.sqrt(g.n) : Number.NaN;
  return {
    label: g.label,
    n: g.n,
    events: g.events,
    mean: finite(g.mean),
    se: finite(se),
    ciLow: finite(g.mean - Z_95 * se),
    ciHigh: finite(g.mean + Z_95 * se),
    t: finite(g.t),
    tEvents: finite(g.tEvents),
  };
}

function panelEvidence(p: Panel): PanelEvidence {
  const tmb = p.topMinusBottom;
  return {
    benchmark: p.benchmark,
    horizon: p.horizon,
    priced: p.priced,
    excluded: Object.fromEntries(Object.entries(p.excluded).filter(([, n]) => n !== undefined)),
    buckets: p.groups.map(bucketEvidence),
    all: bucketEvidence(p.all),
    topMinusBottom: tmb
      ? { diff: tmb.diff, t: finite(tmb.t), significant: Number.isFinite(tmb.t) && Math.abs(tmb.t) >= Z_95 }
      : null,
  };
}

/** The study of `events` priced from `candles`, over the page's benchmarks and windows. */
export function evidenceOf(
  events: readonly ScoredEvent[],
  candles: ReadonlyMap<string, readonly PricePoint[]>,
): EvidenceSummary {
  const result = runEventStudy(events, candles, {
    benchmarks: EVIDENCE_BENCHMARKS,
    horizons: EVIDENCE_HORIZONS,
  });
  return {
    buckets: result.buckets.map((b) => ({ ...b })),
    benchmarks: [...result.benchmarks],
    horizons: [...result.horizons],
    panels: result.panels.map(panelEvidence),
    placebo: enginePlacebo(events, candles, result.buckets),
  };
}

/** The engine's top bucket against its bottom one, with every award date moved ±6 … ±60 trading days. */
export function enginePlacebo(
  events: readonly ScoredEvent[],
  candles: ReadonlyMap<string, readonly PricePoint[]>,
  buckets: readonly { min: number; max: number }[],
): EvidenceSummary['placebo'] {
  const calendar = candles.get(PLACEBO_BENCHMARK) ?? [];
  const top = buckets[buckets.length - 1];
  const bottom = buckets[0];
  if (calendar.length === 0 || !top || !bottom || buckets.length < 2) return null;
  const units: PlaceboUnit[] = [];
  for (const e of events) {
    const group =
      e.score >= top.min && e.score <= top.max
        ? 'top'
        : e.score >= bottom.min && e.score <= bottom.max
          ? 'bottom'
          : null;
    if (group) units.push({ ticker: e.ticker, day0: lowerBound(calendar, e.awardDate), group });
  }
  const summary = placeboTest(units, (unit, day0) => {
    const day = calendar[day0];
    if (!day || day0 < 1) return null;
    const r = abnormalReturn(candles.get(unit.ticker) ?? [], calendar, day.date, PLACEBO_HORIZON);
    return r.ok ? r.abnormal : null;
  });
  return { ...summary, benchmark: PLACEBO_BENCHMARK, horizon: PLACEBO_HORIZON };
}

/** Loads one engine version's scored contracts and the candles they need, and summarises the study. */
export async function studyEngineVersion(
  db: Queryable,
  engine: string,
  version: string,
): Promise<{ contracts: number; summary: EvidenceSummary }> {
  const events = await scoredEvents(db, engine, version);
  const candles = await priceSeries(db, [...new Set(events.map((e) => e.ticker)), ...EVIDENCE_BENCHMARKS]);
  return { contracts: events.length, summary: evidenceOf(events, candles) };
}
