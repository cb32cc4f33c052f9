/** A dated resolution as the contracts row stores it (migration 023), and back as the API's object. */
import type { DatedResolution } from '../domain/dated-resolver.ts';

export interface IdentityColumns {
  entityId: string | null;
  entityName: string | null;
  ownerName: string | null;
  seriesTicker: string | null;
  basis: string;
  reason: string | null;
  /** JSON text of the joint venture's parents, or null. */
  ventureParents: string | null;
  resolverVersion: string;
}

export function identityColumns(r: DatedResolution, version: string): IdentityColumns {
  return {
    entityId: r.entity?.id ?? null,
    entityName: r.entity?.name ?? null,
    ownerName: r.owner?.name ?? null,
    seriesTicker: r.ticker === null ? null : r.series,
    basis: r.basis,
    reason: r.reason,
    ventureParents: r.parents.length === 0 ? null : JSON.stringify(r.parents),
    resolverVersion: version,
  };
}

/** The columns in the order writes.ts stages them. */
export const IDENTITY_STAGE = [
  ['entity_id', 'text'],
  ['entity_name', 'text'],
  ['owner_name', 'text'],
  ['series_ticker', 'text'],
  ['resolution_basis', 'text'],
  ['no_ticker_reason', 'text'],
  ['venture_parents', 'text'],
  ['resolver_version', 'text'],
] as const;

export const identityRecord = (c: IdentityColumns): unknown[] => [
  c.entityId,
  c.entityName,
  c.ownerName,
  c.seriesTicker,
  c.basis,
  c.reason,
  c.ventureParents,
  c.resolverVersion,
];
