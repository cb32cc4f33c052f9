import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLASSIFIER_VERSION, classify, classifyFromPsc } from '../../src/domain/classifier.ts';
import { parseCsv, sharedData } from './fixtures.ts';

interface JsonAward {
  description: string | null;
  psc_code: string | null;
  naics_code: string | null;
}

test('has a version tag', () => {
  assert.equal(CLASSIFIER_VERSION, 'kw-2');
});

test('classifyFromPsc maps product groups and service letters', () => {
  assert.equal(classifyFromPsc('1560'), 'aircraft');
  assert.equal(classifyFromPsc('2840'), 'aircraft');
  assert.equal(classifyFromPsc('1905'), 'shipbuilding');
  assert.equal(classifyFromPsc('1410'), 'missiles_munitions');
  assert.equal(classifyFromPsc('1305'), 'missiles_munitions');
  assert.equal(classifyFromPsc('1820'), 'space');
  assert.equal(classifyFromPsc('2310'), 'ground_vehicles');
  assert.equal(classifyFromPsc('5825'), 'electronics_comms');
  assert.equal(classifyFromPsc('7A21'), 'it_services');
  assert.equal(classifyFromPsc('D399'), 'it_services');
  assert.equal(classifyFromPsc('DJ10'), 'cybersecurity');
  assert.equal(classifyFromPsc('AC13'), 'research_development');
  assert.equal(classifyFromPsc('Y1AA'), 'construction_facilities');
  assert.equal(classifyFromPsc('Q301'), 'healthcare');
  assert.equal(classifyFromPsc('6505'), 'healthcare');
  assert.equal(classifyFromPsc('R499'), 'professional_services');
  assert.equal(classifyFromPsc('5310'), 'logistics_supply');
  assert.equal(classifyFromPsc('J015'), 'aircraft');
  assert.equal(classifyFromPsc('K016'), 'aircraft');
  assert.equal(classifyFromPsc(''), null);
});

test('reads platform programs out of terse all-caps descriptions', () => {
  const cases: [string, string][] = [
    ['ACAT 1D, KC-46, LOT 6 AND LOT 7 OPTION', 'aircraft'],
    ['P-8A LOT 12 AIRCRAFT FOR THE USN (QTY 9) AND RAAF (QTY 2)', 'aircraft'],
    ['F-15EX LOT 5', 'aircraft'],
    ['V-22 CONVERSION AREA HARNESS (CAH) STEP 2 MV, CMV, AND CV NRE', 'aircraft'],
    ['DDG 51', 'shipbuilding'],
    ['THREE FUTURE LCAC 100 CLASS CRAFT LONG LEAD TIME MATERIAL', 'shipbuilding'],
    ['SM-6 BLK IA TACTICAL ALL UP ROUND (AUR)', 'missiles_munitions'],
    [
      'GUIDED MULTIPLE LAUNCH ROCKET SYSTEM (GMLRS) AND LOW COST REDUCED RANGE PRACTICE ROCKET',
      'missiles_munitions',
    ],
    [
      'UNDEFINITIZED DELIVERY ORDER FOR 253,913 UNITS OF 155MM M119A2 PROPELLING BAG CHARGES',
      'missiles_munitions',
    ],
    ['MULTIBAND RADIOS', 'electronics_comms'],
    ['4X4 PICKUP, FULL SIZE, CREW CAB, MIN 9201 LBS GVWR', 'ground_vehicles'],
    ['DCPDS SOFTWARE SUSTAINMENT SUPPORT SERVICES', 'it_services'],
    ['ZERO TRUST ARCHITECTURE IMPLEMENTATION', 'cybersecurity'],
    ['8510764623!BUSHING,SLEEVE', 'logistics_supply'],
    ['8510426027!STIFFENER,AIRCRAFT', 'aircraft'],
    ['REPAIR ROOF', 'construction_facilities'],
    ['IGF::OT::IGF', 'other'],
  ];
  for (const [description, label] of cases) assert.equal(classify({ description }), label, description);
});

test('a PSC outweighs the wording, and NAICS breaks silence', () => {
  assert.equal(classify({ description: 'IGF::OT::IGF', psc: 'D399' }), 'it_services');
  assert.equal(classify({ description: 'INERTIAL NAVIGATION', psc: '1680' }), 'aircraft');
  assert.equal(classify({ description: 'OPTION YEAR 2', naics: '336611' }), 'shipbuilding');
  assert.equal(classify({ description: null }), 'other');
});

test('description-only accuracy against PSC-derived labels on the 238 USASpending awards', () => {
  const awards = JSON.parse(sharedData('contracts/usaspending_contract_awards.json')) as JsonAward[];
  const { n, accuracy } = descriptionOnlyAccuracy(
    awards.map((a) => ({ description: a.description, psc: a.psc_code })),
  );
  console.log(
    `classifier ${CLASSIFIER_VERSION}: description-only accuracy ${accuracy.toFixed(3)} on ${n} awards`,
  );
  // Measured 0.567 on 238. The PSC itself is a noisy label: R (professional) vs D (IT) for the
  // same kind of task order accounts for a fifth of the misses. 14 labels: chance is ~0.07.
  assert.equal(n, 238);
  assert.ok(accuracy >= 0.55, `accuracy ${accuracy}`);
});

test('description-only accuracy on the FY2006 DoD sample (short free-text descriptions)', () => {
  const rows = parseCsv(sharedData('contracts/usaspending_legacy_datafeed_dod_fy2006_sample999.csv'));
  const { n, accuracy } = descriptionOnlyAccuracy(
    rows.map((r) => ({
      description: (r.descriptionofcontractrequirement ?? '').trim() || null,
      psc: (r.productorservicecode ?? '').split(':')[0] ?? null,
    })),
  );
  console.log(
    `classifier ${CLASSIFIER_VERSION}: FY2006 description-only accuracy ${accuracy.toFixed(3)} on ${n} awards`,
  );
  // Measured 0.458 on 203 (descriptions like "NAVY REQMT" or "ADMIN MOD" carry no signal).
  assert.ok(n >= 200);
  assert.ok(accuracy >= 0.44, `accuracy ${accuracy}`);
});

function descriptionOnlyAccuracy(rows: { description: string | null; psc: string | null }[]): {
  n: number;
  accuracy: number;
} {
  let n = 0;
  let hits = 0;
  for (const row of rows) {
    const gold = row.psc ? classifyFromPsc(row.psc) : null;
    if (gold === null || row.description === null) continue;
    n += 1;
    if (classify({ description: row.description }) === gold) hits += 1;
  }
  return { n, accuracy: n === 0 ? 0 : hits / n };
}

test('labels every 12-primes award deterministically, mostly as platforms or services', () => {
  const rows = parseCsv(sharedData('contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv'));
  const counts = new Map<string, number>();
  for (const r of rows) {
    const label = classify({ description: r.transaction_description ?? null });
    assert.equal(classify({ description: r.transaction_description ?? null }), label);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const other = counts.get('other') ?? 0;
  console.log(`classifier: 12-primes label counts ${JSON.stringify(Object.fromEntries(counts))}`);
  assert.equal(rows.length, 5650);
  assert.ok(other / rows.length < 0.3, `other share ${other / rows.length}`);
  assert.ok((counts.get('aircraft') ?? 0) > 500);
});
