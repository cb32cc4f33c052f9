import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  day0Index,
  newYorkDay,
  PREDICTION_MODEL,
  type PricePoint,
  predict,
  predictAt,
  realizedAt,
} from '../../src/domain/prediction.ts';
import { addDays } from '../../src/domain/trailing.ts';

/** Weekday dates from `start`, `n` of them. */
function weekdays(start: string, n: number): string[] {
  const out: string[] = [];
  for (let d = start; out.length < n; d = addDays(d, 1)) {
    const day = new Date(`${d}T00:00:00Z`).getUTCDay();
    if (day !== 0 && day !== 6) out.push(d);
  }
  return out;
}

/** A series with daily returns `ret(i)` (first close 100). */
function series(dates: string[], ret: (i: number) => number): PricePoint[] {
  let close = 100;
  return dates.map((date, i) => {
    if (i > 0) close *= 1 + ret(i);
    return { date, adjClose: close };
  });
}

const dates = weekdays('2018-01-01', 400);
const spy = series(dates, (i) => (i % 2 ? 0.004 : -0.003));
const calm = series(dates, (i) => (i % 2 ? 0.006 : -0.005));
const wild = series(dates, (i) => (i % 2 ? 0.03 : -0.028));

describe('prediction engine: timing', () => {
  test('the New York day and whether its close has passed, across daylight saving', () => {
    assert.deepEqual(newYorkDay(new Date('2019-01-15T22:00:00Z')), { date: '2019-01-15', afterClose: true });
    assert.deepEqual(newYorkDay(new Date('2019-07-15T19:59:00Z')), { date: '2019-07-15', afterClose: false });
    assert.deepEqual(newYorkDay(new Date('2019-07-15T20:00:00Z')), { date: '2019-07-15', afterClose: true });
    assert.deepEqual(newYorkDay(new Date('2019-01-16T03:00:00Z')), { date: '2019-01-15', afterClose: true });
  });

  test('day 0 is the last close at or before the moment; none when the calendar stops short of it', () => {
    const cal = [{ date: '2019-01-14' }, { date: '2019-01-15' }, { date: '2019-01-16' }];
    assert.equal(day0Index(cal, new Date('2019-01-15T22:00:00Z')), 1, 'after the close: that day');
    assert.equal(day0Index(cal, new Date('2019-01-15T15:00:00Z')), 0, 'before the close: the day before');
    assert.equal(day0Index(cal, new Date('2019-01-17T22:00:00Z')), null, 'the 17th may be a trading day');
    assert.equal(day0Index(cal, new Date('2019-01-14T14:00:00Z')), null, 'before the first close');
  });
});

describe('prediction engine: the interval', () => {
  test('a volatile ticker gets a wider interval than a calm one; the centre is 0', () => {
    const a = predictAt(calm, spy, 300);
    const b = predictAt(wild, spy, 300);
    assert.ok(a.ok && b.ok);
    assert.equal(a.expected, 0);
    assert.ok(a.low < 0 && a.high > 0);
    assert.ok(b.high - b.low > 2 * (a.high - a.low), `${b.high - b.low} vs ${a.high - a.low}`);
  });

  test('reads nothing after day 0: later closes changed, the prediction is the same', () => {
    const changed = wild.map((p, i) => (i > 300 ? { ...p, adjClose: p.adjClose * (1 + i / 50) } : p));
    const spyChanged = spy.map((p, i) => (i > 300 ? { ...p, adjClose: p.adjClose * 3 } : p));
    assert.deepEqual(predictAt(changed, spyChanged, 300), predictAt(wild, spy, 300));
    const at = new Date(`${dates[300]}T22:00:00Z`);
    assert.deepEqual(predict(changed, spyChanged, at), predictAt(wild, spy, 300));
  });

  test('short history, a missing day-0 close and an unknown calendar are refused with a reason', () => {
    assert.deepEqual(predictAt(calm, spy, 30), { ok: false, reason: 'short_history' });
    const gap = calm.filter((_, i) => i !== 300);
    assert.deepEqual(predictAt(gap, spy, 300), { ok: false, reason: 'no_close_on_day0' });
    const late = new Date(`${addDays(dates[dates.length - 1] ?? '', 3)}T22:00:00Z`);
    assert.deepEqual(predict(calm, spy, late), { ok: false, reason: 'calendar_not_known' });
  });

  test('realized abnormal return: ticker minus benchmark from day 0 to the horizon; null before', () => {
    const h = PREDICTION_MODEL.horizonDays;
    const r = realizedAt(wild, spy, 300, h);
    const ratio = (s: PricePoint[]) => (s[300 + h]?.adjClose ?? 0) / (s[300]?.adjClose ?? 1);
    assert.ok(r !== null && Math.abs(r - (ratio(wild) - ratio(spy))) < 1e-12);
    assert.equal(realizedAt(wild, spy, dates.length - 2, h), null);
  });
});
