import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildNameIndex, type NameEntry } from '../../src/domain/name-index.ts';

/**
 * Names that share words in posting lists of very different lengths, ties, brands, prefixes and words
 * the index does not know: rank must return what scoring every candidate and sorting returns, even
 * though it skips candidates that cannot reach the current top five.
 */
const ENTRIES: NameEntry[] = [
  // Two lists of one length: ties across them are settled by order, not by which list came first.
  ...Array.from(
    { length: 5 },
    (_, i): NameEntry => ({ ticker: `QB${i}`, tokens: ['BBB', `QB${i}`], kind: 'name' }),
  ),
  ...Array.from(
    { length: 5 },
    (_, i): NameEntry => ({ ticker: `QA${i}`, tokens: ['AAA', `QA${i}`], kind: 'name' }),
  ),
  { ticker: 'ZET', tokens: ['ZETA', 'DYNAMICS'], kind: 'alias' },
  { ticker: 'ZET', tokens: ['ZETA', 'DYNAMICS', 'FEDERAL', 'SYSTEMS'], kind: 'alias' },
  { ticker: 'ZET', tokens: ['ZETA', 'DYNAMICS', 'CORP'], kind: 'name' },
  { ticker: 'HON', tokens: ['HONEYWELL'], kind: 'alias' },
  { ticker: 'HON', tokens: ['HONEYWELL', 'INTERNATIONAL'], kind: 'name' },
  { ticker: 'ORB', tokens: ['ORBITAL', 'WIDGETS'], kind: 'name' },
  ...Array.from(
    { length: 40 },
    (_, i): NameEntry => ({
      ticker: `W${i}`,
      tokens: [`FIRM${i}`, 'WIDGETS'],
      kind: 'name',
    }),
  ),
  ...Array.from(
    { length: 12 },
    (_, i): NameEntry => ({
      ticker: `D${i}`,
      tokens: [`MAKER${i}`, 'DYNAMICS', 'WIDGETS'],
      kind: 'name',
    }),
  ),
  ...Array.from(
    { length: 6 },
    (_, i): NameEntry => ({
      ticker: `B${i}`,
      tokens: [`BIG${i}`, 'DYNAMICS', 'AERO', 'WIDGETS'],
      kind: 'name',
    }),
  ),
];

/** Input → [norm, similarity to 4 places, rule] of each ranked candidate, as exhaustive scoring gave them (res-2). */
const EXPECTED: [string, [string, number, string][]][] = [
  [
    'ZETA DYNAMICS',
    [
      ['ZETA DYNAMICS', 1, 'exact'],
      ['ZETA DYNAMICS CORP', 0.9301, 'jaccard'],
      ['ZETA DYNAMICS FEDERAL SYSTEMS', 0.8694, 'jaccard'],
      ['MAKER0 DYNAMICS WIDGETS', 0.1855, 'jaccard'],
      ['MAKER1 DYNAMICS WIDGETS', 0.1855, 'jaccard'],
    ],
  ],
  [
    'ZETA DYNAMICS MARINE',
    [
      ['ZETA DYNAMICS', 0.9044, 'prefix'],
      ['ZETA DYNAMICS FEDERAL SYSTEMS', 0.85, 'brand'],
      ['ZETA DYNAMICS CORP', 0.85, 'brand'],
      ['MAKER0 DYNAMICS WIDGETS', 0.1285, 'jaccard'],
      ['MAKER1 DYNAMICS WIDGETS', 0.1285, 'jaccard'],
    ],
  ],
  [
    'ORBITAL WIDGETS',
    [
      ['ORBITAL WIDGETS', 1, 'exact'],
      ['FIRM0 WIDGETS', 0.1168, 'jaccard'],
      ['FIRM1 WIDGETS', 0.1168, 'jaccard'],
      ['FIRM2 WIDGETS', 0.1168, 'jaccard'],
      ['FIRM3 WIDGETS', 0.1168, 'jaccard'],
    ],
  ],
  [
    'FIRM7 WIDGETS',
    [
      ['FIRM7 WIDGETS', 1, 'exact'],
      ['ORBITAL WIDGETS', 0.1168, 'jaccard'],
      ['FIRM0 WIDGETS', 0.1168, 'jaccard'],
      ['FIRM1 WIDGETS', 0.1168, 'jaccard'],
      ['FIRM2 WIDGETS', 0.1168, 'jaccard'],
    ],
  ],
  [
    'ACME DYNAMICS WIDGETS',
    [
      ['MAKER0 DYNAMICS WIDGETS', 0.2576, 'jaccard'],
      ['MAKER1 DYNAMICS WIDGETS', 0.2576, 'jaccard'],
      ['MAKER2 DYNAMICS WIDGETS', 0.2576, 'jaccard'],
      ['MAKER3 DYNAMICS WIDGETS', 0.2576, 'jaccard'],
      ['MAKER4 DYNAMICS WIDGETS', 0.2576, 'jaccard'],
    ],
  ],
  [
    'HONEYWELL WORLDWIDE',
    [
      ['HONEYWELL', 0.9466, 'prefix'],
      ['HONEYWELL INTERNATIONAL', 0.85, 'brand'],
    ],
  ],
  [
    'HONEYWELL FOO BAR',
    [
      ['HONEYWELL', 0.8741, 'prefix'],
      ['HONEYWELL INTERNATIONAL', 0.85, 'brand'],
    ],
  ],
  [
    'ZETA',
    [
      ['ZETA DYNAMICS', 0.85, 'brand'],
      ['ZETA DYNAMICS FEDERAL SYSTEMS', 0.85, 'brand'],
      ['ZETA DYNAMICS CORP', 0.85, 'brand'],
    ],
  ],
  [
    'WIDGETS',
    [
      ['ORBITAL WIDGETS', 0.2092, 'jaccard'],
      ['FIRM0 WIDGETS', 0.2092, 'jaccard'],
      ['FIRM1 WIDGETS', 0.2092, 'jaccard'],
      ['FIRM2 WIDGETS', 0.2092, 'jaccard'],
      ['FIRM3 WIDGETS', 0.2092, 'jaccard'],
    ],
  ],
  [
    'ZETA WIDGETS',
    [
      ['ZETA DYNAMICS', 0.85, 'brand'],
      ['ZETA DYNAMICS FEDERAL SYSTEMS', 0.85, 'brand'],
      ['ZETA DYNAMICS CORP', 0.85, 'brand'],
      ['ORBITAL WIDGETS', 0.1251, 'jaccard'],
      ['FIRM0 WIDGETS', 0.1251, 'jaccard'],
    ],
  ],
  [
    'MAKER3 DYNAMICS',
    [
      ['MAKER3 DYNAMICS WIDGETS', 0.8485, 'jaccard'],
      ['ZETA DYNAMICS', 0.2065, 'jaccard'],
      ['ZETA DYNAMICS CORP', 0.198, 'jaccard'],
      ['ZETA DYNAMICS FEDERAL SYSTEMS', 0.1902, 'jaccard'],
      ['MAKER0 DYNAMICS WIDGETS', 0.1753, 'jaccard'],
    ],
  ],
  ['QUUX QUUZ', []],
  [
    'BIG2 DYNAMICS AERO',
    [
      ['BIG2 DYNAMICS AERO WIDGETS', 0.8931, 'jaccard'],
      ['BIG0 DYNAMICS AERO WIDGETS', 0.3484, 'jaccard'],
      ['BIG1 DYNAMICS AERO WIDGETS', 0.3484, 'jaccard'],
      ['BIG3 DYNAMICS AERO WIDGETS', 0.3484, 'jaccard'],
      ['BIG4 DYNAMICS AERO WIDGETS', 0.3484, 'jaccard'],
    ],
  ],
  [
    'DYNAMICS AERO',
    [
      ['BIG0 DYNAMICS AERO WIDGETS', 0.4891, 'jaccard'],
      ['BIG1 DYNAMICS AERO WIDGETS', 0.4891, 'jaccard'],
      ['BIG2 DYNAMICS AERO WIDGETS', 0.4891, 'jaccard'],
      ['BIG3 DYNAMICS AERO WIDGETS', 0.4891, 'jaccard'],
      ['BIG4 DYNAMICS AERO WIDGETS', 0.4891, 'jaccard'],
    ],
  ],
  [
    'AAA BBB',
    [
      ['BBB QB0', 0.302, 'jaccard'],
      ['BBB QB1', 0.302, 'jaccard'],
      ['BBB QB2', 0.302, 'jaccard'],
      ['BBB QB3', 0.302, 'jaccard'],
      ['BBB QB4', 0.302, 'jaccard'],
    ],
  ],
];

test('ranks as scoring every candidate does: order, ties, rules and similarities', () => {
  const index = buildNameIndex(ENTRIES);
  for (const [input, expected] of EXPECTED) {
    const ranked = index
      .rank(input.split(' '))
      .map((c) => [c.norm, Math.round(c.similarity * 1e4) / 1e4, c.rule]);
    assert.deepEqual(ranked, expected, input);
  }
});

test('a query leaves nothing behind for the next one', () => {
  const index = buildNameIndex(ENTRIES);
  const first = index.rank(['ZETA', 'DYNAMICS', 'MARINE']);
  index.rank(['HONEYWELL', 'WORLDWIDE']);
  index.rank([]);
  assert.deepEqual(index.rank(['ZETA', 'DYNAMICS', 'MARINE']), first);
});
