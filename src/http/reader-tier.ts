import type { FastifyRequest } from 'fastify';
import { fieldShown, forTier, type TieredField, type TieredRecord } from '../domain/field-tiers.ts';
import { PLAN_LIMITS } from '../domain/plans.ts';
import type { Tier } from '../domain/types.ts';

/**
 * The tier a request reads on: its key's plan's, else its dashboard session's user's, else `free`
 * (a keyless call of an open route). The API and the dashboard serve records through the functions
 * below, so both apply src/domain/field-tiers.ts the same way.
 */
export function readerTier(request: FastifyRequest): Tier {
  const plan = request.principal?.plan ?? request.session?.user.plan;
  return plan ? PLAN_LIMITS[plan].tier : 'free';
}

/** `value` as this request's reader may see it (field-tiers.ts `forTier`). */
export const shownTo = <T extends object>(request: FastifyRequest, record: TieredRecord, value: T): T =>
  forTier(record, value, readerTier(request));

/** Whether this request's reader sees `field` of `record` (for lists built in SQL). */
export const showsField = <R extends TieredRecord>(
  request: FastifyRequest,
  record: R,
  field: TieredField<R>,
): boolean => fieldShown(readerTier(request), record, field);
