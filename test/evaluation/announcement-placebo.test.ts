import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addDays } from '../../src/domain/trailing.ts';
import { announcementPlacebo } from '../../src/evaluation/announcement-placebo.ts';
import { type AnnouncementEvent, scoreQuartiles } from '../../src/evaluation/announcement-study.ts';
import type { PricePoint } from '../../src/evaluation/event-study.ts';

/** Weekday closes from `start`, `n` of them, moving by `ret(i)`. */
function series(start: string, n: number, ret: (i: number) => number): PricePoint[] {
  const out: PricePoint[] = [];
  let close = 100;
  for (let d = start; out.length < n; d = addDays(d, 1)) {
    const day = new Date(`${d}T00:00:00Z`).getUTCDay();
    if (day === 0 || day === 6) continue;
    if (out.length > 0) close *= 1 + ret(out.length);
    out.push({ date: d, adjClose: close });
  }
  return out;
}

const events = (dates: readonly string[]): AnnouncementEvent[] =>
  dates.flatMap((date, i) => [
    { id: `t${i}`, ticker: 'AAA', date, score: 1, kind: 'award', relativeSize: null },
    { id: `b${i}`, ticker: 'BBB', date, score: 0.0001, kind: 'award', relativeSize: null },
  ]);

describe('announcement placebo benchmark', () => {
  const spy = series('2001-01-02', 1500, (i) => (i % 3 ? 0.002 : -0.003));
  const closes = new Map([
    ['SPY', spy],
    ['XAR', series('2011-09-29', 600, (i) => (i % 2 ? 0.001 : -0.001))],
    ['AAA', series('2001-01-02', 1500, (i) => (i % 5 ? 0.004 : -0.01))],
    ['BBB', series('2001-01-02', 1500, (i) => (i % 4 ? 0.001 : -0.002))],
  ]);
  const quartiles = scoreQuartiles([0.001, 0.01, 0.1]);
  const dates = spy.slice(200, 400).map((p) => p.date);

  test('events before XAR was listed are judged against SPY, with every placebo', () => {
    const r = announcementPlacebo(events(dates), closes, quartiles);
    assert.ok(r);
    assert.equal(r.benchmark, 'SPY');
    assert.equal(r.placebos.length, 38);
    assert.equal(r.real.n, 2 * dates.length);
    assert.match(r.verdict, /^(No evidence|Evidence): /);
  });

  test('events after it are judged against XAR', () => {
    const later = (closes.get('XAR') ?? []).slice(100, 150).map((p) => p.date);
    const withLater = new Map([
      ...closes,
      ['AAA', series('2011-01-03', 1000, () => 0.001)],
      ['BBB', series('2011-01-03', 1000, () => 0.0005)],
    ]);
    assert.equal(announcementPlacebo(events(later), withLater, quartiles)?.benchmark, 'XAR');
  });
});
