/** The stored contracts' resolutions, read and rewritten by `market-intel reresolve` (pipeline/reresolve.ts). */
import type { Db } from './db.ts';
import type { IdentityColumns } from './identity-columns.ts';

export interface StoredResolution {
  id: string;
  ticker: string | null;
  recipient_name: string;
  parent_name: string | null;
  award_date: string;
  source: string;
  entity_id: string | null;
  series_ticker: string | null;
  resolver_version: string | null;
}

export interface ResolutionChange {
  id: string;
  ticker: string | null;
  confidence: number;
  method: string;
  identity: IdentityColumns;
  /** The ticker changed. */
  moved: boolean;
}

/** Every stored contract's recipient, date and current resolution, in id order. */
export function storedResolutions(db: Db): Promise<StoredResolution[]> {
  return db.query<StoredResolution>(
    `SELECT id, ticker, recipient_name, parent_name, to_char(award_date, 'YYYY-MM-DD') AS award_date, source,
       entity_id, series_ticker, resolver_version FROM contracts ORDER BY id`,
  );
}

/**
 * One statement per batch. A contract that lost its ticker loses its signals (they named the old one);
 * one that moved keeps them until rescoring rewrites them in place with the new ticker.
 */
export async function writeResolutions(db: Db, changes: readonly ResolutionChange[]): Promise<void> {
  const col = <T>(pick: (c: ResolutionChange) => T) => changes.map(pick);
  await db.transaction(async (tx) => {
    await tx.query(
      `UPDATE contracts c SET ticker = u.ticker, match_confidence = u.confidence, match_method = u.method,
         entity_id = u.entity_id, entity_name = u.entity_name, owner_name = u.owner_name,
         series_ticker = u.series_ticker, resolution_basis = u.basis, no_ticker_reason = u.reason,
         venture_parents = u.parents, resolver_version = u.version, updated_at = now()
       FROM unnest($1::text[], $2::text[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                   $9::text[], $10::text[], $11::text[], $12::text[])
         AS u(id, ticker, confidence, method, entity_id, entity_name, owner_name, series_ticker, basis, reason, parents, version)
       WHERE c.id = u.id`,
      [
        col((c) => c.id),
        col((c) => c.ticker),
        col((c) => c.confidence),
        col((c) => c.method),
        col((c) => c.identity.entityId),
        col((c) => c.identity.entityName),
        col((c) => c.identity.ownerName),
        col((c) => c.identity.seriesTicker),
        col((c) => c.identity.basis),
        col((c) => c.identity.reason),
        col((c) => c.identity.ventureParents),
        col((c) => c.identity.resolverVersion),
      ],
    );
    await tx.query('DELETE FROM signals WHERE contract_id = ANY($1::text[])', [
      changes.filter((c) => c.moved && c.ticker === null).map((c) => c.id),
    ]);
  });
}
