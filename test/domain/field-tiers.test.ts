import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FIELD_TIERS, fieldShown, forTier, withheldFields } from '../../src/domain/field-tiers.ts';
import { TIERS } from '../../src/domain/types.ts';

const bundle = () => ({
  contract: { id: 'C' },
  signal: { id: 'S', signal_score: 80, rationale: [{ rule: 'size' }] },
  regime: { dominant: 'risk_on' },
  decay: null,
});

describe('the tier policy table', () => {
  test('below the tier: an `absent` field is left out, a `null` one nulled, nested records too', () => {
    const original = bundle();
    const shown = forTier('contract_bundle', original, 'developer');
    assert.deepEqual(shown, {
      contract: { id: 'C' },
      signal: { id: 'S', signal_score: 80 },
      regime: null,
      decay: null,
    });
    assert.deepEqual(original, bundle(), 'the value given is not changed');
  });

  test('on the tier and above, everything is shown', () => {
    assert.deepEqual(forTier('contract_bundle', bundle(), 'intelligence'), bundle());
  });

  test('a missing field stays missing; a null record stays null', () => {
    assert.deepEqual(forTier('signal', { id: 'S' }, 'free'), { id: 'S' });
    assert.deepEqual(forTier('contract_bundle', { signal: null }, 'free'), { signal: null });
  });

  test('every rule names a known tier and a known way to withhold', () => {
    for (const fields of Object.values(FIELD_TIERS)) {
      for (const rule of Object.values(fields)) {
        assert.ok((TIERS as readonly string[]).includes(rule.tier));
        assert.ok(rule.below === 'absent' || rule.below === 'null');
      }
    }
  });

  test('fieldShown and withheldFields read the same rules', () => {
    assert.equal(fieldShown('developer', 'contract_bundle', 'regime'), false);
    assert.equal(fieldShown('intelligence', 'contract_bundle', 'regime'), true);
    assert.deepEqual(withheldFields('contract_bundle', 'developer'), { regime: 'intelligence' });
    assert.deepEqual(withheldFields('contract_bundle', 'intelligence'), {});
  });
});
