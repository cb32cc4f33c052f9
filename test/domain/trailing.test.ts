import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addDays,
  type DatedValue,
  TRAILING_DAYS,
  trailingSpan,
  trailingStats,
  trailingStatsMany,
} from '../../src/domain/trailing.ts';

/** A repeatable stream of numbers in [0, 1) (a linear congruential generator). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const byDate = (a: DatedValue, b: DatedValue): number => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

test('trailing stats: the 365 days strictly before the date', () => {
  const history: DatedValue[] = [
    { date: '2023-01-01', value: 5 },
    { date: '2023-06-01', value: 1 },
    { date: '2024-01-01', value: 3 },
    { date: '2024-01-02', value: 10 },
  ];
  // 2024-01-02 − 365 days = 2023-01-02: the 2023-01-01 award has just left the window.
  assert.deepEqual(trailingStats(history, '2024-01-02'), { count: 2, totalValue: 4, medianValue: 2 });
  assert.deepEqual(trailingStats(history, '2024-01-03'), { count: 3, totalValue: 14, medianValue: 3 });
  assert.deepEqual(trailingStats(history, '2023-01-01'), { count: 0, totalValue: 0, medianValue: 0 });
  assert.deepEqual(trailingStatsMany(history, ['2024-01-03', '2024-01-02', '2023-01-01', '2023-06-02']), [
    { count: 3, totalValue: 14, medianValue: 3 },
    { count: 2, totalValue: 4, medianValue: 2 },
    { count: 0, totalValue: 0, medianValue: 0 },
    { count: 2, totalValue: 6, medianValue: 3 },
  ]);
});

test('trailingStatsMany equals trailingStats on random histories with repeated values and dates', () => {
  const rand = seeded(42);
  for (let round = 0; round < 20; round++) {
    const n = Math.floor(rand() * 400);
    const history: DatedValue[] = Array.from({ length: n }, () => ({
      date: addDays('2018-01-01', Math.floor(rand() * 2000)),
      value: Math.floor(rand() * 50) * 1_000_000 + (rand() < 0.1 ? -500 : 0),
    })).sort(byDate);
    // Odd rounds spread the dates out; even rounds repeat a few dozen of them many times.
    const span = round % 2 ? 2800 : 40;
    const dates = Array.from({ length: 200 }, () => addDays('2018-06-01', Math.floor(rand() * span)));
    const many = trailingStatsMany(history, dates);
    dates.forEach((d, i) => {
      assert.deepEqual(many[i], trailingStats(history, d), `${round} ${d}`);
    });
  }
});

test('the history inside trailingSpan gives the same statistics as the whole history', () => {
  const rand = seeded(7);
  for (let round = 0; round < 20; round++) {
    const history: DatedValue[] = Array.from({ length: 300 }, () => ({
      date: addDays('2015-01-01', Math.floor(rand() * 4000)),
      value: Math.floor(rand() * 30) * 100_000,
    })).sort(byDate);
    // A delta of a few weeks, with dates on the history's own days so the span's edges are exercised.
    const dates = Array.from({ length: 50 }, () =>
      addDays('2024-03-01', Math.floor(rand() * (round % 2 ? 30 : 400))),
    );
    dates.push(...history.slice(-5).map((h) => h.date));
    const sorted = [...dates].sort();
    const { from, until } = trailingSpan(sorted[0] ?? '', sorted[sorted.length - 1] ?? '');
    const inside = history.filter((h) => h.date >= from && h.date < until);
    assert.ok(inside.length < history.length, 'the span leaves something out');
    assert.deepEqual(trailingStatsMany(inside, dates), trailingStatsMany(history, dates), `round ${round}`);
  }
});

test('trailingSpan: from TRAILING_DAYS before the first date, up to the last date exclusive', () => {
  assert.deepEqual(trailingSpan('2024-01-02', '2024-03-01'), { from: '2023-01-02', until: '2024-03-01' });
  assert.equal(TRAILING_DAYS, 365);
});
