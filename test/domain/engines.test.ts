import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify } from '../../src/domain/classifier.ts';
import { defaultEngine, ENGINES, engineNames, getEngine } from '../../src/domain/engines/index.ts';
import { dollars } from '../../src/domain/engines/materiality.ts';
import {
  type Engine,
  type EngineInput,
  type EngineOutput,
  engineKey,
  type RegimeResult,
} from '../../src/domain/types.ts';
import { parseCsv, sharedData } from './fixtures.ts';

/** Both score every event they are given (the type says so for the modules' own exports). */
const materiality = getEngine('materiality') as Engine<EngineOutput> | undefined;
const regimeAware = getEngine('regime-aware') as Engine<EngineOutput> | undefined;

function input(
  overrides: Partial<EngineInput['contract']> = {},
  trailing = { count: 10, totalValue: 1e9, medianValue: 5e7 },
): EngineInput {
  return {
    contract: {
      id: 'CONT_AWD_TEST',
      ticker: 'LMT',
      value: 100_000_000,
      awardDate: '2024-03-01',
      awardingAgency: 'Department of Defense',
      classification: 'aircraft',
      matchConfidence: 0.99,
      ...overrides,
    },
    company: null,
    trailing,
    regime: null,
  };
}

const regime = (scores: RegimeResult['scores'], ita = 0.05): RegimeResult => ({
  asOf: '2024-02-29',
  benchmark: 'SPY',
  dominant: 'risk_on',
  scores,
  features: { ita_rel_60d: ita, xli_rel_60d: -0.02 },
  version: 'test',
});

function sumOf(out: EngineOutput): number {
  return out.rationale.reduce((s, r) => s + r.contribution, 0);
}

test('the registry lists the engines with materiality as the default', () => {
  assert.deepEqual(engineNames(), ['materiality', 'regime-aware', 'announcement-size', 'announcement-dv']);
  assert.equal(defaultEngine().name, 'materiality');
  assert.equal(ENGINES.filter((e) => e.isDefault).length, 1);
  assert.equal(getEngine('nope'), undefined);
  assert.deepEqual(
    ENGINES.map((e) => [e.name, e.version, e.tier]),
    [
      ['materiality', '2.0.0', 'developer'],
      ['regime-aware', '1.1.0', 'intelligence'],
      ['announcement-size', 'ann-size-1', 'developer'],
      ['announcement-dv', 'ann-dv-1', 'developer'],
    ],
  );
});

test('materiality rationale contributions add up to the signal score', () => {
  assert.ok(materiality);
  const out = materiality.score(input());
  // size: (8 − 6)/2.5 = 0.8 → 28; median ratio 2 → 0.5 + log10(2)/2 = 0.650515 → 16.2629;
  // share 1e8/1.1e9 = 0.090909 → (log10(0.090909) + 3)/3 = 0.652869 → 6.5287; defense 10;
  // aircraft 15; match (0.99−0.8)/0.2 = 0.95 → 4.75.
  assert.deepEqual(
    out.rationale.map((r) => [r.rule, r.contribution]),
    [
      ['award_size', 28],
      ['relative_to_median', 16.2629],
      ['share_of_trailing', 6.5287],
      ['agency', 10],
      ['classification', 15],
      ['match_confidence', 4.75],
    ],
  );
  assert.equal(out.scores.signal, 81); // round(80.5416)
  assert.equal(out.scores.signal, Math.round(sumOf(out)));
  for (const value of Object.values(out.scores))
    assert.ok(Number.isInteger(value) && value >= 0 && value <= 100);
});

test('a company with no trailing awards gets neutral relative rules', () => {
  assert.ok(materiality);
  const out = materiality.score(input({}, { count: 0, totalValue: 0, medianValue: 0 }));
  const relative = out.rationale.find((r) => r.rule === 'relative_to_median');
  const share = out.rationale.find((r) => r.rule === 'share_of_trailing');
  assert.equal(relative?.value, 0.5);
  assert.equal(share?.value, 0.5);
  assert.match(relative?.detail ?? '', /no trailing awards/);
});

test('regime-aware without a regime equals materiality plus an explanatory row', () => {
  assert.ok(materiality && regimeAware);
  const base = materiality.score(input());
  const out = regimeAware.score(input());
  assert.deepEqual(out.scores, base.scores);
  assert.deepEqual(out.rationale.slice(0, -1), base.rationale);
  assert.equal(out.rationale.at(-1)?.rule, 'regime_unavailable');
  assert.equal(out.rationale.at(-1)?.contribution, 0);
});

test('regime-aware lifts a signal in a risk-on tape and cuts it in a volatile sell-off', () => {
  assert.ok(materiality && regimeAware);
  const base = materiality.score(input()).scores.signal;
  const calm = {
    ...input(),
    regime: regime({ risk_on: 0.8, risk_off: 0.05, high_volatility: 0.05, range_bound: 0.1 }),
  };
  const storm = {
    ...input(),
    regime: regime({ risk_on: 0.05, risk_off: 0.45, high_volatility: 0.45, range_bound: 0.05 }, -0.08),
  };
  const up = regimeAware.score(calm);
  const down = regimeAware.score(storm);
  // calm: +10·0.8 − 8·0.05 − 6·0.05 + 50·0.05 = +9.8 on 80.5416 → 90.3416 → 90.
  assert.equal(up.scores.signal, 90);
  // storm: +0.5 − 3.6 − 2.7 − 4 = −9.8 → 70.7416 → 71.
  assert.equal(down.scores.signal, 71);
  assert.ok(up.scores.signal > base && down.scores.signal < base);
  assert.ok(down.scores.risk > up.scores.risk);
  assert.equal(Math.round(sumOf(up)), up.scores.signal);
  assert.ok(up.rationale.some((r) => r.rule === 'sector_relative_strength' && /ITA/.test(r.detail)));
});

test('scores spread across 0–100 on real awards and are deterministic', () => {
  assert.ok(materiality && regimeAware);
  const awards = spreadOfRealAwards();
  const signals = awards.map((a) => materiality.score(a).scores.signal);
  const min = Math.min(...signals);
  const max = Math.max(...signals);
  console.log(`engines: ${awards.length} awards, materiality signal min ${min} max ${max}`);
  assert.ok(min < 30, `min ${min}`);
  assert.ok(max > 80, `max ${max}`);
  for (const a of awards) {
    assert.deepEqual(materiality.score(a), materiality.score(structuredClone(a)));
    assert.deepEqual(regimeAware.score(a), regimeAware.score(structuredClone(a)));
  }
});

/** Every 50th 12-primes award plus the civilian JSON awards, with trailing stats from the file. */
function spreadOfRealAwards(): EngineInput[] {
  const primes = parseCsv(
    sharedData('contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv'),
  );
  const picked = primes.filter((_, i) => i % 50 === 0);
  return picked.map((row) => {
    const date = row.action_date ?? '';
    const ticker = row.ticker ?? '';
    const yearBefore = new Date(Date.parse(date) - 365 * 86_400_000).toISOString().slice(0, 10);
    const prior = primes
      .filter(
        (p) => p.ticker === ticker && (p.action_date ?? '') < date && (p.action_date ?? '') >= yearBefore,
      )
      .map((p) => Number(p.transaction_amount))
      .sort((a, b) => a - b);
    return {
      ...input({
        ticker,
        value: Math.round(Number(row.transaction_amount)),
        awardDate: date,
        awardingAgency: row.awarding_agency ?? '',
        classification: classify({ description: row.transaction_description ?? null }),
        matchConfidence: 0.9,
      }),
      trailing: {
        count: prior.length,
        totalValue: prior.reduce((a, b) => a + b, 0),
        medianValue: prior[Math.floor(prior.length / 2)] ?? 0,
      },
    };
  });
}

test('dollar amounts in rationale details read as toLocaleString writes them', () => {
  for (const x of [0, 7, 999, 1000, 12_345.6, -1_234_567, 5e10, 987_654_321.49]) {
    assert.equal(dollars(x), Math.round(x).toLocaleString('en-US'), String(x));
  }
});

test("regime-aware given materiality's output for the same input gives what it computes alone", () => {
  assert.ok(materiality && regimeAware);
  const calm = regime({ risk_on: 0.7, risk_off: 0.05, high_volatility: 0.1, range_bound: 0.15 });
  for (const one of [input(), { ...input({ classification: 'it_services' }), regime: calm }]) {
    const base = materiality.score(one);
    const earlier = new Map([[engineKey(materiality), base]]);
    const shared = regimeAware.score(one, earlier);
    assert.deepEqual(shared, regimeAware.score(one));
    // It starts with materiality's own rows and leaves materiality's output as it was.
    assert.equal(shared.rationale[0], base.rationale[0]);
    assert.deepEqual(base, materiality.score(one));
  }
});
