import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nameTokens, normalizeName } from '../../src/domain/names.ts';

test('normalizes case, punctuation and a leading THE', () => {
  assert.equal(normalizeName('The Boeing Company'), 'BOEING');
  assert.equal(normalizeName('LEIDOS, INC.'), 'LEIDOS');
  assert.equal(normalizeName('  rolls-royce   corporation '), 'ROLLS ROYCE');
});

test('turns & into AND and drops a dangling AND left by a removed suffix', () => {
  assert.equal(
    normalizeName('BAE SYSTEMS INFORMATION & ELECTRONIC SYSTEMS INTEGRATION INC'),
    'BAE SYSTEMS INFORMATION AND ELECTRONIC SYSTEMS INTEGRATION',
  );
  assert.equal(normalizeName('GOLDMAN SACHS & CO. LLC'), 'GOLDMAN SACHS');
});

test('drops trailing legal suffixes repeatedly, dotted or spaced', () => {
  assert.equal(normalizeName('ICF INCORPORATED, L.L.C.'), 'ICF');
  assert.equal(normalizeName('ACME L L C'), 'ACME');
  assert.equal(normalizeName('Leidos Holdings, Inc.'), 'LEIDOS');
  assert.equal(
    normalizeName('L3HARRIS TECHNOLOGIES INTEGRATED SYSTEMS L.P.'),
    'L3HARRIS TECHNOLOGIES INTEGRATED SYSTEMS',
  );
  assert.equal(normalizeName('BANK OF AMERICA, N.A.'), 'BANK OF AMERICA');
  assert.equal(normalizeName('SIEMENS AG'), 'SIEMENS');
});

test('strips the SEC state-of-incorporation marker but keeps a slash between names', () => {
  assert.equal(normalizeName('NORTHROP GRUMMAN CORP /DE/'), 'NORTHROP GRUMMAN');
  assert.equal(normalizeName('RAYTHEON/LOCKHEED MARTIN JAVELIN JV'), 'RAYTHEON LOCKHEED MARTIN JAVELIN JV');
});

test('keeps GROUP unless it trails another legal suffix', () => {
  assert.equal(normalizeName('MINBURN TECHNOLOGY GROUP, LLC'), 'MINBURN TECHNOLOGY GROUP');
  assert.equal(normalizeName('ACME HOLDINGS GROUP'), 'ACME');
});

test('never strips a name down to nothing', () => {
  assert.equal(normalizeName('COMPANY'), 'COMPANY');
  assert.equal(normalizeName('The Company, Inc.'), 'COMPANY');
  assert.equal(normalizeName(''), '');
});

test('nameTokens splits on spaces and ignores empties', () => {
  assert.deepEqual(nameTokens('GENERAL DYNAMICS'), ['GENERAL', 'DYNAMICS']);
  assert.deepEqual(nameTokens(''), []);
});
