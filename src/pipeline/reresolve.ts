/**
 * Re-resolution after the identity data or the resolver changed: loads data/identity into the store,
 * resolves every stored contract again on its own date, writes the ones whose resolution changed,
 * drops the signals of those that lost their ticker, and rescores those whose ticker moved (a signal
 * carries its ticker, and the trailing statistics of the old and new tickers both change).
 */
import { loadIdentityFiles } from '../sources/identity.ts';
import type { Db } from '../store/db.ts';
import { replaceIdentity, saveResolverVersion, storedResolverVersion } from '../store/identity.ts';
import { type IdentityColumns, identityColumns } from '../store/identity-columns.ts';
import { createPipelineContext, type PipelineContext } from './context.ts';
import { scoreStored } from './score.ts';

export interface ReresolveReport {
  previousVersion: string | null;
  version: string;
  contracts: number;
  /** Contracts whose ticker changed (to another ticker, to none, or from none). */
  moved: number;
  /** Contracts whose stored resolution changed in any way (ticker, entity, series, version). */
  changed: number;
  signalsCreated: number;
}

interface StoredResolution {
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

interface Change {
  id: string;
  ticker: string | null;
  confidence: number;
  method: string;
  identity: IdentityColumns;
}

const BATCH = 5000;

export async function reresolve(
  db: Db,
  options: { signalThreshold: number; dataDir: string; now?: () => Date; log?: (line: string) => void },
): Promise<ReresolveReport> {
  const log = options.log ?? (() => undefined);
  await replaceIdentity(db, await loadIdentityFiles(options.dataDir));
  const ctx = await createPipelineContext(db, { signalThreshold: options.signalThreshold, now: options.now });
  const previousVersion = await storedResolverVersion(db);
  const rows = await db.query<StoredResolution>(
    `SELECT id, ticker, recipient_name, parent_name, to_char(award_date, 'YYYY-MM-DD') AS award_date, source,
       entity_id, series_ticker, resolver_version FROM contracts ORDER BY id`,
  );
  const changes = rows
    .map((row) => changeOf(ctx, row))
    .filter((c): c is Change & { moved: boolean } => c !== null);
  for (let i = 0; i < changes.length; i += BATCH) await writeChanges(db, changes.slice(i, i + BATCH));
  const moved = changes.filter((c) => c.moved);
  const rescore = moved.filter((c) => c.ticker !== null).map((c) => c.id);
  const scored =
    rescore.length === 0 ? { created: 0 } : await scoreStored(ctx, { kind: 'ids', ids: rescore }, log);
  await saveResolverVersion(db, ctx.identity.version, ctx.now());
  return {
    previousVersion,
    version: ctx.identity.version,
    contracts: rows.length,
    moved: moved.length,
    changed: changes.length,
    signalsCreated: scored.created,
  };
}

function changeOf(ctx: PipelineContext, row: StoredResolution): (Change & { moved: boolean }) | null {
  const match = ctx.identity.resolveAt({
    recipientName: row.recipient_name,
    parentName: row.parent_name,
    date: row.award_date,
    basis: row.source === 'announcement' ? 'announcement_date' : 'award_date',
  });
  const identity = identityColumns(match, ctx.identity.version);
  const same =
    match.ticker === row.ticker &&
    identity.entityId === row.entity_id &&
    identity.seriesTicker === row.series_ticker &&
    identity.resolverVersion === row.resolver_version;
  if (same) return null;
  return {
    id: row.id,
    ticker: match.ticker,
    confidence: match.confidence,
    method: match.method,
    identity,
    moved: match.ticker !== row.ticker,
  };
}

/**
 * One statement per batch. A contract that lost its ticker loses its signals (they named the old one);
 * one that moved keeps them until rescoring rewrites them in place with the new ticker.
 */
async function writeChanges(db: Db, changes: readonly (Change & { moved: boolean })[]): Promise<void> {
  const col = <T>(pick: (c: Change) => T) => changes.map(pick);
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
