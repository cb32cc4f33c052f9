import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldOf, isHeldOut } from '../../src/evaluation/split.ts';
import {
  mean,
  quantile,
  sampleStd,
  scoreDistribution,
  tStatistic,
  welchT,
} from '../../src/evaluation/stats.ts';

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);

test('mean, sample std and t-statistic on a hand-checked sample', () => {
  close(mean([1, 2, 3, 4]), 2.5);
  close(sampleStd([1, 2, 3, 4]), Math.sqrt(5 / 3));
  close(tStatistic([0.01, 0.02, 0.03]), 0.02 / (0.01 / Math.sqrt(3)));
  assert.ok(Number.isNaN(tStatistic([0.01])));
  assert.ok(Number.isNaN(tStatistic([0.02, 0.02])));
  // (2 − 0) / √(1/3 + 1/3)
  close(welchT([1, 2, 3], [-1, 0, 1]), 2 / Math.sqrt(2 / 3));
});

test('quantiles interpolate; the score distribution has deciles and 10-point buckets', () => {
  close(quantile([0, 10], 0.25), 2.5);
  const d = scoreDistribution([0, 5, 10, 19, 50, 99, 100]);
  assert.deepEqual(d.buckets, [2, 2, 0, 0, 0, 1, 0, 0, 0, 2]);
  assert.equal(d.deciles.length, 11);
  assert.equal(d.deciles[0], 0);
  assert.equal(d.deciles[10], 100);
  assert.equal(d.distinct, 7);
});

test('folds and hold-outs depend on the key only', () => {
  assert.equal(foldOf('BOEING', 5, 's'), foldOf('BOEING', 5, 's'));
  const keys = Array.from({ length: 2000 }, (_, i) => `KEY ${i}`);
  const counts = [0, 0, 0, 0, 0];
  for (const k of keys) {
    const f = foldOf(k, 5);
    counts[f] = (counts[f] ?? 0) + 1;
  }
  for (const c of counts) assert.ok(c > 300 && c < 500, `${counts}`);
  const held = keys.filter((k) => isHeldOut(k, 0.3)).length;
  assert.ok(held > 500 && held < 700, `${held}`);
  assert.throws(() => foldOf('x', 0), RangeError);
});
