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
  // Measured with this alias seed (160 names): precision 1.000, recall 0.537. Misses are mostly
  // acquired brands (Dynetics, Insitu, Orbital Sciences) that need curated aliases.
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
