/**
 * The `ann-dv-1` rule's arithmetic (evaluation/announcement-dv.ts): the dollar-volume window is the 60
 * trading days strictly before the page's date (the day itself and anything later never count), a
 * company's events of one page share its awarded total, a shared ceiling counts as a licence, and the
 * shipped dollar-volume file is what the rule reads.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DV_CUTS,
  DV_WINDOW,
  type DvInput,
  scoreDollarVolume,
  trailingDollarVolume,
} from '../../src/evaluation/announcement-dv.ts';
import { bucketIndex } from '../../src/evaluation/announcement-study.ts';
import {
  type DollarVolumePoint,
  loadDollarVolume,
  parseDollarVolume,
} from '../../src/sources/dollar-volume.ts';

/** Trading days from 2016-01-04 on, weekdays only, dollars = 1_000 × (index + 1). */
function series(days: number): DollarVolumePoint[] {
  const out: DollarVolumePoint[] = [];
  const d = new Date('2016-01-04T00:00:00Z');
  while (out.length < days) {
    const wd = d.getUTCDay();
    if (wd !== 0 && wd !== 6)
      out.push({ date: d.toISOString().slice(0, 10), dollars: 1_000 * (out.length + 1) });
    d.setUTCDate(d.getUTCDate() + 1);
  }
  return out;
}

const event = (over: Partial<DvInput>): DvInput => ({
  id: 'E1',
  ticker: 'LMT',
  recipient: 'Lockheed Martin Corp.',
  date: '2016-06-01',
  kind: 'award',
  value: 0,
  faceValue: 10_000_000,
  obligatedAtAward: null,
  awardees: 1,
  ...over,
});

describe('trailing dollar volume', () => {
  const s = series(200);
  test('the mean of the 60 trading days strictly before the date', () => {
    const date = (s[100] as DollarVolumePoint).date;
    // Days 40 … 99 (0-based): dollars 41_000 … 100_000, mean 70_500.
    assert.equal(DV_WINDOW, 60);
    assert.equal(trailingDollarVolume(s, date), 70_500);
  });

  test('no look-ahead: the day itself and later days never count', () => {
    const date = (s[100] as DollarVolumePoint).date;
    const changed = s.map((p, i) => (i >= 100 ? { ...p, dollars: 1e15 } : p));
    assert.equal(trailingDollarVolume(changed, date), trailingDollarVolume(s, date));
    assert.equal(trailingDollarVolume(s.slice(0, 100), date), 70_500);
  });

  test('a date that is not a trading day reads the 60 trading days before it', () => {
    // 2016-01-04 + 100 trading days is a Monday; the Sunday before has the same window as the Friday before + 1.
    const monday = (s[100] as DollarVolumePoint).date;
    const sunday = new Date(Date.parse(`${monday}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    assert.equal(trailingDollarVolume(s, sunday), 70_500);
  });

  test('fewer than 60 days before the date, or no series: no value', () => {
    assert.equal(trailingDollarVolume(s, (s[59] as DollarVolumePoint).date), null);
    assert.equal(trailingDollarVolume(s, (s[60] as DollarVolumePoint).date), 30_500);
    assert.equal(trailingDollarVolume(undefined, '2016-06-01'), null);
  });
});

describe('scoreDollarVolume', () => {
  const dv = new Map([['LMT', series(200)]]);
  const date = (series(200)[100] as DollarVolumePoint).date;

  test('a company’s events of one page share its awarded total / the trailing dollar volume', () => {
    const scores = scoreDollarVolume(
      [
        event({ id: 'A', date, faceValue: 7_050_000 }),
        event({ id: 'B', date, faceValue: 70_500, kind: 'modification' }),
        event({ id: 'C', date, ticker: 'NOC', faceValue: 1 }),
      ],
      dv,
    );
    assert.deepEqual(scores[0], {
      score: 7_120_500 / 70_500,
      relativeSize: 100,
      pageValue: 7_120_500,
      trailingValue: 70_500,
    });
    assert.equal(scores[1]?.score, scores[0]?.score);
    assert.equal(scores[1]?.relativeSize, 1);
    // No dollar volume shipped for the ticker: no score.
    assert.equal(scores[2]?.score, null);
  });

  test('a shared ceiling counts as a licence, not as the ceiling', () => {
    const [licence] = scoreDollarVolume(
      [event({ date, faceValue: 282_000_000, awardees: 20, obligatedAtAward: null })],
      dv,
    );
    // $282 M / 20 × 0.00025 = $3,525 awarded: 0.05 of a day's trading, Q1 (its even share, $14.1 M, would be 200 days: Q4).
    assert.equal(licence?.pageValue, 3_525);
    assert.equal(licence?.score, 0.05);
    assert.equal(bucketIndex(licence?.score ?? null, DV_CUTS), 0);
    const [obligated] = scoreDollarVolume(
      [event({ date, faceValue: 2_820_000_000, awardees: 20, obligatedAtAward: 0 })],
      dv,
    );
    assert.equal(obligated?.score, 0);
    assert.equal(bucketIndex(obligated?.score ?? null, DV_CUTS), 0);
  });
});

describe('the shipped dollar volume', () => {
  test('parses, and gives Lockheed Martin a plausible 2016 size', async () => {
    const shipped = await loadDollarVolume();
    const lmt = trailingDollarVolume(shipped.get('LMT'), '2016-06-01');
    assert.ok(lmt !== null && lmt > 1e8 && lmt < 2e9, `LMT ${lmt}`);
    assert.deepEqual([...shipped.keys()].sort(), [
      'BA',
      'BAH',
      'CACI',
      'GD',
      'HII',
      'LDOS',
      'LHX',
      'LMT',
      'NOC',
      'PLTR',
      'RTX',
      'SAIC',
      'TXT',
    ]);
  });

  test('a damaged row is refused with its line, never read as a number', () => {
    for (const bad of ['LMT,2016-13-01,5', 'LMT,2016-01-04,abc', 'LMT,2016-01-04,-1', 'LMT,2016-01-04,']) {
      assert.throws(() => parseDollarVolume(`ticker,date,dollar_volume\n${bad}\n`), /line 2/);
    }
    assert.throws(
      () => parseDollarVolume('ticker,date,dollar_volume\nLMT,2016-01-05,1\nLMT,2016-01-04,1\n'),
      /line 3: bad or out-of-order/,
    );
    assert.throws(() => parseDollarVolume('date,dollars\n'), /header/);
  });
});
