/**
 * The announcement score (ann-size-1) and the study around it: a score reads only its page and the
 * year before it, so later announcements never change it; the universe leaves out what its rules
 * say; a planted reaction to large pages clears the bar and no reaction does not.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addDays } from '../../src/domain/trailing.ts';
import {
  ANNOUNCEMENT_BAR,
  barVerdict,
  evaluateAnnouncements,
  kindScoreGrouping,
  SCORE_GROUPING,
  scoreContrast,
} from '../../src/evaluation/announcement-evaluation.ts';
import {
  renderEvaluationCsv,
  renderEvaluationMarkdown,
  renderEvaluationSvg,
} from '../../src/evaluation/announcement-evaluation-report.ts';
import {
  ANNOUNCEMENT_SCORE_VERSION,
  IN_SAMPLE,
  OUT_OF_SAMPLE,
  ownershipExcluded,
  priceSeriesExcluded,
  SCORE_CUTS,
  type ScoreInput,
  scoreAnnouncements,
  scoreQuartileCuts,
} from '../../src/evaluation/announcement-score.ts';
import type { PricePoint } from '../../src/evaluation/event-study.ts';

let serial = 0;
const ev = (ticker: string, date: string, value: number, over: Partial<ScoreInput> = {}): ScoreInput => ({
  id: `E${++serial}`,
  ticker,
  recipient: `${ticker} Corp.`,
  date,
  kind: 'award',
  value,
  ...over,
});

/** A deterministic stream in [0, 1) (LCG), so the synthetic markets are the same on every run. */
function uniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('the score', () => {
  test('is the company’s value on the page over its value in the 365 days strictly before', () => {
    const events = [
      ev('AAA', '2015-01-02', 1_000_000_000),
      ev('AAA', '2015-06-01', 500_000_000),
      // Exactly 365 days before 2016-06-01 (a leap year in between): inside the window.
      ev('AAA', '2015-06-02', 500_000_000),
      ev('AAA', '2016-06-01', 20_000_000),
      ev('AAA', '2016-06-01', 30_000_000, { kind: 'modification' }),
      ev('BBB', '2016-06-01', 10_000_000),
    ];
    const scores = scoreAnnouncements(events, '2015-01-01');
    assert.equal(addDays('2016-06-01', -365), '2015-06-02');
    // Same-day pages are the same news: both AAA events share the page's 50 M over the 500 M before.
    assert.deepEqual(scores[3], {
      score: 50_000_000 / 500_000_000,
      relativeSize: 20_000_000 / 500_000_000,
      pageValue: 50_000_000,
      trailingValue: 500_000_000,
    });
    assert.equal(scores[4]?.score, 0.1);
    assert.equal(scores[4]?.relativeSize, 30_000_000 / 500_000_000);
    // No announcement in the year before: the largest relative size there is.
    assert.equal(scores[5]?.score, Number.POSITIVE_INFINITY);
    assert.equal(scores[5]?.trailingValue, 0);
    // Less than a year of history: no score (a partial year would understate the denominator).
    assert.equal(scores[0]?.score, null);
    assert.equal(scores[2]?.score, null);
  });

  test('of an announcement does not change when later announcements are added', () => {
    const next = uniform(7);
    const tickers = ['AAA', 'BBB', 'CCC', 'DDD'];
    const events: ScoreInput[] = [];
    for (let i = 0; i < 600; i++) {
      const date = addDays('2014-08-01', Math.floor(next() * 1400));
      const ticker = tickers[Math.floor(next() * tickers.length)] ?? 'AAA';
      events.push(ev(ticker, date, Math.round(1e6 + next() * 5e8)));
    }
    const full = scoreAnnouncements(events, '2014-08-01');
    const byId = new Map(events.map((e, i) => [e.id, full[i]]));
    const dates = [...new Set(events.map((e) => e.date))].sort();
    assert.ok(dates.length > 300);
    // Known up to each date (in any order): every score then equals the one seen with all dates.
    for (const cutoff of dates.filter((_, i) => i % 7 === 0)) {
      const known = events.filter((e) => e.date <= cutoff).reverse();
      const then = scoreAnnouncements(known, '2014-08-01');
      known.forEach((e, i) => {
        assert.deepEqual(then[i], byId.get(e.id), `${e.id} (${e.ticker} ${e.date}) as of ${cutoff}`);
      });
    }
    assert.ok(full.filter((s) => s.score !== null && Number.isFinite(s.score)).length > 300);
  });

  test('cut points are the committed in-sample constants, ascending, with +∞ counted as the largest', () => {
    assert.equal(ANNOUNCEMENT_SCORE_VERSION, 'ann-size-1');
    assert.equal(SCORE_CUTS.length, 3);
    assert.ok(SCORE_CUTS.every((c, i) => c > 0 && (i === 0 || c > (SCORE_CUTS[i - 1] ?? 0))));
    assert.ok(IN_SAMPLE.to < OUT_OF_SAMPLE.from);
    assert.deepEqual(scoreQuartileCuts([4, 1, Number.POSITIVE_INFINITY, 2, 3]), [2, 3, 4]);
    assert.throws(() => scoreQuartileCuts([]), RangeError);
    assert.throws(() => scoreQuartileCuts([1, Number.NaN]), RangeError);
  });

  test('exclusion rules: price series of another company, recipients not yet owned', () => {
    assert.ok(priceSeriesExcluded({ ticker: 'RTX', date: '2019-03-08' }));
    assert.ok(!priceSeriesExcluded({ ticker: 'RTX', date: '2020-04-03' }));
    assert.ok(priceSeriesExcluded({ ticker: 'LHX', date: '2019-06-28' }));
    assert.ok(!priceSeriesExcluded({ ticker: 'LHX', date: '2019-07-01' }));
    assert.ok(!priceSeriesExcluded({ ticker: 'LMT', date: '2015-01-02' }));
    const sikorsky = { ticker: 'LMT', recipient: 'Sikorsky Aircraft Corp.' };
    assert.ok(ownershipExcluded({ ...sikorsky, date: '2015-11-05' }));
    assert.ok(!ownershipExcluded({ ...sikorsky, date: '2015-11-06' }));
    assert.ok(!ownershipExcluded({ ticker: 'LMT', recipient: 'Lockheed Martin Corp.', date: '2015-01-02' }));
    assert.ok(
      ownershipExcluded({
        ticker: 'NOC',
        recipient: 'Alliant Techsystems Operations LLC',
        date: '2017-03-02',
      }),
    );
    assert.ok(ownershipExcluded({ ticker: 'NOC', recipient: 'ATK Launch Systems Inc.', date: '2016-01-13' }));
    assert.ok(
      !ownershipExcluded({ ticker: 'NOC', recipient: 'Northrop Grumman Systems Corp.', date: '2016-01-13' }),
    );
  });
});

// -------------------------------------------------------------------------------------------------
// The study on synthetic markets

/** Weekdays from `from` to `to`. */
function weekdays(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) {
    const dow = new Date(`${d}T00:00:00Z`).getUTCDay();
    if (dow !== 0 && dow !== 6) out.push(d);
  }
  return out;
}

const CALENDAR = weekdays('2014-01-01', '2017-06-30');

/** A benchmark path, and tickers that follow it with noise plus `jumps` (date → return that day). */
function market(seed: number, tickers: Record<string, Map<string, number>>): Map<string, PricePoint[]> {
  const next = uniform(seed);
  const bench: number[] = CALENDAR.map(() => (next() - 0.5) * 0.02);
  const path = (returns: readonly number[]): PricePoint[] => {
    let level = 100;
    return CALENDAR.map((date, i) => {
      if (i > 0) level *= 1 + (returns[i] ?? 0);
      return { date, adjClose: level };
    });
  };
  const out = new Map<string, PricePoint[]>();
  for (const b of ['XAR', 'ITA', 'SPY']) out.set(b, path(bench));
  for (const [ticker, jumps] of Object.entries(tickers)) {
    out.set(
      ticker,
      path(CALENDAR.map((date, i) => (bench[i] ?? 0) + (next() - 0.5) * 0.01 + (jumps.get(date) ?? 0))),
    );
  }
  return out;
}

/**
 * Two companies with a year of weekly history, then pages every seventh trading day from June 2016:
 * one company announces a large value (a top-quartile score), the other a small one, taking turns.
 */
function scenario(jump: number) {
  const events: ScoreInput[] = [];
  for (const ticker of ['AAA', 'BBB']) {
    for (let d = '2015-06-01'; d < '2016-06-01'; d = addDays(d, 7)) events.push(ev(ticker, d, 400_000_000));
  }
  const jumps: Record<string, Map<string, number>> = { AAA: new Map(), BBB: new Map(), NOC: new Map() };
  const pages = CALENDAR.filter((d) => d >= '2016-06-01' && d <= '2016-12-31').filter((_, i) => i % 7 === 0);
  pages.forEach((date, i) => {
    const [big, small] = i % 2 === 0 ? ['AAA', 'BBB'] : ['BBB', 'AAA'];
    events.push(ev(big, date, 500_000_000), ev(small, date, 10_000_000, { kind: 'option' }));
    // The reaction comes the trading day after the 17:00 page.
    const after = CALENDAR[CALENDAR.indexOf(date) + 1];
    if (after) jumps[big]?.set(after, jump);
  });
  // Left out by the universe rules, one each.
  const rtx = ev('RTX', '2016-07-01', 100_000_000);
  const orbital = ev('NOC', '2016-07-05', 100_000_000, { recipient: 'Orbital ATK Inc.' });
  const noc = ev('NOC', '2016-07-06', 100_000_000);
  const unknown = ev('ZZZ', '2016-07-07', 100_000_000);
  const later = ev('NEW', '2016-07-08', 100_000_000);
  events.push(rtx, orbital, noc, unknown, later);
  const closes = market(11, jumps);
  closes.set('NEW', [{ date: '2017-01-03', adjClose: 10 }]);
  return { events, closes, pages, noc, orbital };
}

describe('the study of a period', () => {
  const period = { from: '2016-06-01', to: '2016-12-31' };

  test('a reaction to large pages clears the bar, scored and grouped with the in-sample cut points', () => {
    const { events, closes, pages } = scenario(0.02);
    const evaluation = evaluateAnnouncements(events, '2015-06-01', closes, period);
    assert.deepEqual(evaluation.excluded, { ownership: 1, price_series: 1, no_series: 1, not_listed: 1 });
    // NOC's own event is studied: no NOC history once Orbital ATK's is left out, so its score is +∞ (Q4).
    assert.equal(evaluation.result.events, 2 * pages.length + 1);
    assert.equal(evaluation.inPeriod, 2 * pages.length + 5);
    assert.deepEqual(evaluation.cuts, SCORE_CUTS);
    const quartiles = evaluation.result.groupings.find((g) => g.name === SCORE_GROUPING);
    const groups = evaluation.result.rows.map((r) => quartiles?.groupOf(r.event));
    assert.deepEqual(new Set(groups), new Set(['Q1', 'Q4']));

    const verdict = barVerdict(evaluation);
    assert.ok(verdict.met, JSON.stringify(verdict));
    assert.ok((verdict.xar?.diff ?? 0) > 0.015 && (verdict.xar?.diff ?? 0) < 0.025);
    assert.equal(verdict.xar?.dates, pages.length + 1, "each page's date, and NOC's");
    assert.ok((verdict.spyMarket?.diff ?? 0) > 0.01);
    // Nothing before the page: the pre-event window shows no difference worth the name.
    const pre = scoreContrast(evaluation, { ticker: 'XAR', model: 'adjusted' }, '−1→0');
    assert.ok(Math.abs(pre?.diff ?? 1) < 0.005, JSON.stringify(pre));
    // Within one kind the two quartiles are not both present: no contrast.
    assert.equal(
      scoreContrast(
        evaluation,
        { ticker: 'XAR', model: 'adjusted' },
        ANNOUNCEMENT_BAR.window,
        kindScoreGrouping('award'),
      ),
      null,
    );

    const meta = { source: 'test', prices: 'synthetic' };
    const md = renderEvaluationMarkdown(evaluation, meta);
    assert.match(md, /^# Announcement study: ann-size-1, 2016-06-01 → 2016-12-31\n/);
    assert.match(md, /\*\*Met\.\*\*/);
    assert.match(md, /\| left out: the ticker's price series is another company's at that date \| 1 \|/);
    assert.match(md, /## By score quartile, option only/);
    const csv = renderEvaluationCsv(evaluation).trim().split('\n');
    assert.equal(csv.length, 1 + evaluation.result.events);
    assert.match(
      csv[0] ?? '',
      /^id,ticker,date,kind,page_value,trailing_value,score,relative_size,quartile,ar_xar/,
    );
    const svg = renderEvaluationSvg(evaluation);
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(!svg.includes('NaN'));
  });

  test('no reaction does not clear the bar', () => {
    const { events, closes } = scenario(0);
    const evaluation = evaluateAnnouncements(events, '2015-06-01', closes, period);
    const verdict = barVerdict(evaluation);
    assert.equal(verdict.met, false);
    assert.ok(Math.abs(verdict.xar?.diff ?? 1) < ANNOUNCEMENT_BAR.minDiff, JSON.stringify(verdict));
    assert.match(renderEvaluationMarkdown(evaluation, { source: 't', prices: 'p' }), /\*\*Not met\.\*\*/);
  });

  test("a recipient not yet owned is out of the owner's trailing total too", () => {
    const { events, closes, noc, orbital } = scenario(0.02);
    const without = events.filter((e) => e.id !== orbital.id);
    const a = evaluateAnnouncements(events, '2015-06-01', closes, period).scores.get(noc.id);
    const b = evaluateAnnouncements(without, '2015-06-01', closes, period).scores.get(noc.id);
    assert.deepEqual(a, b);
    assert.equal(a?.trailingValue, 0);
  });

  test('events dated after the period change nothing in it', () => {
    const { events, closes } = scenario(0.02);
    const before = evaluateAnnouncements(events, '2015-06-01', closes, period);
    const more = [...events, ev('AAA', '2017-01-03', 9_000_000_000), ev('BBB', '2017-02-01', 1)];
    const after = evaluateAnnouncements(more, '2015-06-01', closes, period);
    assert.deepEqual([...after.scores], [...before.scores]);
    assert.deepEqual(barVerdict(after), barVerdict(before));
  });
});
