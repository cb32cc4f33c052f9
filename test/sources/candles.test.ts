import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Candle } from '../../src/domain/types.ts';
import {
  adjustAsTraded,
  dailyReturns,
  loadDemoCandles,
  parseCandlesCsv,
  ratioStats,
  scaleCandle,
} from '../../src/sources/candles.ts';
import { readTextFile } from '../../src/sources/files.ts';

const dataDir = fileURLToPath(new URL('../../data', import.meta.url));

test('parseCandlesCsv: optional adj_close, sorted ascending, any column order', () => {
  const a = parseCandlesCsv(
    'date,open,high,low,close,volume\n2024-01-03,2,3,1,2.5,10\n2024-01-02,1,2,0.5,1.5,20\n',
  );
  assert.deepEqual(a.rejected, []);
  assert.deepEqual(a.candles, [
    { date: '2024-01-02', open: 1, high: 2, low: 0.5, close: 1.5, adjClose: 1.5, volume: 20 },
    { date: '2024-01-03', open: 2, high: 3, low: 1, close: 2.5, adjClose: 2.5, volume: 10 },
  ]);
  const b = parseCandlesCsv('Volume,Date,Close,Adj_Close,Low,High,Open\r\n7,2024-01-02,10,9.5,9,11,10\r\n');
  assert.deepEqual(b.candles[0], {
    date: '2024-01-02',
    open: 10,
    high: 11,
    low: 9,
    close: 10,
    adjClose: 9.5,
    volume: 7,
  });
});

test('parseCandlesCsv: rejected rows with line numbers; duplicates keep the first', () => {
  const text = [
    'date,open,high,low,close,adj_close,volume',
    '2024-01-02,10,11,9,10,10,100', // 2 ok
    '2023-02-29,10,11,9,10,10,100', // 3 bad date
    '2024-01-03,10,abc,9,10,10,100', // 4 non-numeric
    '2024-01-04,10,9,11,10,10,100', // 5 high < low
    '2024-01-05,0,11,9,10,10,100', // 6 non-positive
    '2024-01-06,10,11,9,10,-1,100', // 7 non-positive adj_close
    '2024-01-02,20,21,19,20,20,100', // 8 duplicate
    '2024-01-08,10,11,9,10,10', // 9 short row
    '2024-01-09,10,11,9,10,10,-5', // 10 negative volume
    '01/10/2024,10,11,9,10,10,100', // 11 wrong date format
    '2024-01-11,10,11,9,10,,100', // 12 empty adj_close
  ].join('\n');
  const { candles, rejected } = parseCandlesCsv(text);
  assert.deepEqual(
    candles.map((c) => [c.date, c.close]),
    [['2024-01-02', 10]],
  );
  assert.deepEqual(
    rejected.map((r) => r.line),
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  );
  assert.match(rejected[0]?.message ?? '', /date/);
  assert.match(rejected[1]?.message ?? '', /high is not a number/);
  assert.match(rejected[2]?.message ?? '', /below low/);
  assert.match(rejected[3]?.message ?? '', /open must be a positive price/);
  assert.match(rejected[4]?.message ?? '', /adj_close must be a positive price/);
  assert.equal(rejected[5]?.message, 'duplicate date 2024-01-02 (line 2 kept)');
  assert.throws(() => parseCandlesCsv('date,open,high,low,volume\n'), /close/);
});

test('price-basis helpers: as-traded → adjusted keeps returns of adj_close', () => {
  const asTraded: Candle[] = [
    { date: '2024-01-02', open: 100, high: 102, low: 99, close: 101, adjClose: 98, volume: 1 },
    { date: '2024-01-03', open: 101, high: 104, low: 100, close: 103, adjClose: 100.5, volume: 1 },
  ];
  const adj = asTraded.map((c) => adjustAsTraded(c, 0.9));
  assert.equal(adj[0]?.close, 88.2); // 98 × 0.9
  assert.equal(adj[0]?.adjClose, 88.2);
  assert.equal(adj[0]?.open, Math.round(100 * (98 / 101) * 0.9 * 1e6) / 1e6);
  const r = dailyReturns(adj)[0]?.ret ?? 0;
  assert.ok(Math.abs(r - (100.5 / 98 - 1)) < 1e-6);
  assert.deepEqual(scaleCandle(asTraded[0] as Candle, 2), {
    date: '2024-01-02',
    open: 200,
    high: 204,
    low: 198,
    close: 202,
    adjClose: 202,
    volume: 1,
  });
  const s = ratioStats(
    new Map([
      ['a', 2],
      ['b', 4],
      ['c', 9],
    ]),
    new Map([
      ['a', 1],
      ['b', 2],
    ]),
  );
  assert.deepEqual(s, { median: 2, spread: 0, n: 2 });
});

interface ManifestEntry {
  basis: string;
  first: string;
  last: string;
  rows: number;
  splices: string[];
  gaps: [string, string][];
}

const TICKERS = [
  'SPY',
  'XLI',
  'ITA',
  'LMT',
  'RTX',
  'GD',
  'NOC',
  'BA',
  'LHX',
  'LDOS',
  'SAIC',
  'BAH',
  'CACI',
  'PLTR',
  'HII',
  'TXT',
];

test('every shipped candle file parses cleanly with the documented header', async () => {
  const files = (await readdir(join(dataDir, 'candles'))).filter((f) => f.endsWith('.csv.gz')).sort();
  assert.deepEqual(files, TICKERS.map((t) => `${t}.csv.gz`).sort());
  for (const f of files) {
    const text = await readTextFile(join(dataDir, 'candles', f));
    assert.ok(text.startsWith('date,open,high,low,close,adj_close,volume\n'), f);
    const { rejected } = parseCandlesCsv(text);
    assert.deepEqual(rejected, [], f);
  }
});

test('loadDemoCandles: one ascending series per ticker matching the manifest', async () => {
  const manifest = JSON.parse(await readFile(join(dataDir, 'candles', 'manifest.json'), 'utf8')) as Record<
    string,
    ManifestEntry
  >;
  const all = await loadDemoCandles(dataDir);
  assert.deepEqual([...all.keys()].sort(), [...TICKERS].sort());
  for (const [t, candles] of all) {
    const m = manifest[t];
    assert.ok(m, t);
    assert.equal(candles.length, m.rows, t);
    assert.equal(candles[0]?.date, m.first, t);
    assert.equal(candles[candles.length - 1]?.date, m.last, t);
    for (let i = 1; i < candles.length; i++) {
      assert.ok((candles[i - 1] as Candle).date < (candles[i] as Candle).date, `${t} ascending at ${i}`);
    }
    // Coverage: from 2015 (or listing) to at least mid-2025.
    assert.ok(m.first <= '2015-01-02' || ['PLTR'].includes(t), `${t} starts ${m.first}`);
    assert.ok(m.last >= '2025-07-08', `${t} ends ${m.last}`);
    if (t !== 'ITA')
      assert.ok(
        candles.every((c) => c.adjClose === c.close),
        `${t}: adjusted OHLC, adj_close = close`,
      );
  }
  // LMT rows are the LMT_ext rows unchanged.
  assert.deepEqual(
    all.get('LMT')?.find((c) => c.date === '2024-03-08'),
    {
      date: '2024-03-08',
      open: 403.802099,
      high: 408.023891,
      low: 402.92571,
      close: 407.948486,
      adjClose: 407.948486,
      volume: 763200,
    },
  );
  // GD before 2015 = as-traded row × adj_close/close × k (k = GD_ext/GD adj_close ≈ 0.96163):
  // 2014-12-31 as traded close 137.619995, adj_close 112.144646.
  const gd = all.get('GD')?.find((c) => c.date === '2014-12-31');
  assert.ok(Math.abs((gd?.close ?? 0) / (112.144646 * 0.96163) - 1) < 1e-5);
  assert.ok(Math.abs((gd?.open ?? 0) / (139.199997 * (112.144646 / 137.619995) * 0.96163) - 1) < 1e-5);
});

/** Daily |return| > 40% that are real (checked against the raw OHLC/volume), not splice artefacts. */
const KNOWN_BIG_MOVES: Record<string, string[]> = {
  // Textron gapped up from 9.11 to an open of 12.86 on 38M shares (4× normal volume), 2009-04-09.
  TXT: ['2009-04-09'],
};

test('no jump at splice points; no unexplained daily move above 40%', async () => {
  const manifest = JSON.parse(await readFile(join(dataDir, 'candles', 'manifest.json'), 'utf8')) as Record<
    string,
    ManifestEntry
  >;
  const all = await loadDemoCandles(dataDir);
  let checked = 0;
  for (const [t, candles] of all) {
    const rets = new Map(dailyReturns(candles).map((r) => [r.date, r.ret]));
    for (const splice of manifest[t]?.splices ?? []) {
      const r = rets.get(splice);
      assert.ok(r !== undefined, `${t}: splice ${splice} is a row`);
      assert.ok(Math.abs(r) < 0.4, `${t}: return ${r} at splice ${splice}`);
      checked++;
    }
    const big = [...rets].filter(([, r]) => Math.abs(r) > 0.4).map(([d]) => d);
    assert.deepEqual(big, KNOWN_BIG_MOVES[t] ?? [], t);
  }
  assert.ok(checked >= 14);
  // Spliced GD: 2014-12-31 (adjusted as-traded row) → 2015-01-02 (_ext row) is an ordinary day.
  const gd = all.get('GD') ?? [];
  const i = gd.findIndex((c) => c.date === '2015-01-02');
  assert.equal(gd[i - 1]?.date, '2014-12-31');
  assert.ok(Math.abs((gd[i]?.close ?? 0) / (gd[i - 1]?.close ?? 1) - 1) < 0.03);
});

test('ITA: split-only OHLC, dividend-adjusted adj_close from 2020-10-26', async () => {
  const ita = (await loadDemoCandles(dataDir)).get('ITA') ?? [];
  const on = (d: string): Candle | undefined => ita.find((c) => c.date === d);
  assert.equal(on('2006-07-03')?.close, 23.685); // split-adjusted (as traded 47.37)
  assert.equal(on('2026-02-18')?.close, 240.320007); // appended from ITA_ext
  // adj_close/close: constant before 2020-10-26, then rising towards 1 at each ex-dividend date.
  const ratios = ita.map((c) => [c.date, c.adjClose / c.close] as const);
  const early = ratios.filter(([d]) => d < '2020-10-26').map(([, r]) => r);
  assert.ok(Math.max(...early) - Math.min(...early) < 1e-6);
  let prev = 0;
  for (const [d, r] of ratios) {
    assert.ok(r <= 1.0001, `${d}: ${r}`);
    assert.ok(r >= prev - 1e-4, `${d}: adjustment factor fell from ${prev} to ${r}`);
    prev = Math.max(prev, r);
  }
  assert.ok((ratios.find(([d]) => d === '2025-12-31')?.[1] ?? 0) > 0.999);
});
