import type { AwardRecord } from '../../src/domain/types.ts';

/**
 * A Department of Defense award to Lockheed Martin (in the shipped aliases, so it is matched and
 * scored), id `CONT_AWD_<key>_9700_-NONE-_-NONE-`; `overrides` sets anything else.
 */
export function lockheedAward(key: string, overrides: Partial<AwardRecord> = {}): AwardRecord {
  return {
    id: `CONT_AWD_${key}_9700_-NONE-_-NONE-`,
    piid: key,
    recipientName: 'LOCKHEED MARTIN CORPORATION',
    recipientUei: null,
    parentName: null,
    parentUei: null,
    awardingAgency: 'Department of Defense',
    awardingSubAgency: 'Department of the Navy',
    value: 1_000_000,
    awardDate: '2024-03-15',
    description: null,
    naics: null,
    psc: null,
    sourceModifiedAt: null,
    ...overrides,
  };
}
