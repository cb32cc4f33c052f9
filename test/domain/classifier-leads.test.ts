import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify, matchingRules, patternLeads } from '../../src/domain/classifier.ts';
import { KEYWORD_RULES } from '../../src/domain/classifier-rules.ts';
import { CLASSIFICATION_LABELS } from '../../src/domain/types.ts';
import { DEMO_DATA_DIR } from '../../src/pipeline/seed.ts';
import { loadDemoAwards } from '../../src/sources/awards.ts';

/** Word starts of `text` as \b sees them (ASCII word characters). */
function words(text: string): string[] {
  return text.match(/\w+/g) ?? [];
}

const TRICKY = [
  'F-35A LOT 17',
  'KC-46 TANKER',
  'AN/ALQ-99 JAMMER',
  '155MM PROJECTILE',
  '155 MM',
  '1234567890!NOUN',
  'x 123456789!BEARING',
  'x-123456789!BEARING',
  'x\t1234567890!SEAL',
  'x\u00a0123456789!NOUN: VALVE',
  '123456789!',
  'A/C REPAIR',
  'A&A SUPPORT',
  'O&M OF SYSTEMS',
  'DDG-51 CLASS',
  'DDG 1000',
  'T-AO 205',
  'AIM-9X',
  'SM-6',
  'PAC-3 MSE',
  'R&D',
  'RDT&E',
  'S&T',
  'INCREMENT 2',
  'PHASE II SBIR',
  'SYSTEMS INTEGRATION',
  'ORBITER',
  'TORPEDOES',
  'EO/IR',
  'E-FILE',
  'JP8 FUEL',
  'IT',
  '4X4 TRUCK',
  'NON-RECURRING ENGINEERING',
  'ÉTUDE-RESEARCH',
  '_F16',
];

async function corpus(): Promise<string[]> {
  const { awards } = await loadDemoAwards(DEMO_DATA_DIR);
  const texts = awards.flatMap((a) => (a.description ? [a.description.toUpperCase()] : []));
  return [...texts, ...TRICKY];
}

test('every keyword pattern has literal leads, so the classifier can skip it', () => {
  for (const rule of KEYWORD_RULES) assert.notEqual(patternLeads(rule.pattern), 'any', rule.pattern.source);
});

test('a keyword pattern matches only texts with a word starting with one of its leads', async () => {
  for (const text of await corpus()) {
    const starts = words(text);
    for (const rule of KEYWORD_RULES) {
      if (!rule.pattern.test(text)) continue;
      const leads = patternLeads(rule.pattern);
      if (leads === 'any') continue;
      const found = starts.some((w) =>
        [...leads].some((lead) => (lead === '\\d' ? /^\d/.test(w) : w.startsWith(lead))),
      );
      assert.ok(found, `${rule.pattern.source} matches ${JSON.stringify(text)} without a lead`);
    }
  }
});

test('a rule is found matching exactly when its pattern matches somewhere in the text', async () => {
  for (const text of await corpus()) {
    const expected = KEYWORD_RULES.flatMap((rule, i) => (rule.pattern.test(text) ? [i] : []));
    assert.deepEqual(
      [...matchingRules(text)].sort((a, b) => a - b),
      expected,
      text,
    );
  }
});

test('labels are what testing every rule on every text gives (the rules skipped could not match)', async () => {
  for (const text of await corpus()) {
    const scores = new Map<string, number>();
    const upper = text.toUpperCase();
    const fpds = /^\s*\d{6}![0-9A-Z]{6}![0-9A-Z]{4}![0-9A-Z]{6}!([^!]*)!/.exec(upper)?.[1] ?? upper;
    if (fpds.trim() !== '') {
      for (const rule of KEYWORD_RULES) {
        if (rule.pattern.test(fpds)) scores.set(rule.label, (scores.get(rule.label) ?? 0) + rule.weight);
      }
    }
    let best = 'other';
    let bestScore = 0;
    for (const label of CLASSIFICATION_LABELS) {
      const score = scores.get(label) ?? 0;
      if (score > bestScore) [best, bestScore] = [label, score];
    }
    assert.equal(classify({ description: text }), best, text);
  }
});
