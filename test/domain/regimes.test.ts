import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeRegime, REGIME_VERSION, realizedVol, sma } from '../../src/domain/regimes.ts';
import { type Candle, REGIME_NAMES } from '../../src/domain/types.ts';

const DAY = 86_400_000;

/** Consecutive calendar days from 2020-01-01 (weekends do not matter to the regime maths). */
function candles(closes: number[], start = Date.UTC(2020, 0, 1)): Candle[] {
  return closes.map((c, i) => ({
    date: new Date(start + i * DAY).toISOString().slice(0, 10),
    open: c,
    high: c,
    low: c,
    close: c,
    adjClose: c,
    volume: 1000,
  }));
}

const geometric = (n: number, g: number, p0 = 100): number[] =>
  Array.from({ length: n }, (_, i) => p0 * (1 + g) ** i);
const zigzag = (n: number, amp: number, p0 = 100): number[] =>
  Array.from({ length: n }, (_, i) => p0 * (i % 2 === 0 ? 1 : 1 + amp));

test('sma averages the last n values', () => {
  assert.equal(sma([1, 2, 3, 4, 5], 3), 4); // (3+4+5)/3
  assert.equal(sma([1, 2], 3), null);
  assert.equal(sma([1, 2], 0), null);
});

test('realizedVol annualizes the sample standard deviation of log returns', () => {
  // r1 = ln(110/100) = 0.0953102, r2 = ln(99/110) = -0.1053605, mean = -0.0050252,
  // sample variance = 2·0.1003353² / 1 = 0.0201344, × 252 = 5.07386, sqrt = 2.252523.
  const vol = realizedVol([100, 110, 99], 2);
  assert.ok(vol !== null && Math.abs(vol - 2.252523) < 1e-6, String(vol));
  assert.equal(realizedVol([100, 100, 100, 100], 3), 0);
  assert.equal(realizedVol([100, 101], 2), null);
});

test('needs 200 SPY candles up to the as-of date', () => {
  const spy = candles(geometric(250, 0.001));
  const asOf199 = spy[198]?.date ?? '';
  assert.equal(computeRegime({ asOf: asOf199, spy, xli: [], ita: [] }), null);
  assert.notEqual(computeRegime({ asOf: spy[199]?.date ?? '', spy, xli: [], ita: [] }), null);
});

test('computes hand-checkable features on a steady 0.1 %/day climb', () => {
  const spy = candles(geometric(300, 0.001));
  const asOf = spy[299]?.date ?? '';
  const r = computeRegime({ asOf, spy, xli: spy, ita: [] });
  assert.ok(r);
  assert.equal(r.asOf, asOf);
  assert.equal(r.benchmark, 'SPY');
  assert.equal(r.version, REGIME_VERSION);
  // 1.001^20 − 1 = 0.0201911; 1.001^60 − 1 = 0.0618047.
  assert.equal(r.features.ret_20d, 0.020191);
  assert.equal(r.features.ret_60d, 0.061805);
  assert.equal(r.features.vol_20d, 0); // every log return is identical
  assert.equal(r.features.vol_pct_1y, 0.5); // all 252 vols tie → mid-rank
  assert.equal(r.features.drawdown, 0); // today is the 252-day high
  assert.equal(r.features.xli_rel_60d, 0); // XLI is SPY here
  assert.equal(r.features.ita_rel_60d, 0); // missing → 0
  // sma50/sma200 of a geometric series: mean of p·1.001^k; trend ≈ 1.001^75 − 1 ≈ 0.0778.
  assert.ok(Math.abs((r.features.trend ?? 0) - 0.0778) < 0.002, String(r.features.trend));
});

test('scores are non-negative, sum to 1, and the dominant regime is their argmax', () => {
  const r = computeRegime({ asOf: '2030-01-01', spy: candles(geometric(300, 0.001)), xli: [], ita: [] });
  assert.ok(r);
  const values = REGIME_NAMES.map((n) => r.scores[n]);
  assert.ok(values.every((v) => v >= 0));
  assert.ok(Math.abs(values.reduce((a, b) => a + b, 0) - 1) < 1e-5);
  assert.equal(r.dominant, REGIME_NAMES[values.indexOf(Math.max(...values))]);
});

test('labels a strong climb risk_on and a slide risk_off', () => {
  const up = computeRegime({ asOf: '2030-01-01', spy: candles(geometric(300, 0.003)), xli: [], ita: [] });
  const down = computeRegime({ asOf: '2030-01-01', spy: candles(geometric(300, -0.003)), xli: [], ita: [] });
  assert.equal(up?.dominant, 'risk_on');
  assert.equal(down?.dominant, 'risk_off');
  assert.ok((down?.features.drawdown ?? 0) < -0.5); // 0.997^251 − 1 = −0.53
});

test('labels a sudden burst of swings high_volatility and a quiet flat market range_bound', () => {
  const burst = candles([...zigzag(280, 0.002), ...zigzag(20, 0.05)]);
  const calm = candles(zigzag(300, 0.005));
  assert.equal(
    computeRegime({ asOf: '2030-01-01', spy: burst, xli: [], ita: [] })?.dominant,
    'high_volatility',
  );
  assert.equal(computeRegime({ asOf: '2030-01-01', spy: calm, xli: [], ita: [] })?.dominant, 'range_bound');
});

test('sector relative strength is the 60-day return minus SPY’s', () => {
  const spy = candles(geometric(300, 0));
  const ita = candles(geometric(300, 0.001));
  const r = computeRegime({ asOf: '2030-01-01', spy, xli: [], ita });
  assert.equal(r?.features.ita_rel_60d, 0.061805); // 1.001^60 − 1 − 0
});

test('candles after the as-of date change nothing (no look-ahead)', () => {
  const history = candles(geometric(260, 0.001));
  const asOf = history[259]?.date ?? '';
  const future = candles(geometric(60, -0.05, 50), Date.UTC(2020, 0, 1) + 260 * DAY);
  const before = computeRegime({ asOf, spy: history, xli: history, ita: history });
  const after = computeRegime({
    asOf,
    spy: [...history, ...future],
    xli: [...history, ...future],
    ita: [...future, ...history], // out of order on purpose
  });
  assert.deepEqual(after, before);
});

test('one series reused for many dates gives what a fresh copy or a shuffled copy gives', () => {
  const spy = candles([...geometric(300, 0.002), ...zigzag(200, 0.04, 180), ...geometric(300, -0.001, 190)]);
  const xli = candles(geometric(800, 0.0015));
  const ita = candles(zigzag(800, 0.01));
  const shuffled = (series: Candle[]) => series.map((_, i) => series[(i * 7) % series.length] as Candle);
  for (const day of [199, 250, 420, 555, 799]) {
    const asOf = spy[day]?.date ?? '';
    const reused = computeRegime({ asOf, spy, xli, ita });
    assert.deepEqual(reused, computeRegime({ asOf, spy: [...spy], xli: [...xli], ita: [...ita] }));
    assert.deepEqual(
      reused,
      computeRegime({ asOf, spy: shuffled(spy), xli: shuffled(xli), ita: shuffled(ita) }),
    );
  }
});
