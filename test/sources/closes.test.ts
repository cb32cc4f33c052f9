import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadStudyCloses, parseWideCloses, tickerOfColumn } from '../../src/sources/closes.ts';

test('a wide closes file: empty cells are no price, class shares take the resolver’s spelling, damage is rejected', () => {
  const { series, rejected } = parseWideCloses(
    [
      'Date,AAA,MOG.A,XAR',
      '2016-01-04,10.5,,20',
      '2016-01-05,10.75,5,',
      '2016-01-05,11,5,21',
      '2016-02-30,11,5,21',
      '2016-01-06,0,5,abc',
      '2016-01-07,11,5',
    ].join('\n'),
  );
  assert.equal(tickerOfColumn('MOG.A'), 'MOG-A');
  assert.deepEqual(series.get('AAA'), [
    { date: '2016-01-04', adjClose: 10.5 },
    { date: '2016-01-05', adjClose: 10.75 },
  ]);
  assert.deepEqual(
    series.get('MOG-A')?.map((p) => p.date),
    ['2016-01-05', '2016-01-06'],
  );
  assert.deepEqual(series.get('XAR'), [{ date: '2016-01-04', adjClose: 20 }]);
  assert.deepEqual(
    rejected.map((r) => r.line),
    [4, 5, 6, 6, 7],
  );
  assert.throws(() => parseWideCloses('ticker,AAA\n2016-01-04,1\n'), /expected a header Date/);
});

test('the shipped closes: XAR and every study ticker in the wide file, SPY and ITA from their candle files', async () => {
  const closes = await loadStudyCloses();
  const xar = closes.get('XAR') ?? [];
  assert.equal(xar[0]?.date, '2011-09-29');
  for (const ticker of ['LMT', 'GD', 'NOC', 'BA', 'HII', 'LDOS', 'BAESY', 'SPY', 'ITA']) {
    const s = closes.get(ticker) ?? [];
    assert.ok(s.length > 1000, ticker);
    assert.ok(
      s.every((p, i) => p.adjClose > 0 && (i === 0 || p.date > (s[i - 1]?.date ?? ''))),
      `${ticker} ascending, positive`,
    );
  }
  // One calendar for the study period: every XAR date 2014–2019 is a SPY and an ITA date, and back.
  const inStudy = (t: string) =>
    (closes.get(t) ?? []).map((p) => p.date).filter((d) => d >= '2014-01-01' && d <= '2019-12-31');
  assert.deepEqual(inStudy('SPY'), inStudy('XAR'));
  assert.deepEqual(inStudy('ITA'), inStudy('XAR'));
  assert.deepEqual(closes.get('MOG-A'), []);
});
