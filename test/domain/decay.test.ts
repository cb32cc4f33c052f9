import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decay } from '../../src/domain/decay.ts';

const now = new Date('2024-03-31T15:00:00Z');

test('a fresh award keeps its full score', () => {
  assert.deepEqual(decay({ signalScore: 80, awardDate: '2024-03-31', now }), {
    model: 'exponential',
    half_life_days: 30,
    age_days: 0,
    strength: 1,
    effective_score: 80,
  });
});

test('halves every half-life', () => {
  // 2024-03-01 → 2024-03-31 is 30 days: 0.5^1.
  const one = decay({ signalScore: 81, awardDate: '2024-03-01', now });
  assert.equal(one.age_days, 30);
  assert.equal(one.strength, 0.5);
  assert.equal(one.effective_score, 41); // round(40.5) = 41
  // 60 days (2024 is a leap year: Jan 31 → Mar 31 = 29 + 31): 0.25.
  assert.equal(decay({ signalScore: 80, awardDate: '2024-01-31', now }).strength, 0.25);
});

test('rounds strength to 4 decimals and honours a custom half-life', () => {
  // 10 days at a 7-day half-life: 0.5^(10/7) = 0.371499 → 0.3715; 90 × 0.3715 = 33.435 → 33.
  const d = decay({ signalScore: 90, awardDate: '2024-03-21', now, halfLifeDays: 7 });
  assert.equal(d.half_life_days, 7);
  assert.equal(d.age_days, 10);
  assert.equal(d.strength, 0.3715);
  assert.equal(d.effective_score, 33);
});

test('counts whole days and never goes negative', () => {
  assert.equal(decay({ signalScore: 50, awardDate: '2024-03-30', now }).age_days, 1);
  const future = decay({ signalScore: 50, awardDate: '2024-05-01', now });
  assert.equal(future.age_days, 0);
  assert.equal(future.strength, 1);
});
