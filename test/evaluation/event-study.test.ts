import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { renderEventsCsv, renderMarkdown, renderSvg } from '../../src/evaluation/event-report.ts';
import {
  abnormalReturn,
  bucketOf,
  DEFAULT_BUCKETS,
  type PricePoint,
  runEventStudy,
} from '../../src/evaluation/event-study.ts';
import { tStatistic } from '../../src/evaluation/stats.ts';
import { priceSeries, scoredEvents, signalVersions } from '../../src/store/evaluation.ts';
import { seededDb } from '../support/db.ts';

const DATES = [
  '2024-01-02',
  '2024-01-03',
  '2024-01-04',
  '2024-01-05',
  '2024-01-08',
  '2024-01-09',
  '2024-01-10',
  '2024-01-11',
];
const series = (prices: number[], dates = DATES): PricePoint[] =>
  prices.map((adjClose, i) => ({ date: dates[i] ?? '', adjClose }));

const TICKER = series([100, 102, 101, 103, 104, 106, 105, 110]);
const BENCH = series([200, 201, 202, 200, 203, 204, 206, 205]);

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`);

test('day 0 is the first trading day on or after the award date; the base is the close before it', () => {
  // Saturday 2024-01-06 → day 0 Monday 01-08, base Friday 01-05 (103 / 200).
  const r = abnormalReturn(TICKER, BENCH, '2024-01-06', 2);
  assert.ok(r.ok);
  assert.deepEqual([r.base, r.day0, r.end], ['2024-01-05', '2024-01-08', '2024-01-10']);
  close(r.tickerReturn, 105 / 103 - 1);
  close(r.benchmarkReturn, 206 / 200 - 1);
  close(r.abnormal, 105 / 103 - 206 / 200); // −1.0583 %
  // Horizon 0 is day 0's own move; an award on a trading day makes that day day 0.
  const same = abnormalReturn(TICKER, BENCH, '2024-01-08', 0);
  assert.ok(same.ok);
  close(same.abnormal, 104 / 103 - 203 / 200);
});

test('a window that cannot be priced is excluded with its reason, never filled', () => {
  const reasons = (t: PricePoint[], b: PricePoint[], date: string, h: number) => {
    const r = abnormalReturn(t, b, date, h);
    return r.ok ? 'priced' : r.reason;
  };
  assert.equal(reasons([], BENCH, '2024-01-06', 2), 'no_ticker_candles');
  assert.equal(reasons(TICKER, [], '2024-01-06', 2), 'no_benchmark_candles');
  assert.equal(reasons(TICKER, BENCH, '2024-01-02', 2), 'before_ticker_history');
  assert.equal(reasons(TICKER, BENCH, '2024-01-06', 4), 'after_ticker_history');
  assert.equal(reasons(TICKER, BENCH, '2024-01-12', 0), 'after_ticker_history');
  const gappy = TICKER.filter((p) => p.date !== '2024-01-09');
  assert.equal(reasons(gappy, BENCH, '2024-01-06', 2), 'ticker_gap');
  // A ticker gap right before day 0 would otherwise stretch "day −1" back in time.
  assert.equal(
    reasons(
      TICKER.filter((p) => p.date !== '2024-01-05'),
      BENCH,
      '2024-01-06',
      1,
    ),
    'ticker_gap',
  );
  assert.equal(
    reasons(
      TICKER,
      BENCH.filter((p) => p.date !== '2024-01-09'),
      '2024-01-06',
      2,
    ),
    'benchmark_gap',
  );
  const lateBench = BENCH.slice(2);
  assert.equal(reasons(TICKER, lateBench, '2024-01-03', 0), 'before_benchmark_history');
});

test('known abnormal returns give the known mean and t-statistic; the unpriceable contract is not scored', () => {
  const flat = series([100, 100, 100, 100, 100, 100, 100, 100]);
  // Day 0 = 01-08 (index 4), base 100 → day-0 close 101/102/103: AR 1 %, 2 %, 3 % against a flat benchmark.
  const candles = new Map<string, PricePoint[]>([
    ['AAA', series([100, 100, 100, 100, 101, 101, 101, 101])],
    ['BBB', series([100, 100, 100, 100, 102, 102, 102, 102])],
    ['CCC', series([100, 100, 100, 100, 103, 103, 103, 103])],
    ['DDD', series([50, 50, 50, 50, 49, 49, 49, 49])],
    ['BENCH', flat],
  ]);
  const events = [
    { contractId: 'CONT_AWD_A', ticker: 'AAA', awardDate: '2024-01-08', score: 80 },
    { contractId: 'CONT_AWD_B', ticker: 'BBB', awardDate: '2024-01-08', score: 90 },
    { contractId: 'CONT_AWD_C', ticker: 'CCC', awardDate: '2024-01-07', score: 100 },
    { contractId: 'CONT_AWD_X', ticker: 'NOPRICES', awardDate: '2024-01-08', score: 95 },
    { contractId: 'CONT_AWD_L', ticker: 'DDD', awardDate: '2024-01-08', score: 10 },
  ];
  const result = runEventStudy(events, candles, { horizons: [0], benchmarks: ['BENCH'] });
  const [panel] = result.panels;
  assert.ok(panel);
  const top = panel.groups.find((g) => g.label === '75–100');
  assert.ok(top);
  assert.equal(top.n, 3);
  assert.equal(top.events, 3);
  close(top.mean, 0.02);
  close(top.std, 0.01);
  close(top.t, 0.02 / (0.01 / Math.sqrt(3))); // 3.4641
  close(top.tEvents, top.t);
  close(top.positiveShare, 1);
  assert.deepEqual(panel.excluded, { no_ticker_candles: 1 });
  assert.equal(panel.priced, 4);
  const bottom = panel.groups.find((g) => g.label === '0–39');
  close(bottom?.mean ?? Number.NaN, -0.02);
  assert.equal(bottom?.n, 1);
  assert.equal(panel.all.n, 4);
  assert.equal(panel.topMinusBottom, null); // one bottom contract: no variance to test against
  const x = result.rows.find((r) => r.event.contractId === 'CONT_AWD_X');
  assert.deepEqual(x?.results.get('BENCH:0'), { ok: false, reason: 'no_ticker_candles' });
  const csv = renderEventsCsv(result);
  assert.match(csv, /CONT_AWD_X,NOPRICES,2024-01-08,95,75–100,,excluded:no_ticker_candles\n/);
  assert.match(csv, /CONT_AWD_C,CCC,2024-01-07,100,75–100,2024-01-08,0\.030000\n/);
});

test('same-day awards of one ticker count as one event in the clustered t-statistic', () => {
  const candles = new Map<string, PricePoint[]>([
    ['AAA', series([100, 100, 100, 100, 101, 101, 101, 101])],
    ['BBB', series([100, 100, 100, 100, 103, 103, 103, 103])],
    ['BENCH', series([100, 100, 100, 100, 100, 100, 100, 100])],
  ]);
  const events = [1, 2, 3].map((i) => ({
    contractId: `CONT_AWD_A${i}`,
    ticker: 'AAA',
    awardDate: '2024-01-08',
    score: 80,
  }));
  events.push({ contractId: 'CONT_AWD_B', ticker: 'BBB', awardDate: '2024-01-08', score: 80 });
  const [panel] = runEventStudy(events, candles, { horizons: [0], benchmarks: ['BENCH'] }).panels;
  const top = panel?.groups.find((g) => g.label === '75–100');
  assert.equal(top?.n, 4);
  assert.equal(top?.events, 2);
  close(top?.t ?? Number.NaN, tStatistic([0.01, 0.01, 0.01, 0.03]));
  close(top?.tEvents ?? Number.NaN, tStatistic([0.01, 0.03]));
});

test('buckets cover 0–100 without overlap', () => {
  for (let s = 0; s <= 100; s++) assert.ok(bucketOf(s, DEFAULT_BUCKETS));
  assert.equal(bucketOf(39, DEFAULT_BUCKETS), '0–39');
  assert.equal(bucketOf(75, DEFAULT_BUCKETS), '75–100');
  assert.throws(() => bucketOf(101, DEFAULT_BUCKETS), RangeError);
});

test('on the seeded demo data every scored contract is either priced or excluded with a reason', async () => {
  const db = await seededDb();
  try {
    const [latest] = (await signalVersions(db, 'materiality')).sort((a, b) => b.signals - a.signals);
    assert.ok(latest);
    const events = await scoredEvents(db, 'materiality', latest.version);
    const candles = await priceSeries(db, [...events.map((e) => e.ticker), 'ITA', 'SPY']);
    const result = runEventStudy(events, candles);
    assert.equal(result.panels.length, 4);
    for (const panel of result.panels) {
      const excluded = Object.values(panel.excluded).reduce((a, b) => a + (b ?? 0), 0);
      assert.equal(panel.priced + excluded, events.length);
      assert.equal(
        panel.groups.reduce((a, g) => a + g.n, 0),
        panel.priced,
      );
      // Honeywell has no candles in the demo set: its awards are counted as excluded, not priced.
      assert.ok((panel.excluded.no_ticker_candles ?? 0) > 0);
    }
    const hon = result.rows.filter((r) => r.event.ticker === 'HON');
    assert.ok(hon.length > 0);
    for (const row of hon) for (const r of row.results.values()) assert.equal(r.ok, false);
    const md = renderMarkdown(result, { engine: 'materiality', version: latest.version, source: 'test' });
    assert.match(md, /## ITA, days 0\.\.\+5/);
    assert.match(md, /not public announcement dates/);
    const svg = renderSvg(result, { engine: 'materiality', version: latest.version, source: 'test' });
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(!svg.includes('NaN'));
  } finally {
    await db.close();
  }
});

test('evaluate rejects an unknown engine with exit code 2', async () => {
  const bin = new URL('../../bin/market-intel.js', import.meta.url).pathname;
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, 'evaluate', '--engine', 'nope'], {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (c) => resolve({ code: c, stderr: err }));
  });
  assert.equal(code, 2);
  assert.match(stderr, /unknown engine "nope".*materiality, regime-aware/);
});
