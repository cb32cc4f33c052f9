/**
 * Money really awarded (domain/awarded-value.ts): one awardee counts its face value whatever the
 * kind; a shared ceiling is a licence, valued at each holder's share of the amount obligated at award,
 * else at its share of the ceiling × LICENCE_FRACTION — never the ceiling or its even share.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awardedValue, LICENCE_FRACTION } from '../../src/domain/awarded-value.ts';

test('one awardee: its face value, obligated amount or not', () => {
  assert.deepEqual(awardedValue({ faceValue: 300_000_000, obligatedAtAward: 12_000_000, awardees: 1 }), {
    value: 300_000_000,
    basis: 'face',
  });
  assert.deepEqual(awardedValue({ faceValue: 5_000_000, obligatedAtAward: null, awardees: 1 }), {
    value: 5_000_000,
    basis: 'face',
  });
});

test('a shared ceiling with an obligated amount: each holder gets its share of what was obligated', () => {
  assert.deepEqual(awardedValue({ faceValue: 90_000_000, obligatedAtAward: 10_000, awardees: 2 }), {
    value: 5_000,
    basis: 'obligated_share',
  });
  // "No funds are being obligated at time of award": nothing awarded yet.
  assert.deepEqual(awardedValue({ faceValue: 12_599_999_930, obligatedAtAward: 0, awardees: 19 }), {
    value: 0,
    basis: 'obligated_share',
  });
});

test('a shared ceiling the page gives no obligation for: a licence, the share × LICENCE_FRACTION', () => {
  assert.equal(LICENCE_FRACTION, 0.00025);
  const v = awardedValue({ faceValue: 90_000_000, obligatedAtAward: null, awardees: 2 });
  assert.deepEqual(v, { value: 11_250, basis: 'licence' });
  assert.ok(v.value < 90_000_000 / 2);
});
