import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AliasEntry, buildResolver, type CompanyName } from '../../src/domain/resolver.ts';
import { parseCsv, sharedData } from './fixtures.ts';

const companies: CompanyName[] = parseCsv(sharedData('companies/sec_company_tickers_exchange.csv')).map(
  (r) => ({ ticker: r.ticker ?? '', name: r.name ?? '' }),
);

/** A hand-curated seed of the kind the store keeps: parents and well-known subsidiaries. */
const ALIASES: AliasEntry[] = [
  ['BOEING', 'BA'],
  ['RAYTHEON', 'RTX'],
  ['UNITED TECHNOLOGIES', 'RTX'],
  ['LOCKHEED MARTIN', 'LMT'],
  ['SIKORSKY AIRCRAFT', 'LMT'],
  ['NORTHROP GRUMMAN', 'NOC'],
  ['GENERAL DYNAMICS', 'GD'],
  ['ELECTRIC BOAT', 'GD'],
  ['L3HARRIS', 'LHX'],
  ['HII', 'HII'],
  ['HUNTINGTON INGALLS', 'HII'],
  ['TEXTRON', 'TXT'],
  ['BELL TEXTRON', 'TXT'],
  ['HONEYWELL', 'HON'],
  ['LEIDOS', 'LDOS'],
  ['PALANTIR', 'PLTR'],
].map(([aliasNorm, ticker]) => ({ aliasNorm: aliasNorm ?? '', ticker: ticker ?? '', source: 'test' }));

const resolver = buildResolver(ALIASES, companies);
const namesOnly = buildResolver([], companies);

/** The labelled files write share classes as "MOG.A"; the SEC list as "MOG-A". */
const sameTicker = (a: string | null, b: string): boolean =>
  a !== null && a.replace('.', '-') === b.replace('.', '-');

test('an exact alias of the normalized recipient wins with top confidence', () => {
  const r = resolver.resolve({ recipientName: 'THE BOEING COMPANY' });
  assert.deepEqual(r, { ticker: 'BA', confidence: 0.99, method: 'exact_alias', nameNorm: 'BOEING' });
});

test('falls back to the parent name alias', () => {
  const r = resolver.resolve({
    recipientName: 'BATH IRON WORKS CORPORATION',
    parentName: 'General Dynamics Corp.',
  });
  assert.equal(r.ticker, 'GD');
  assert.equal(r.method, 'parent_alias');
  assert.equal(r.confidence, 0.95);
});

test('a recipient that starts with an alias matches it fuzzily', () => {
  const r = resolver.resolve({ recipientName: 'LOCKHEED MARTIN AERONAUTICS COMPANY' });
  assert.equal(r.ticker, 'LMT');
  assert.equal(r.method, 'fuzzy');
  assert.ok(r.confidence >= 0.85 && r.confidence < 0.99, `confidence ${r.confidence}`);
});

test('subsidiaries named after a listed parent match its SEC name without any alias', () => {
  assert.equal(
    namesOnly.resolve({ recipientName: 'GENERAL DYNAMICS INFORMATION TECHNOLOGY, INC.' }).ticker,
    'GD',
  );
  assert.equal(namesOnly.resolve({ recipientName: 'NORTHROP GRUMMAN SYSTEMS CORPORATION' }).ticker, 'NOC');
  assert.equal(namesOnly.resolve({ recipientName: 'HUNTINGTON INGALLS INCORPORATED' }).ticker, 'HII');
  assert.equal(namesOnly.resolve({ recipientName: 'BOOZ ALLEN HAMILTON INC' }).ticker, 'BAH');
});

test('guards against look-alike companies', () => {
  assert.notEqual(namesOnly.resolve({ recipientName: 'GENERAL DYNAMICS LAND SYSTEMS INC.' }).ticker, 'GIS');
  assert.equal(namesOnly.resolve({ recipientName: 'GENERAL MILLS INC' }).ticker, 'GIS');
  assert.equal(resolver.resolve({ recipientName: 'UNITED TECHNOLOGIES CORP' }).ticker, 'RTX');
  assert.notEqual(resolver.resolve({ recipientName: 'UNITED STATES STEEL CORP' }).ticker, 'RTX');
  // One shared word is not a match: these are private firms, not Triton International / SOS Ltd.
  assert.equal(namesOnly.resolve({ recipientName: 'TRITON SYSTEMS, INC.' }).ticker, null);
  assert.equal(namesOnly.resolve({ recipientName: 'SOS INTERNATIONAL LLC' }).ticker, null);
  assert.equal(namesOnly.resolve({ recipientName: 'NATIONAL STEEL AND SHIPBUILDING COMPANY' }).ticker, null);
});

test('unknown private recipients fall below the threshold', () => {
  for (const name of [
    'DELOITTE CONSULTING LLP',
    'PERATON INC.',
    'BATTELLE MEMORIAL INSTITUTE',
    'THE MITRE CORPORATION',
  ]) {
    const r = resolver.resolve({ recipientName: name });
    assert.equal(r.ticker, null, name);
    assert.equal(r.method, 'none');
    assert.ok(r.confidence < 0.8);
  }
});

test('one shared word plus name-forming words is another firm', () => {
  // GROUP, INDUSTRIES, RESEARCH and initials form names; only subsidiary qualifiers may differ.
  for (const [name, notTicker] of [
    ['EASTERN RESEARCH GROUP INC', 'EML'],
    ['R A MILLER INDUSTRIES INC', 'MLR'],
    ['4 STAR TECHNOLOGIES, INC.', 'STHO'],
    ['SCIENCE SYSTEMS AND APPLICATIONS, INC.', 'SAIC'],
  ] as const) {
    assert.notEqual(namesOnly.resolve({ recipientName: name }).ticker, notTicker, name);
  }
  assert.equal(namesOnly.resolve({ recipientName: 'OSHKOSH DEFENSE LLC' }).ticker, 'OSK');
  assert.equal(namesOnly.resolve({ recipientName: 'HONEYWELL INC' }).ticker, 'HON');
});

test('a joint venture naming two companies is left for curation', () => {
  for (const name of ['RAYTHEON/LOCKHEED MARTIN JAVELIN JV', 'BOEING SIKORSKY AIRCRAFT SUPPORT, LLC']) {
    const r = resolver.resolve({ recipientName: name });
    assert.equal(r.ticker, null, name);
    assert.ok(r.confidence <= 0.5, `${name}: ${r.confidence}`);
  }
  // One company's own division is not a joint venture.
  assert.equal(resolver.resolve({ recipientName: 'LOCKHEED MARTIN AERONAUTICS COMPANY' }).ticker, 'LMT');
});

test('a curated family brand carries to unseen members, not to look-alikes', () => {
  const family = buildResolver(
    [
      ['L3HARRIS TECHNOLOGIES, INC.', 'LHX'],
      ['L3HARRIS GLOBAL COMMUNICATIONS, INC.', 'LHX'],
      ['HII FLEET SUPPORT GROUP LLC', 'HII'],
      ['HII TECHNICAL SOLUTIONS CORPORATION', 'HII'],
      ['PRATT & WHITNEY', 'RTX'],
      ['TRU SIMULATION + TRAINING INC.', 'TXT'],
    ].map(([aliasNorm, ticker]) => ({ aliasNorm: aliasNorm ?? '', ticker: ticker ?? '', source: 'test' })),
    companies,
  );
  const brand = family.resolve({ recipientName: 'L3HARRIS MARITIME SERVICES INC' });
  assert.deepEqual([brand.ticker, brand.method], ['LHX', 'fuzzy']);
  assert.ok(brand.confidence >= 0.8 && brand.confidence < 0.85, `${brand.confidence}`);
  assert.equal(family.resolve({ recipientName: 'HII MISSION TECHNOLOGIES CORP' }).ticker, 'HII');
  // One alias "PRATT & WHITNEY" does not make PRATT a brand (Pratt & Miller is Oshkosh's); one
  // "TRU SIMULATION" alias does not make TRU one.
  assert.equal(
    family.resolve({ recipientName: 'PRATT & MILLER ENGINEERING & FABRICATION, LLC' }).ticker,
    null,
  );
  assert.equal(family.resolve({ recipientName: 'TRU-STONE TECHNOLOGIES' }).ticker, null);
});

test('a stricter threshold turns weak fuzzy matches away', () => {
  const strict = buildResolver(ALIASES, companies, { threshold: 0.99 });
  assert.equal(strict.resolve({ recipientName: 'LOCKHEED MARTIN AERONAUTICS COMPANY' }).ticker, null);
  assert.equal(strict.resolve({ recipientName: 'BOEING' }).ticker, 'BA');
});

test('precision and recall on the labelled FY2024 recipient map and the 12-primes recipients', () => {
  const labelled = new Map<string, string>();
  for (const r of parseCsv(sharedData('companies/usaspending_recipient_ticker_map_fy2024.csv'))) {
    if (r.ticker && r.name) labelled.set(r.name, r.ticker);
  }
  for (const r of parseCsv(
    sharedData('contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv'),
  )) {
    if (r.recipient_name && r.ticker) labelled.set(r.recipient_name, r.ticker);
  }
  let correct = 0;
  let wrong = 0;
  for (const [name, ticker] of labelled) {
    const got = resolver.resolve({ recipientName: name }).ticker;
    if (got === null) continue;
    if (sameTicker(got, ticker)) correct += 1;
    else wrong += 1;
  }
  const precision = correct / (correct + wrong);
  const recall = correct / labelled.size;
  console.log(
    `resolver: ${labelled.size} labelled names, precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}`,
  );
  // Measured with this 16-alias seed (160 labelled names): precision 1.000, recall 0.525 (res-2; 0.537 with
  // res-1, which gave the two Javelin/Boeing-Sikorsky joint ventures one of their parents' tickers).
  // Misses are mostly acquired brands (Dynetics, Insitu, Orbital Sciences) that need curated aliases.
  // The held-out measurement with the shipped alias table is test/evaluation/resolver-eval.test.ts.
  assert.ok(precision >= 0.97, `precision ${precision}`);
  assert.ok(recall >= 0.5, `recall ${recall}`);
});

test('resolves at least 20k names per second once built', () => {
  const names = parseCsv(
    sharedData('contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv'),
  ).map((r) => r.recipient_name ?? '');
  const fresh = buildResolver(ALIASES, companies);
  const started = performance.now();
  let n = 0;
  while (n < 20_000) {
    for (const name of names) {
      fresh.resolve({ recipientName: name });
      n += 1;
    }
  }
  const elapsed = performance.now() - started;
  console.log(`resolver: ${n} names in ${elapsed.toFixed(0)} ms`);
  assert.ok(elapsed < 1000, `${elapsed} ms`);
});

test('is deterministic across builds', () => {
  const again = buildResolver(ALIASES, companies);
  for (const name of [
    'RAYTHEON COMPANY',
    'L3HARRIS GLOBAL COMMUNICATIONS, INC.',
    'MOOG INC',
    'ACME WIDGETS',
  ]) {
    assert.deepEqual(again.resolve({ recipientName: name }), resolver.resolve({ recipientName: name }));
  }
});

test('a name met again in other pairs, spellings or roles resolves as it does the first time', () => {
  const pairs = [
    { recipientName: 'NORTHROP GRUMMAN SYSTEMS CORP' },
    { recipientName: 'XYZZY WIDGETS LLC', parentName: 'Northrop Grumman Systems Corporation' },
    { recipientName: 'PLUGH GADGETS INC', parentName: 'NORTHROP GRUMMAN SYSTEMS CORP' },
    { recipientName: 'Honeywell International, Inc.', parentName: 'XYZZY WIDGETS LLC' },
    { recipientName: 'HONEYWELL INTERNATIONAL INC', parentName: null },
    { recipientName: 'HONEYWELL INTERNATIONAL INC', parentName: 'HONEYWELL INTERNATIONAL INC' },
    { recipientName: 'RAYTHEON/LOCKHEED MARTIN JAVELIN JV', parentName: 'Raytheon Technologies' },
  ];
  const warm = buildResolver(ALIASES, companies);
  for (const pair of pairs) warm.resolve(pair);
  const results = pairs.map((pair) => warm.resolve(pair));
  // The parent's fuzzy match counts for less than the same name's own (× 0.95).
  assert.ok((results[1]?.confidence ?? 0) < (results[0]?.confidence ?? 0));
  for (const [i, pair] of [...pairs.entries()].reverse()) {
    assert.deepEqual(results[i], buildResolver(ALIASES, companies).resolve(pair), pair.recipientName);
  }
});
