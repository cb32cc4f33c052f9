import { tierReaches } from './plans.ts';
import type { Tier } from './types.ts';

/**
 * The tier policy of the served records: which fields need a tier above the one of the route that
 * serves them. One table, read by every representation of a record — the API's bundles and lists, the
 * dashboard's API, CSV and NDJSON exports, webhook payloads — so a field added here is withheld
 * everywhere at once (test/security/field-tiers.test.ts reads this table to know what to look for).
 *
 * Below its tier a field is `absent` when the record's shape makes it optional (the signal's
 * rationale), `null` when the shape always has the member (the bundle's regime, which is also null
 * when none was computed): the OpenAPI schema says which, so a client's types stay true.
 *
 * The lists and exports write their JSON in SQL for speed: there a tiered column is selected only when
 * `fieldShown` says so (`withRationale` in store/); a field added here that such a list serves must be
 * made conditional there too, and the test fails until it is.
 *
 * Whole records carry their own tier instead: a signal's `engine_tier` is the tier of its engine
 * (`engine=` above the caller's is a 403; webhooks only carry signals their owner's plan reaches).
 */
export interface FieldRule {
  tier: Tier;
  below: 'absent' | 'null';
}

export const FIELD_TIERS = {
  signal: {
    rationale: { tier: 'intelligence', below: 'absent' },
  },
  contract_bundle: {
    // The regime is /api/v1/regimes' data, an intelligence-tier endpoint.
    regime: { tier: 'intelligence', below: 'null' },
  },
  company_page: {
    // The dashboard's regime band over a company's candles: the same regimes.
    regimes: { tier: 'intelligence', below: 'null' },
  },
  signal_created: {
    // A webhook's event: the event's prediction is /api/v1/predictions' data, an intelligence-tier endpoint.
    prediction: { tier: 'intelligence', below: 'absent' },
  },
} as const satisfies Record<string, Record<string, FieldRule>>;

export type TieredRecord = keyof typeof FIELD_TIERS;
export type TieredField<R extends TieredRecord> = keyof (typeof FIELD_TIERS)[R] & string;

/** Records nested in another, each under its own rules (a bundle's signal is a signal). */
export const NESTED_RECORDS: Partial<Record<TieredRecord, Record<string, TieredRecord>>> = {
  contract_bundle: { signal: 'signal' },
  signal_created: { signal: 'signal' },
};

export function fieldRule<R extends TieredRecord>(record: R, field: TieredField<R>): FieldRule {
  return (FIELD_TIERS[record] as Record<string, FieldRule>)[field] as FieldRule;
}

/** Whether a reader on `reader` tier sees `field` of `record`. */
export const fieldShown = <R extends TieredRecord>(reader: Tier, record: R, field: TieredField<R>): boolean =>
  tierReaches(reader, fieldRule(record, field).tier);

/** The tier a field needs, for pages that say which tier would show what they leave out. */
export const fieldTier = <R extends TieredRecord>(record: R, field: TieredField<R>): Tier =>
  fieldRule(record, field).tier;

/**
 * `value` as a reader on `reader` tier may see it: each field above that tier left out or nulled by
 * its rule, nested records likewise. A copy; `value` itself is not changed.
 */
export function forTier<T extends object>(record: TieredRecord, value: T, reader: Tier): T {
  const out = { ...value } as Record<string, unknown>;
  for (const [field, rule] of Object.entries(FIELD_TIERS[record] as Record<string, FieldRule>)) {
    if (tierReaches(reader, rule.tier) || !(field in out)) continue;
    if (rule.below === 'absent') delete out[field];
    else out[field] = null;
  }
  for (const [field, inner] of Object.entries(NESTED_RECORDS[record] ?? {})) {
    const nested = out[field];
    if (nested !== null && typeof nested === 'object') out[field] = forTier(inner, nested, reader);
  }
  return out as T;
}

/** The fields of `record` (not of nested records) a reader on `reader` tier does not see, with their tier. */
export function withheldFields(record: TieredRecord, reader: Tier): Record<string, Tier> {
  const rules = Object.entries(FIELD_TIERS[record] as Record<string, FieldRule>);
  return Object.fromEntries(
    rules.filter(([, rule]) => !tierReaches(reader, rule.tier)).map(([field, rule]) => [field, rule.tier]),
  );
}
