/**
 * The store step of every award source: resolve → classify → upsert by award id (and tally the
 * recipients no ticker was found for) → hand the new or changed matched contracts to the scoring
 * service. Sources deliver normalized `AwardRecord`s; nothing here parses.
 */
import { classify } from '../domain/classifier.ts';
import type { AwardRecord, ClassificationLabel } from '../domain/types.ts';
import { linkAnnouncements } from '../store/announcements.ts';
import { type ScoredContract, storedAndUnscored } from '../store/contracts.ts';
import type { Queryable } from '../store/db.ts';
import { identityColumns } from '../store/identity-columns.ts';
import { addUnmatched, type UnmatchedRecipient } from '../store/unmatched.ts';
import { type ResolvedAward, upsertContracts } from '../store/writes.ts';
import type { PipelineContext } from './context.ts';
import { WritePipeline, YIELD_EVERY, yieldToIo } from './overlap.ts';
import { type ScoreOptions, scoreContracts } from './score.ts';

/** Awardees of DoD announcements are stored under ids with this prefix (pipeline/announcements.ts). */
const ANNOUNCEMENT_ID_PREFIX = 'DOD_ANN_';

export interface IngestCounts {
  received: number;
  inserted: number;
  updated: number;
  matched: number;
  unmatched: number;
  rejected: { index: number; message: string }[];
  signals_created: number;
}

/** The numeric counters of a run, all zero (file imports and scheduled runs add them up too). */
export function zeroCounts(): Omit<IngestCounts, 'rejected'> {
  return { received: 0, inserted: 0, updated: 0, matched: 0, unmatched: 0, signals_created: 0 };
}

export interface IngestOptions extends ScoreOptions {
  /** false: store only; a caller writing one run in several calls scores it once at the end. */
  score?: boolean;
  /** With `score: false`: receives the stored contracts that scoring would have taken (matched, new or changed). */
  onUnscored?: (contracts: readonly ScoredContract[]) => void;
  /**
   * Which of `awards` are stored already, probed by the caller just before (a file import probes each
   * chunk once); without it every batch probes its own ids.
   */
  stored?: ReadonlySet<string>;
}

/**
 * Which awards of the chunk are stored already (one probe for the whole chunk; `ingestAwards` then
 * copies the others straight in), and which stored, matched ones lack a signal of some current engine
 * version (left over by an import that stopped before scoring).
 */
export function storedAmong(
  ctx: PipelineContext,
  awards: readonly AwardRecord[],
): Promise<{ stored: Set<string>; unscored: string[] }> {
  return storedAndUnscored(
    ctx.db,
    awards.map((a) => a.id),
    ctx.engines,
  );
}

/** Resolved on the award's own date: an announcement's awardee on the announcement date. */
export function resolveAward(ctx: PipelineContext, award: AwardRecord): ResolvedAward {
  const match = ctx.identity.resolveAt({
    recipientName: award.recipientName,
    parentName: award.parentName,
    date: award.awardDate,
    basis: award.id.startsWith(ANNOUNCEMENT_ID_PREFIX) ? 'announcement_date' : 'award_date',
  });
  return {
    award,
    ticker: match.ticker,
    classification: classify({ description: award.description, naics: award.naics, psc: award.psc }),
    matchConfidence: match.confidence,
    matchMethod: match.method,
    nameNorm: match.nameNorm,
    identity: identityColumns(match, ctx.identity.version),
  };
}

/**
 * normalize (done by the source parsers) → resolve → classify → upsert by award id → regimes → score with
 * every engine. Contracts are written first for the whole run, so trailing statistics see every award of it.
 */
export async function ingestAwards(
  ctx: PipelineContext,
  awards: readonly AwardRecord[],
  options: IngestOptions = {},
): Promise<IngestCounts> {
  const batches = writeBatches(awards, options.batchSize ?? 5000);
  const unique = batches.reduce((n, batch) => n + batch.length, 0);
  return storeResolved(ctx, { received: awards.length, unique }, resolving(ctx, batches), options);
}

/**
 * The awards of one call as its write batches: one record per award id, each batch in id order
 * (rows locked in one order, so concurrent runs over the same awards wait instead of deadlocking).
 */
export function writeBatches(awards: readonly AwardRecord[], batchSize: number): AwardRecord[][] {
  const unique = latestPerId(awards);
  const batches: AwardRecord[][] = [];
  for (let start = 0; start < unique.length; start += batchSize)
    batches.push(byId(unique.slice(start, start + batchSize)));
  return batches;
}

/** Resolves each batch as it is needed, yielding to I/O now and then so writes in flight move on. */
async function* resolving(
  ctx: PipelineContext,
  batches: readonly AwardRecord[][],
): AsyncGenerator<ResolvedAward[]> {
  for (const awards of batches) {
    const batch: ResolvedAward[] = [];
    for (const award of awards) {
      batch.push(resolveAward(ctx, award));
      if (batch.length % YIELD_EVERY === 0) await yieldToIo();
    }
    yield batch;
  }
}

/**
 * Writes resolved batches (each in id order, ids distinct across batches), two at a time, then scores
 * what changed unless `options.score` is false. `received`: the awards the batches came from; `unique`:
 * how many distinct ids they hold (the batches' total).
 */
export async function storeResolved(
  ctx: PipelineContext,
  { received, unique }: { received: number; unique: number },
  batches: AsyncIterable<ResolvedAward[]> | Iterable<ResolvedAward[]>,
  options: IngestOptions = {},
): Promise<IngestCounts> {
  const batchSize = options.batchSize ?? 5000;
  const progress = options.onProgress ?? (() => undefined);
  const counts: IngestCounts = { ...zeroCounts(), received, rejected: [] };
  const changed: ScoredContract[] = [];
  /** Matched awards stored before exactly as they are now: scored only if a signal is missing. */
  const unchanged: ResolvedAward[] = [];
  // Batches of one call hold distinct ids, so on PostgreSQL two may be written at once.
  const writes = new WritePipeline();
  let done = 0;
  for await (const batch of batches) {
    done += batch.length;
    const reached = done;
    await writes.enqueue(
      () =>
        ctx.db.transaction(async (tx) => {
          const rows = await upsertContracts(tx, batch, ctx.now(), options.stored);
          await tallyUnmatched(tx, batch, new Set(rows.filter((r) => r.inserted).map((r) => r.id)));
          // An award announced earlier takes the announcement's time before it is scored, so its signal
          // does not announce it a second time.
          await linkAnnouncements(
            tx,
            rows.map((r) => r.id),
          );
          return rows;
        }),
      (written) => {
        const writtenIds = new Map(written.map((r) => [r.id, r.inserted]));
        for (const item of batch) {
          if (item.ticker) counts.matched += 1;
          else counts.unmatched += 1;
          const inserted = writtenIds.get(item.award.id);
          if (inserted === undefined) {
            if (item.ticker) unchanged.push(item);
            continue;
          }
          if (inserted) counts.inserted += 1;
          else counts.updated += 1;
          if (item.ticker) changed.push(toScored(item, item.ticker, inserted));
        }
        progress('contracts', reached, unique);
      },
    );
  }
  await writes.drain();
  if (options.score === false) {
    options.onUnscored?.(changed);
    return counts;
  }
  // A run that stopped between storing and scoring (a crash, a full disk) left these without signals:
  // sending the same records again scores them.
  if (unchanged.length > 0) {
    const { unscored } = await storedAmong(
      ctx,
      unchanged.map((item) => item.award),
    );
    const lacking = new Set(unscored);
    for (const item of unchanged)
      if (item.ticker && lacking.has(item.award.id)) changed.push(toScored(item, item.ticker, false));
  }
  counts.signals_created = await scoreContracts(ctx, changed, { batchSize, onProgress: progress });
  return counts;
}

/**
 * One record per award id: PostgreSQL cannot upsert a row twice in one statement, and real
 * spending_by_award pages do repeat an id. The record modified last wins; on a tie, the later one.
 */
function latestPerId(awards: readonly AwardRecord[]): AwardRecord[] {
  const kept = new Map<string, AwardRecord>();
  for (const award of awards) {
    const seen = kept.get(award.id);
    if (!seen || (award.sourceModifiedAt ?? '') >= (seen.sourceModifiedAt ?? '')) kept.set(award.id, award);
  }
  return kept.size === awards.length ? [...awards] : [...kept.values()];
}

function byId(awards: AwardRecord[]): AwardRecord[] {
  return awards.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function toScored(item: ResolvedAward, ticker: string, unscored: boolean): ScoredContract {
  return {
    unscored,
    id: item.award.id,
    ticker,
    value: item.award.value,
    awardDate: item.award.awardDate,
    awardingAgency: item.award.awardingAgency,
    classification: item.classification as ClassificationLabel,
    matchConfidence: item.matchConfidence,
  };
}

/** Counts recipients no ticker was found for, once per newly stored award, for curation. */
async function tallyUnmatched(
  tx: Queryable,
  batch: readonly ResolvedAward[],
  newIds: Set<string>,
): Promise<void> {
  const tally = new Map<string, { sample: string; count: number; total: number }>();
  for (const item of batch) {
    if (item.ticker || !newIds.has(item.award.id)) continue;
    const key = item.nameNorm;
    const entry = tally.get(key) ?? { sample: item.award.recipientName, count: 0, total: 0 };
    entry.count += 1;
    entry.total += item.award.value;
    tally.set(key, entry);
  }
  const rows: UnmatchedRecipient[] = [...tally].map(([name, v]) => ({
    name_norm: name,
    sample_name: v.sample,
    award_count: v.count,
    total_value: v.total,
  }));
  await addUnmatched(tx, rows);
}

/** One line of counts, the same for every source. */
export function summary(c: Omit<IngestCounts, 'rejected'>, rejected: number): string {
  return (
    `${c.received} received, ${c.inserted} new, ${c.updated} updated, ${c.matched} matched, ` +
    `${c.unmatched} unmatched, ${rejected} rejected, ${c.signals_created} signals created`
  );
}
