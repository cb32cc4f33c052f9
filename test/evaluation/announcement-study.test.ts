import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderAnnouncementMarkdown } from '../../src/evaluation/announcement-report.ts';
import {
  type AnnouncementEvent,
  announcementDay0,
  type BenchmarkSpec,
  bucketIndex,
  cutPoints,
  type EventWindow,
  estimateMarketModel,
  kindGrouping,
  priceAnnouncement,
  quartileCuts,
  rangeLabels,
  relativeSizeGrouping,
  resultKey,
  runAnnouncementStudy,
  scoreQuartiles,
  windowReturn,
} from '../../src/evaluation/announcement-study.ts';
import type { PricePoint } from '../../src/evaluation/event-study.ts';
import {
  type Clustered,
  clusteredDifference,
  clusteredMean,
  olsLine,
  tStatistic,
  welchT,
} from '../../src/evaluation/stats.ts';

const close = (a: number, b: number, eps = 1e-12): void => assert.ok(Math.abs(a - b) < eps, `${a} ≠ ${b}`);

/** `n` weekdays from `start` (inclusive), leaving out `holidays`. */
function weekdays(start: string, n: number, holidays: readonly string[] = []): string[] {
  const out: string[] = [];
  const d = new Date(`${start}T00:00:00Z`);
  while (out.length < n) {
    const date = d.toISOString().slice(0, 10);
    const dow = d.getUTCDay();
    if (dow !== 0 && dow !== 6 && !holidays.includes(date)) out.push(date);
    d.setUTCDate(d.getUTCDate() + 1);
  }
  return out;
}

const series = (dates: readonly string[], prices: readonly number[]): PricePoint[] =>
  prices.map((adjClose, i) => ({ date: dates[i] ?? '', adjClose }));

/** Prices from daily returns, starting at `first`. */
function compound(first: number, returns: readonly number[]): number[] {
  const out = [first];
  for (const r of returns) out.push((out[out.length - 1] ?? 0) * (1 + r));
  return out;
}

const event = (over: Partial<AnnouncementEvent> & { ticker: string; date: string }): AnnouncementEvent => ({
  id: `${over.ticker}-${over.date}`,
  score: 50,
  kind: 'new',
  relativeSize: 0.01,
  ...over,
});

const WINDOW = (from: number, to: number): EventWindow => ({
  label: `${from}→${to}`,
  from,
  to,
});
const ADJ: BenchmarkSpec = { ticker: 'BENCH', model: 'adjusted' };
const MKT: BenchmarkSpec = { ticker: 'BENCH', model: 'market' };

// July 2024: Independence Day (Thursday 07-04) is not a trading day.
const JULY = weekdays('2024-07-01', 9, ['2024-07-04']);

test('day 0 is the announcement date when it trades, else the last trading day before it', () => {
  assert.deepEqual(JULY, [
    '2024-07-01',
    '2024-07-02',
    '2024-07-03',
    '2024-07-05',
    '2024-07-08',
    '2024-07-09',
    '2024-07-10',
    '2024-07-11',
    '2024-07-12',
  ]);
  const calendar = JULY.map((date) => ({ date }));
  const day0 = (date: string) => {
    const d = announcementDay0(calendar, date);
    return d.ok ? d.date : d.reason;
  };
  // Posted after Wednesday's close: Wednesday's close is the last price before the news.
  assert.equal(day0('2024-07-03'), '2024-07-03');
  // A holiday or weekend page: the news first meets the market after the last trading day before it.
  assert.equal(day0('2024-07-04'), '2024-07-03');
  assert.equal(day0('2024-07-06'), '2024-07-05');
  assert.equal(day0('2024-07-07'), '2024-07-05');
  assert.equal(day0('2024-07-12'), '2024-07-12');
  assert.equal(day0('2024-06-28'), 'before_benchmark_history');
  // After the last candle a trading day may be missing from the data: day 0 is unknown.
  assert.equal(day0('2024-07-13'), 'after_benchmark_history');
  assert.equal(announcementDay0([], '2024-07-03').ok, false);
});

test('windows run from close(day from) to close(day to); AR is the ticker minus the benchmark', () => {
  const ticker = series(JULY, [100, 101, 102, 105, 104, 106, 107, 108, 110]);
  const bench = series(JULY, [200, 202, 201, 202, 204, 203, 205, 206, 207]);
  const d0 = announcementDay0(bench, '2024-07-03');
  assert.ok(d0.ok);
  assert.equal(d0.index, 2);
  const pre = windowReturn(ticker, bench, d0.index, WINDOW(-1, 0));
  assert.ok(pre.ok);
  assert.deepEqual([pre.start, pre.end, pre.days], ['2024-07-02', '2024-07-03', 1]);
  close(pre.tickerReturn, 102 / 101 - 1);
  close(pre.benchmarkReturn, 201 / 202 - 1);
  const next = windowReturn(ticker, bench, d0.index, WINDOW(0, 1));
  assert.ok(next.ok);
  // Day 0's own move (101 → 102) happened before the news and is not in the window.
  assert.deepEqual([next.start, next.end], ['2024-07-03', '2024-07-05']);
  close(next.tickerReturn, 105 / 102 - 1);
  const five = windowReturn(ticker, bench, d0.index, WINDOW(0, 5));
  assert.ok(five.ok);
  assert.deepEqual([five.start, five.end, five.days], ['2024-07-03', '2024-07-11', 5]);
  close(five.tickerReturn, 108 / 102 - 1);
  close(five.benchmarkReturn, 206 / 201 - 1);

  const prices = new Map([
    ['TKR', ticker],
    ['BENCH', bench],
  ]);
  const windows = [WINDOW(-1, 0), WINDOW(0, 1), WINDOW(0, 5)];
  const wednesday = priceAnnouncement(event({ ticker: 'TKR', date: '2024-07-03' }), prices, [ADJ], windows);
  const holiday = priceAnnouncement(event({ ticker: 'TKR', date: '2024-07-04' }), prices, [ADJ], windows);
  for (const w of windows) {
    const a = wednesday.results.get(resultKey(ADJ, w));
    assert.ok(a?.ok);
    assert.equal(a.day0, '2024-07-03');
    close(a.abnormal, a.tickerReturn - a.benchmarkReturn);
    assert.deepEqual(holiday.results.get(resultKey(ADJ, w)), a);
  }
  const fiveDay = wednesday.results.get(resultKey(ADJ, WINDOW(0, 5)));
  close(fiveDay?.ok ? fiveDay.abnormal : Number.NaN, 108 / 102 - 206 / 201);
  assert.throws(() => windowReturn(ticker, bench, 2, WINDOW(0, 0)), RangeError);
});

test('OLS recovers a known line', () => {
  const line = olsLine([0, 1, 2, 3], [1, 3, 5, 7]);
  assert.ok(line);
  close(line.alpha, 1);
  close(line.beta, 2);
  // y = 1 + 2x ± 1: residuals (+1, −1, −1, +1) are orthogonal to x, so the line is unchanged.
  const noisy = olsLine([0, 1, 2, 3], [2, 2, 4, 8]);
  close(noisy?.alpha ?? Number.NaN, 1);
  close(noisy?.beta ?? Number.NaN, 2);
  assert.equal(olsLine([1, 1, 1], [1, 2, 3]), null);
  assert.equal(olsLine([1], [1]), null);
});

// 400 trading days with varied benchmark returns; the ticker follows α + β·r_m exactly.
const LONG = weekdays('2020-01-01', 400);
const MARKET_RETURNS = Array.from(
  { length: 399 },
  (_, t) => 0.01 * Math.sin(1.3 * t) + 0.004 * Math.cos(0.7 * t),
);
const ALPHA = 0.0004;
const BETA = 1.4;
const LONG_BENCH = series(LONG, compound(300, MARKET_RETURNS));
const LONG_TICKER = series(
  LONG,
  compound(
    50,
    MARKET_RETURNS.map((r) => ALPHA + BETA * r),
  ),
);

test('the market model is estimated on days −269 … −20 and gives AR = R − (h·α + β·R_m)', () => {
  const d0 = 300;
  const fit = estimateMarketModel(LONG_TICKER, LONG_BENCH, d0);
  assert.ok(fit.ok);
  close(fit.alpha, ALPHA, 1e-12);
  close(fit.beta, BETA, 1e-10);
  assert.equal(fit.days, 250);
  assert.equal(fit.from, LONG[31]);
  assert.equal(fit.to, LONG[280]);
  // A jump in the last 20 days before day 0 (or after it) is outside the estimation window.
  const jumped = LONG_TICKER.map((p, i) => (i >= 281 ? { ...p, adjClose: p.adjClose * 1.1 } : p));
  const same = estimateMarketModel(jumped, LONG_BENCH, d0);
  assert.ok(same.ok);
  close(same.alpha, fit.alpha, 1e-15);
  close(same.beta, fit.beta, 1e-15);
  // …while a jump on day −20 is inside it.
  const inside = LONG_TICKER.map((p, i) => (i >= 280 ? { ...p, adjClose: p.adjClose * 1.1 } : p));
  const moved = estimateMarketModel(inside, LONG_BENCH, d0);
  assert.ok(moved.ok);
  assert.ok(Math.abs(moved.alpha - ALPHA) > 1e-5);

  // A 5 % news jump on day +1: the market model isolates it, the market-adjusted AR also carries
  // (β − 1)·R_m and the intercept.
  const news = LONG_TICKER.map((p, i) => (i > d0 ? { ...p, adjClose: p.adjClose * 1.05 } : p));
  const prices = new Map([
    ['TKR', news],
    ['BENCH', LONG_BENCH],
  ]);
  const windows = [WINDOW(0, 1), WINDOW(0, 5)];
  const row = priceAnnouncement(event({ ticker: 'TKR', date: LONG[d0] ?? '' }), prices, [ADJ, MKT], windows);
  for (const w of windows) {
    const h = w.to - w.from;
    const ri = (news[d0 + h]?.adjClose ?? 0) / (news[d0]?.adjClose ?? 1) - 1;
    const rm = (LONG_BENCH[d0 + h]?.adjClose ?? 0) / (LONG_BENCH[d0]?.adjClose ?? 1) - 1;
    const market = row.results.get(resultKey(MKT, w));
    const adjusted = row.results.get(resultKey(ADJ, w));
    assert.ok(market?.ok && adjusted?.ok);
    close(market.expected, h * ALPHA + BETA * rm, 1e-10);
    close(market.abnormal, ri - (h * ALPHA + BETA * rm), 1e-10);
    close(adjusted.abnormal, ri - rm);
  }
  // Over one day the compounded path is exactly α + β·r_m, so the AR is the jump on top of it.
  const one = row.results.get(resultKey(MKT, WINDOW(0, 1)));
  assert.ok(one?.ok);
  close(one.abnormal, 0.05 * (1 + ALPHA + BETA * (MARKET_RETURNS[d0] ?? 0)), 1e-10);
});

test('a short or flat estimation window excludes the event with its reason', () => {
  // Day 0 at index 140: returns of days 1 … 120 are all there are, just enough; at 139 one short.
  const at140 = estimateMarketModel(LONG_TICKER, LONG_BENCH, 140);
  assert.ok(at140.ok);
  assert.equal(at140.days, 120);
  assert.deepEqual(estimateMarketModel(LONG_TICKER, LONG_BENCH, 139), {
    ok: false,
    reason: 'short_estimation_window',
  });
  assert.equal(estimateMarketModel(LONG_TICKER, LONG_BENCH, 5).ok, false);
  // A missing ticker candle loses the returns into and out of it; nothing is bridged.
  const gap = LONG_TICKER.filter((_, i) => i !== 200);
  const fit = estimateMarketModel(gap, LONG_BENCH, 300);
  assert.ok(fit.ok);
  assert.equal(fit.days, 248);
  const sparse = LONG_TICKER.filter((_, i) => i < 31 || i > 160);
  assert.deepEqual(estimateMarketModel(sparse, LONG_BENCH, 300), {
    ok: false,
    reason: 'short_estimation_window',
  });
  const flat = series(
    LONG,
    LONG.map(() => 100),
  );
  assert.deepEqual(estimateMarketModel(LONG_TICKER, flat, 300), {
    ok: false,
    reason: 'flat_estimation_benchmark',
  });
});

test('missing prices exclude an event with its reason, per benchmark and window', () => {
  const prices = new Map([
    ['TKR', LONG_TICKER],
    ['GAPPY', LONG_TICKER.filter((p) => p.date !== LONG[302])],
    ['BENCH', LONG_BENCH],
  ]);
  const windows = [WINDOW(-1, 0), WINDOW(0, 1), WINDOW(0, 5), WINDOW(0, 20)];
  const reasons = (e: AnnouncementEvent, b: BenchmarkSpec = ADJ) => {
    const row = priceAnnouncement(e, prices, [b], windows);
    return windows.map((w) => {
      const r = row.results.get(resultKey(b, w));
      return r?.ok ? 'priced' : r?.reason;
    });
  };
  assert.deepEqual(
    reasons(event({ ticker: 'NOPE', date: LONG[300] ?? '' })),
    Array(4).fill('no_ticker_candles'),
  );
  assert.deepEqual(reasons(event({ ticker: 'GAPPY', date: LONG[300] ?? '' })), [
    'priced',
    'priced',
    'ticker_gap',
    'ticker_gap',
  ]);
  // Near the end of the history the long window cannot be priced; the announcement after it has no day 0.
  assert.deepEqual(reasons(event({ ticker: 'TKR', date: LONG[390] ?? '' })), [
    'priced',
    'priced',
    'priced',
    'after_ticker_history',
  ]);
  assert.deepEqual(
    reasons(event({ ticker: 'TKR', date: '2030-01-01' })),
    Array(4).fill('after_benchmark_history'),
  );
  assert.deepEqual(
    reasons(event({ ticker: 'TKR', date: '2019-12-31' })),
    Array(4).fill('before_benchmark_history'),
  );
  // Day 0 = the first candle: no day −1 for the pre-event window.
  assert.deepEqual(reasons(event({ ticker: 'TKR', date: LONG[0] ?? '' })), [
    'before_benchmark_history',
    'priced',
    'priced',
    'priced',
  ]);
  // Priced windows, but too little history for the market model.
  assert.deepEqual(
    reasons(event({ ticker: 'TKR', date: LONG[100] ?? '' }), MKT),
    Array(4).fill('short_estimation_window'),
  );
  assert.deepEqual(
    reasons(event({ ticker: 'TKR', date: LONG[300] ?? '' }), { ticker: 'NOBENCH', model: 'market' }),
    Array(4).fill('no_benchmark_candles'),
  );
});

const obs = (pairs: readonly [string, number][]): Clustered[] =>
  pairs.map(([cluster, value]) => ({ cluster, value }));

test('clustered mean: hand-computed variance; singletons give the ordinary t', () => {
  // Dates A: 1, 3; B: 2; C: 6, 8. Mean 4; residual sums per date −4, −2, +6;
  // V = 3/2 · (16 + 4 + 36) / 5² = 3.36.
  const e = clusteredMean(
    obs([
      ['A', 1],
      ['A', 3],
      ['B', 2],
      ['C', 6],
      ['C', 8],
    ]),
  );
  close(e.estimate, 4);
  assert.equal(e.n, 5);
  assert.equal(e.clusters, 3);
  close(e.se, Math.sqrt(3.36));
  close(e.t, 4 / Math.sqrt(3.36)); // 2.18, against 3.07 when each value counts alone
  close(tStatistic([1, 3, 2, 6, 8]), 4 / Math.sqrt(8.5 / 5));
  // Each value its own cluster: V = s²/n exactly.
  const single = clusteredMean(
    obs([
      ['a', 0.01],
      ['b', 0.02],
      ['c', 0.03],
    ]),
  );
  close(single.t, tStatistic([0.01, 0.02, 0.03]));
  assert.ok(Number.isNaN(clusteredMean(obs([['A', 1]])).t));
  assert.ok(Number.isNaN(clusteredMean([]).t));
});

test('ten events on two dates are two observations: clustering cuts t from 3 to 1', () => {
  // Five events at +2 % on one date, five at 0 % on another: the iid t sees ten agreeing values.
  const values = [
    ...Array.from({ length: 5 }, () => ['d1', 0.02] as [string, number]),
    ...Array.from({ length: 5 }, () => ['d2', 0] as [string, number]),
  ];
  close(tStatistic(values.map(([, v]) => v)), 3, 1e-9);
  // Mean 1 %; residual sums ±0.05; V = 2/1 · 2 · 0.05² / 10² = 1e-4; se 1 %.
  const e = clusteredMean(obs(values));
  close(e.se, 0.01);
  close(e.t, 1, 1e-9);
  assert.equal(e.clusters, 2);
});

test('clustered top − bottom: hand-computed, and equal to the regression sandwich', () => {
  // Top: d1 4, d1 6, d2 2 (mean 4); bottom: d1 1, d2 −1, d3 3 (mean 1). Per date
  // c = S_top/3 − S_bottom/3: d1 (2 − 0)/3, d2 (−2 − (−2))/3 = 0, d3 (0 − 2)/3;
  // V = 3/2 · (4/9 + 0 + 4/9) = 4/3.
  const top = obs([
    ['d1', 4],
    ['d1', 6],
    ['d2', 2],
  ]);
  const bottom = obs([
    ['d1', 1],
    ['d2', -1],
    ['d3', 3],
  ]);
  const d = clusteredDifference(top, bottom);
  close(d.estimate, 3);
  close(d.se, Math.sqrt(4 / 3));
  close(d.t, 3 / Math.sqrt(4 / 3));
  assert.equal(d.clusters, 3);
  assert.equal(d.n, 6);

  // The same from the matrices: OLS of y on [1, D] with the clustered sandwich, on uneven data.
  const a = obs([
    ['x', 0.03],
    ['y', -0.01],
    ['y', 0.02],
    ['z', 0.05],
    ['w', 0.0],
  ]);
  const b = obs([
    ['x', -0.02],
    ['x', 0.01],
    ['v', 0.04],
    ['z', -0.03],
  ]);
  close(clusteredDifference(a, b).se, sandwichSlopeSe(a, b), 1e-15);
});

/** Slope SE of y on [1, D] (D = 1 for `a`) with the CR sandwich and G/(G−1), by plain 2×2 algebra. */
function sandwichSlopeSe(a: readonly Clustered[], b: readonly Clustered[]): number {
  const rows = [...a.map((o) => ({ ...o, d: 1 })), ...b.map((o) => ({ ...o, d: 0 }))];
  let [sxx00, sxx01, sxx11, sxy0, sxy1] = [0, 0, 0, 0, 0];
  for (const r of rows) {
    sxx00 += 1;
    sxx01 += r.d;
    sxx11 += r.d * r.d;
    sxy0 += r.value;
    sxy1 += r.d * r.value;
  }
  const det = sxx00 * sxx11 - sxx01 * sxx01;
  const inv = [
    [sxx11 / det, -sxx01 / det],
    [-sxx01 / det, sxx00 / det],
  ] as const;
  const b0 = inv[0][0] * sxy0 + inv[0][1] * sxy1;
  const b1 = inv[1][0] * sxy0 + inv[1][1] * sxy1;
  const scores = new Map<string, [number, number]>();
  for (const r of rows) {
    const e = r.value - b0 - b1 * r.d;
    const s = scores.get(r.cluster) ?? [0, 0];
    scores.set(r.cluster, [s[0] + e, s[1] + e * r.d]);
  }
  const meat = [
    [0, 0],
    [0, 0],
  ];
  for (const [u0, u1] of scores.values()) {
    meat[0] = [(meat[0]?.[0] ?? 0) + u0 * u0, (meat[0]?.[1] ?? 0) + u0 * u1];
    meat[1] = [(meat[1]?.[0] ?? 0) + u1 * u0, (meat[1]?.[1] ?? 0) + u1 * u1];
  }
  const g = scores.size;
  const row = inv[1];
  let v = 0;
  for (let i = 0; i < 2; i++)
    for (let j = 0; j < 2; j++) v += (row[i] ?? 0) * (meat[i]?.[j] ?? 0) * (row[j] ?? 0);
  return Math.sqrt((g / (g - 1)) * v);
}

test('a date shock common to top and bottom cancels in the clustered difference, not in Welch', () => {
  const shocks = [0.05, -0.05, 0.03, -0.03];
  const own = [0.002, -0.002, 0.001, -0.001];
  const top = shocks.map((s, i) => ({ cluster: `d${i}`, value: s + 0.01 + (own[i] ?? 0) }));
  const bottom = shocks.map((s, i) => ({ cluster: `d${i}`, value: s }));
  const d = clusteredDifference(top, bottom);
  close(d.estimate, 0.01);
  // c_g = own_g / 4 → V = 4/3 · (4 + 4 + 1 + 1)·10⁻⁶ / 16.
  close(d.se, Math.sqrt(((4 / 3) * 10e-6) / 16));
  assert.ok(d.t > 10, `${d.t}`);
  const welch = welchT(
    top.map((o) => o.value),
    bottom.map((o) => o.value),
  );
  assert.ok(Math.abs(welch) < 0.5, `${welch}`);
});

test('quartile cut points fixed in sample bucket out-of-sample scores unchanged', () => {
  const inSample = [1, 2, 3, 4, 5, 6, 7, 8];
  const cuts = quartileCuts(inSample);
  assert.deepEqual(cuts, [2.75, 4.5, 6.25]);
  const outOfSample = [0, 2.75, 3, 4.5, 5, 6.25, 7, 100];
  assert.deepEqual(
    outOfSample.map((s) => bucketIndex(s, cuts)),
    [0, 0, 1, 1, 2, 2, 3, 3],
  );
  // Its own quartiles would be different cut points.
  assert.notDeepEqual(quartileCuts(outOfSample), cuts);
  assert.deepEqual(cutPoints([10, 0, 20], [0.5, 0]), [0, 10]);
  assert.equal(bucketIndex(null, cuts), null);
  assert.equal(bucketIndex(Number.NaN, cuts), null);
  assert.equal(bucketIndex(Number.POSITIVE_INFINITY, cuts), 3);
  assert.throws(() => quartileCuts([]), RangeError);

  const quartiles = scoreQuartiles(cuts, '2014–2016');
  assert.deepEqual(quartiles.labels, ['Q1', 'Q2', 'Q3', 'Q4']);
  assert.deepEqual(quartiles.contrast, { top: 'Q4', bottom: 'Q1' });
  assert.match(quartiles.note, /Q1 ≤ 2\.75 < Q2 ≤ 4\.5 < Q3 ≤ 6\.25 < Q4 \(cut points from 2014–2016\)/);
  assert.equal(quartiles.groupOf(event({ ticker: 'T', date: '2024-01-01', score: 4.5 })), 'Q2');
  assert.throws(() => scoreQuartiles([1, 2]), RangeError);
  assert.throws(() => scoreQuartiles([3, 2, 1]), RangeError);
});

test('relative size and kind groupings', () => {
  assert.deepEqual(rangeLabels([0.01, 0.1]), ['≤ 0.01', '(0.01, 0.1]', '> 0.1']);
  const size = relativeSizeGrouping([0.01, 0.1]);
  const at = (relativeSize: number | null) => size.groupOf(event({ ticker: 'T', date: 'x', relativeSize }));
  assert.deepEqual(
    [at(0.005), at(0.01), at(0.05), at(2), at(null)],
    ['≤ 0.01', '≤ 0.01', '(0.01, 0.1]', '> 0.1', null],
  );
  assert.deepEqual(size.contrast, { top: '> 0.1', bottom: '≤ 0.01' });
  const kinds = kindGrouping(['modification', 'new', 'modification']);
  assert.deepEqual(kinds.labels, ['modification', 'new']);
  assert.equal(kinds.contrast, null);
  assert.equal(kinds.groupOf(event({ ticker: 'T', date: 'x', kind: 'other' })), null);
});

test('the study aggregates by group with date-clustered t and renders Markdown', () => {
  // Three tickers following the market; announcements on four dates, two of them shared.
  const prices = new Map<string, PricePoint[]>([['BENCH', LONG_BENCH]]);
  for (const [ticker, beta] of [
    ['AAA', 0.8],
    ['BBB', 1.2],
    ['CCC', 1.0],
  ] as const) {
    const returns = MARKET_RETURNS.map((r, t) => beta * r + 0.003 * Math.sin(2.1 * t + beta));
    prices.set(ticker, series(LONG, compound(100, returns)));
  }
  const on = (i: number) => LONG[i] ?? '';
  const events: AnnouncementEvent[] = [
    event({ id: '1', ticker: 'AAA', date: on(300), score: 90, kind: 'new', relativeSize: 0.2 }),
    event({ id: '2', ticker: 'BBB', date: on(300), score: 10, kind: 'new', relativeSize: 0.001 }),
    event({ id: '3', ticker: 'CCC', date: on(310), score: 95, kind: 'modification', relativeSize: 0.05 }),
    event({ id: '4', ticker: 'AAA', date: on(320), score: 15, kind: 'modification', relativeSize: null }),
    event({ id: '5', ticker: 'BBB', date: on(330), score: 80, kind: 'new', relativeSize: 0.3 }),
    event({ id: '6', ticker: 'CCC', date: on(330), score: 5, kind: 'new', relativeSize: 0.002 }),
    event({ id: '7', ticker: 'NOPE', date: on(330), score: 99, kind: 'new', relativeSize: 0.5 }),
  ];
  // Cut points fixed elsewhere: Q1 = ids 2, 4, 6; Q3 = id 5; Q4 = ids 1, 3 and 7 (7 unpriced).
  const cuts = [20, 50, 85];
  const windows = [WINDOW(-1, 0), WINDOW(0, 5)];
  const benchmarks = [ADJ, MKT];
  const result = runAnnouncementStudy(events, prices, {
    windows,
    benchmarks,
    groupings: [
      scoreQuartiles(cuts, 'a fixed period'),
      kindGrouping(['new', 'modification']),
      relativeSizeGrouping([0.01]),
    ],
  });
  assert.equal(result.panels.length, 4);
  const panel = result.panels.find((p) => p.benchmark === MKT && p.window.from === 0);
  assert.ok(panel);
  assert.equal(panel.priced, 6);
  assert.deepEqual(panel.excluded, { no_ticker_candles: 1 });
  const ar = (id: string): Clustered => {
    const row = result.rows.find((r) => r.event.id === id);
    const r = row?.results.get(resultKey(MKT, WINDOW(0, 5)));
    assert.ok(r?.ok);
    return { value: r.abnormal, cluster: r.day0 };
  };
  const all = clusteredMean(['1', '2', '3', '4', '5', '6'].map(ar));
  assert.equal(panel.all.n, 6);
  assert.equal(panel.all.dates, 4);
  close(panel.all.mean, all.estimate);
  close(panel.all.t, all.t);
  const [quartiles, kinds, size] = panel.groupings;
  assert.ok(quartiles && kinds && size);
  const q1 = quartiles.groups.find((g) => g.label === 'Q1');
  const q4 = quartiles.groups.find((g) => g.label === 'Q4');
  assert.deepEqual([q1?.n, q1?.dates, q4?.n, q4?.dates], [3, 3, 2, 2]);
  const expected = clusteredDifference(['1', '3'].map(ar), ['2', '4', '6'].map(ar));
  close(quartiles.contrast?.diff ?? Number.NaN, expected.estimate);
  close(quartiles.contrast?.t ?? Number.NaN, expected.t);
  assert.equal(quartiles.contrast?.dates, 4);
  assert.deepEqual(
    kinds.groups.map((g) => [g.label, g.n]),
    [
      ['modification', 2],
      ['new', 4],
    ],
  );
  assert.equal(size.ungrouped, 1); // id 4 has no relative size
  const md = renderAnnouncementMarkdown(result, { engine: 'materiality', version: '2.0.0', source: 'test' });
  assert.match(md, /^# Announcement study: materiality 2\.0\.0/);
  assert.match(
    md,
    /## By score quartile\n\nQ1 ≤ 20 < Q2 ≤ 50 < Q3 ≤ 85 < Q4 \(cut points from a fixed period\)\./,
  );
  assert.match(md, /### BENCH market model/);
  assert.match(md, /\| 0→5 \| Q4 − Q1 \| 5 \| 4 \| /);
  assert.match(md, /\| BENCH market-adjusted \| -1→0 \| 6 \| 1 no candles for the ticker at all \|/);
  assert.match(md, /Priced events without a relative size \(in "all" only\): -1→0 1, 0→5 1\./);
  assert.ok(!md.includes('NaN'));
  // No events: nothing to fix quartiles on, so no default groupings, and nothing priced.
  const none = runAnnouncementStudy([], prices, { windows, benchmarks });
  assert.deepEqual(none.groupings, []);
  assert.equal(none.panels[0]?.all.n, 0);
});
