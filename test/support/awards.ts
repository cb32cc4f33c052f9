import type { AwardRecord } from '../../src/domain/types.ts';
import type { PipelineContext } from '../../src/pipeline/context.ts';

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

/** A bulk-download record whose recipient has a ticker on the award's own date (its owner then was listed). */
export function resolvesOnItsDate(ctx: PipelineContext, record: Record<string, unknown>): boolean {
  const parent = record.recipient_parent_name;
  return (
    ctx.identity.resolveAt({
      recipientName: String(record.recipient_name),
      parentName: typeof parent === 'string' ? parent : null,
      date: String(record.award_base_action_date).slice(0, 10),
      basis: 'award_date',
    }).ticker !== null
  );
}
