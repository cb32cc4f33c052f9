import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Candle } from '../../src/domain/types.ts';
import { mondayOf, weeklyBars, weeklyWindow } from '../../src/domain/weekly.ts';

const bar = (
  date: string,
  open: number,
  high: number,
  low: number,
  close: number,
  volume: number,
): Candle => ({
  date,
  open,
  high,
  low,
  close,
  adjClose: close,
  volume,
});

test('mondayOf finds the ISO week start', () => {
  assert.equal(mondayOf('2024-03-04'), '2024-03-04'); // Monday
  assert.equal(mondayOf('2024-03-08'), '2024-03-04'); // Friday
  assert.equal(mondayOf('2024-03-10'), '2024-03-04'); // Sunday belongs to the week before
  assert.equal(mondayOf('2024-01-01'), '2024-01-01');
  assert.equal(mondayOf('2023-01-01'), '2022-12-26'); // across a year boundary
});

test('aggregates daily bars into Monday-start weeks', () => {
  const days = [
    bar('2024-03-12', 11, 13, 10, 12, 200), // Tue (Monday the 11th was a holiday in this test)
    bar('2024-03-13', 12, 15, 11, 14, 300),
    bar('2024-03-15', 14, 14, 9, 10, 100),
    bar('2024-03-18', 10, 11, 8, 9, 50),
  ];
  assert.deepEqual(weeklyBars(days), [
    { week_start: '2024-03-11', open: 11, high: 15, low: 9, close: 10, volume: 600 },
    { week_start: '2024-03-18', open: 10, high: 11, low: 8, close: 9, volume: 50 },
  ]);
});

test('sorts its input and returns nothing for nothing', () => {
  const a = bar('2024-03-05', 1, 2, 1, 2, 10);
  const b = bar('2024-03-04', 5, 6, 4, 5, 10);
  assert.deepEqual(weeklyBars([a, b]), [
    { week_start: '2024-03-04', open: 5, high: 6, low: 1, close: 2, volume: 20 },
  ]);
  assert.deepEqual(weeklyBars([]), []);
});

test('weeklyWindow spans 56 days either side of the award', () => {
  assert.deepEqual(weeklyWindow('2024-03-15'), { from: '2024-01-19', to: '2024-05-10' });
});
