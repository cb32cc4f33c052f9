import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PLACEBO_SHIFTS, type PlaceboUnit, placeboTest } from '../../src/evaluation/placebo.ts';

/** Deterministic noise in [−0.01, 0.01]. */
const noise = (a: number, b: number) => (((Math.sin(a * 12.9898 + b * 78.233) * 43758.5453) % 1) * 0.02) / 2;

/** 400 events on 200 dates (from index 100), half top, half bottom, over two tickers. */
function units(topTicker = (i: number) => (i % 4 < 2 ? 'AAA' : 'BBB')): PlaceboUnit[] {
  return Array.from({ length: 400 }, (_, i) => ({
    ticker: i % 2 === 0 ? topTicker(i) : i % 4 < 2 ? 'BBB' : 'AAA',
    day0: 100 + Math.floor(i / 2),
    group: i % 2 === 0 ? ('top' as const) : ('bottom' as const),
  }));
}

describe('placebo test', () => {
  test('38 shifts of ±6 … ±60 trading days, none inside the real 0→+5 window', () => {
    assert.equal(PLACEBO_SHIFTS.length, 38);
    assert.deepEqual([Math.min(...PLACEBO_SHIFTS), Math.max(...PLACEBO_SHIFTS)], [-60, 60]);
    assert.ok(PLACEBO_SHIFTS.every((k) => Math.abs(k) >= 6));
  });

  test('an effect on the real dates only beats every placebo and is evidence', () => {
    // The news moves the stock on the event's own date only: a moved date finds none.
    const r = placeboTest(
      units(),
      (u, d) =>
        noise(d, u.ticker.length + (u.group === 'top' ? 1 : 0)) +
        (u.group === 'top' && d === u.day0 ? 0.01 : 0),
    );
    assert.equal(r.percentile, 1);
    assert.ok((r.real.t ?? 0) >= 2.5, `t ${r.real.t}`);
    assert.equal(r.evidence, true);
    assert.match(r.verdict, /^Evidence:/);
  });

  test('a contrast that is which company, not which date: placebos match it, no evidence, none within companies', () => {
    // Every top event is AAA, every bottom one BBB, and AAA drifts up on every date.
    const list = units(() => 'AAA').map((u) => (u.group === 'bottom' ? { ...u, ticker: 'BBB' } : u));
    const r = placeboTest(
      list,
      (u, d) => (u.ticker === 'AAA' ? 0.005 : 0) + noise(d, u.ticker === 'AAA' ? 1 : 2),
    );
    assert.ok((r.real.diff ?? 0) > 0.004);
    assert.ok((r.percentile ?? 1) < 0.95, `percentile ${r.percentile}`);
    assert.equal(r.evidence, false);
    assert.match(r.verdict, /^No evidence:/);
    assert.ok(Math.abs(r.demeaned.diff ?? 1) < 1e-12, 'demeaned by ticker, nothing is left');
  });

  test('unpriced windows are left out; an empty group gives no contrast and no evidence', () => {
    const list = units().filter((u) => u.group === 'top');
    const r = placeboTest(list, () => 0.01);
    assert.equal(r.real.diff, null);
    assert.equal(r.percentile, null);
    assert.equal(r.evidence, false);
    const half = placeboTest(units(), (u, d) => (d % 2 === 0 ? null : noise(d, u.day0)));
    assert.ok(half.real.n < 400 && half.real.n > 0);
  });
});
