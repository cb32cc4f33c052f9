/**
 * Re-resolution after the identity data or the resolver changed: loads data/identity into the store,
 * resolves every stored contract again on its own date, writes the ones whose resolution changed,
 * drops the signals of those that lost their ticker, and rescores those whose ticker moved (a signal
 * carries its ticker, and the trailing statistics of the old and new tickers both change).
 */
import { loadIdentityFiles } from '../sources/identity.ts';
import type { Db } from '../store/db.ts';
import { replaceIdentity, saveResolverVersion, storedResolverVersion } from '../store/identity.ts';
import { identityColumns } from '../store/identity-columns.ts';
import {
  type ResolutionChange,
  type StoredResolution,
  storedResolutions,
  writeResolutions,
} from '../store/resolutions.ts';
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

const BATCH = 5000;

export async function reresolve(
  db: Db,
  options: { signalThreshold: number; dataDir: string; now?: () => Date; log?: (line: string) => void },
): Promise<ReresolveReport> {
  const log = options.log ?? (() => undefined);
  await replaceIdentity(db, await loadIdentityFiles(options.dataDir));
  const ctx = await createPipelineContext(db, { signalThreshold: options.signalThreshold, now: options.now });
  const previousVersion = await storedResolverVersion(db);
  const rows = await storedResolutions(db);
  const changes = rows.map((row) => changeOf(ctx, row)).filter((c): c is ResolutionChange => c !== null);
  for (let i = 0; i < changes.length; i += BATCH) await writeResolutions(db, changes.slice(i, i + BATCH));
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

function changeOf(ctx: PipelineContext, row: StoredResolution): ResolutionChange | null {
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
