/**
 * Bulk files into the store, as a straight line: read (sources/award-files.ts) → resolve, classify,
 * store (ingest.ts), a chunk at a time → score once the whole file is stored (score.ts). Candle CSVs
 * likewise: read → store.
 */

import { availableParallelism } from 'node:os';
import { ENGINES } from '../domain/engines/index.ts';
import type { AwardRecord } from '../domain/types.ts';
import {
  awardFile,
  FileFormatError,
  type ReadProgress,
  readAll,
  textChunks,
} from '../sources/award-files.ts';
import { type Rejection, Rejections } from '../sources/awards.ts';
import { parseCandlesCsv } from '../sources/candles.ts';
import { countSelectedByTicker, holdsMoreThan, type ScoredContract } from '../store/contracts.ts';
import type { Db } from '../store/db.ts';
import { type Deferral, deferIndexes, restoreIndexes } from '../store/deferred-indexes.ts';
import { upsertCandles } from '../store/writes.ts';
import type { PipelineContext } from './context.ts';
import { ImportPool } from './import-pool.ts';
import { type IngestCounts, ingestAwards, storedAmong, zeroCounts } from './ingest.ts';
import { yieldToIo } from './overlap.ts';
import { engineList, GROUP, type ScoreSelection, scoreContracts, scoreStored } from './score.ts';

export { FileFormatError };

export type FileRejection = Rejection;

export interface AwardFileResult extends Omit<IngestCounts, 'rejected'> {
  format: 'csv' | 'json';
  /** The first MAX_REPORTED rejections; `rejectedTotal` counts them all. */
  rejected: FileRejection[];
  rejectedTotal: number;
  /** Contracts scored; once, after the whole file is stored, so trailing statistics see all of it. */
  scored: number;
}

export interface ImportOptions {
  /** Awards stored per pipeline call. */
  chunkSize?: number;
  /**
   * The smallest import, in awards, that builds the list indexes of contracts and signals at its end
   * instead of writing through them — when it also brings at least as many awards as `contracts`
   * holds. Estimated from the file's size when the first chunk is read. `Infinity` never defers.
   */
  deferIndexesFrom?: number;
  /**
   * Threads that resolve, classify, write and score in parallel (import-pool.ts), for an import of at
   * least `threadsFrom` awards (estimated as for `deferIndexesFrom`). Default: one per core (at most
   * four), from 100,000 awards; 0 or 1 imports on this thread alone.
   */
  threads?: number;
  threadsFrom?: number;
  log?: (line: string) => void;
}

const MAX_REPORTED = 1000;
const CHUNK = 50_000;
/** Smaller imports write through the list indexes: dropping and rebuilding them would not repay itself. */
const DEFER_INDEXES_FROM = 100_000;
/** Starting threads (each loads the resolver and connects) costs about a second: not worth it for less. */
const THREADS_FROM = 100_000;
/**
 * Each thread holds up to five connections at once (writes in flight, a probe): four threads stay well
 * inside the embedded server's 100 beside a running service's pools.
 */
const MAX_THREADS = 4;

/**
 * Imports a bulk-download award CSV or a JSON array of bulk-column records (`.gz` accepted). Bad rows
 * are reported with their CSV line or JSON index and skipped; the rest goes through the pipeline in
 * chunks, so a file of any size is never held whole in memory.
 */
export async function importAwardFile(
  ctx: PipelineContext,
  path: string,
  options: ImportOptions = {},
): Promise<AwardFileResult> {
  const progress: ReadProgress = { size: 0, bytesRead: 0 };
  const { format, items: batches } = await awardFile(path, progress);
  const rejections = new Rejections(MAX_REPORTED);
  const result: AwardFileResult = {
    format,
    ...zeroCounts(),
    rejected: rejections.list,
    rejectedTotal: 0,
    scored: 0,
  };
  const runStart = ctx.now();
  let pending: AwardRecord[] = [];
  const leftovers: string[] = [];
  // The contracts to score, kept from the store step (≈ 200 bytes each) unless there are too many; then
  // they are read back from the database in groups.
  let toScore: ScoredContract[] | null = [];
  const keep = (contracts: readonly ScoredContract[]) => {
    if (toScore && toScore.length + contracts.length <= GROUP) toScore.push(...contracts);
    else toScore = null;
  };
  // Decided before the first chunk is stored, from the file's size and how many records its first
  // bytes held; the indexes named are built again below, and by the next start if this one stops.
  let deferred = null as Deferral | null;
  let read = 0;
  // One chunk is stored while the next one is read and parsed, so the server works while node parses.
  let storing: Promise<void> = Promise.resolve();
  // Threads started at the first chunk when the import is large enough (see ImportOptions.threads).
  let pool = null as ImportPool | null;
  const written: Promise<void>[] = [];
  const flush = async (last: boolean) => {
    if (pending.length === 0) return;
    const chunk = pending;
    pending = [];
    await storing;
    if (deferred === null) {
      const estimate = last ? read : Math.round((progress.size * read) / Math.max(1, progress.bytesRead));
      deferred = await deferForImport(ctx, estimate, options.deferIndexesFrom ?? DEFER_INDEXES_FROM);
      if (deferred.names.length > 0)
        options.log?.(
          `import: ≈ ${estimate} awards: the ${deferred.names.length} list indexes of contracts and signals are built at the end, the contracts' totals summed then`,
        );
      pool = await startPool(ctx, estimate, options);
    }
    if (pool) {
      // Handed to a free thread; this thread reads on while it is resolved and written.
      const handed = await pool.store(chunk);
      const done = handed.written.then(({ counts, unscored }) => {
        leftovers.push(...unscored);
        addCounts(result, { ...counts, rejected: [] });
        options.log?.(`import: ${result.received} records read, ${rejections.total} rejected`);
      });
      done.catch(() => undefined);
      written.push(done);
      return;
    }
    storing = (async () => {
      const { stored, unscored } = await storedAmong(ctx, chunk);
      leftovers.push(...unscored);
      addCounts(result, await ingestAwards(ctx, chunk, { score: false, onUnscored: keep, stored }));
      options.log?.(`import: ${result.received} records read, ${rejections.total} rejected`);
    })();
    // Awaited at the next flush or after the last chunk; this only keeps a failure from counting as unhandled meanwhile.
    storing.catch(() => undefined);
  };
  // Contracts' indexes are built while the signals are scored, once scoring has read the trailing
  // history (it reads no contracts after that, and writes none); signals' after.
  let contractIndexes = null as Promise<void> | null;
  const buildContractIndexes = () => {
    if (!deferred?.names.length || contractIndexes) return;
    contractIndexes = buildIndexes(ctx.db, 'contracts', options.log);
    contractIndexes.catch(() => undefined);
  };
  try {
    for await (const items of batches) {
      for (const item of items) {
        // Let the chunk being stored send its next statement now and then.
        if (++read % 1000 === 0) await yieldToIo();
        if (item.ok) pending.push(item.award);
        else {
          result.received += 1;
          rejections.add(item.rejection);
          result.rejectedTotal = rejections.total;
        }
        if (pending.length >= (options.chunkSize ?? CHUNK)) await flush(false);
      }
    }
    await flush(true);
    await storing;
    await Promise.all(written);
    if (pool) {
      // Read back by the threads; only leftovers of an earlier import remain for this thread.
      await scoreInThreads(ctx, pool, result, runStart, buildContractIndexes, options.log);
    }
    await scoreImported(
      ctx,
      result,
      { toScore, leftovers, since: runStart },
      buildContractIndexes,
      options.log,
    );
    buildContractIndexes(); // when there was nothing to score
    await contractIndexes;
    if (deferred?.names.length) await buildIndexes(ctx.db, 'signals', options.log);
  } catch (error) {
    await contractIndexes?.catch(() => undefined);
    // If the database itself is what failed, the record stays and the next start builds them.
    if (deferred?.names.length) await restoreIndexes(ctx.db).catch(() => undefined);
    throw error;
  } finally {
    await pool?.close();
    await deferred?.release();
  }
  return result;
}

/**
 * The import's threads, when it is large enough and they can run the same pipeline as this thread:
 * they build their own context with the shipped engines, so a context with other engines imports here.
 * A pool that cannot start (a thread failing to load, say) leaves the import to this thread.
 */
async function startPool(
  ctx: PipelineContext,
  estimate: number,
  options: ImportOptions,
): Promise<ImportPool | null> {
  const size = options.threads ?? Math.min(MAX_THREADS, availableParallelism());
  if (size < 2 || estimate < (options.threadsFrom ?? THREADS_FROM) || !shippedEngines(ctx)) return null;
  try {
    const pool = await ImportPool.start(
      { url: ctx.db.url, signalThreshold: ctx.signalThreshold, batchSize: 5000 },
      size,
    );
    options.log?.(`import: ${size} threads resolve, classify, write and score`);
    return pool;
  } catch (error) {
    options.log?.(`import: threads could not start (${(error as Error).message}); importing on one thread`);
    return null;
  }
}

const shippedEngines = (ctx: PipelineContext): boolean =>
  ctx.engines.length === ENGINES.length &&
  ctx.engines.every((e, i) => e.name === ENGINES[i]?.name && e.version === ENGINES[i]?.version);

/**
 * Scores what the threads stored: the contracts changed since the import began (the selection a large
 * single-threaded import reads back too), each thread a share of the tickers.
 */
async function scoreInThreads(
  ctx: PipelineContext,
  pool: ImportPool,
  result: AwardFileResult,
  since: Date,
  onHistoryLoaded: () => void,
  log?: (line: string) => void,
): Promise<void> {
  const perTicker = await countSelectedByTicker(ctx.db, { kind: 'changed-since', since });
  const total = perTicker.reduce((sum, row) => sum + row.n, 0);
  if (total === 0) return;
  log?.(`score: ${engineList(ctx)}: ${total} contracts to score in ${pool.size} threads`);
  const scored = await pool.score(since, perTicker, onHistoryLoaded);
  log?.(`score: ${engineList(ctx)}: ${scored.contracts}/${total} contracts`);
  result.scored += scored.contracts;
  result.signals_created += scored.created;
}

/**
 * Scoring after the last chunk gives every chunk the trailing statistics of the whole file, as one
 * pipeline run would. Leftovers of an earlier import that stopped before scoring are unchanged now,
 * so they are named separately.
 */
async function scoreImported(
  ctx: PipelineContext,
  result: AwardFileResult,
  kept: { toScore: ScoredContract[] | null; leftovers: string[]; since: Date },
  onHistoryLoaded: () => void,
  log?: (line: string) => void,
): Promise<void> {
  const { leftovers } = kept;
  const toScore = kept.toScore && onePerContract(kept.toScore);
  const selections: ScoreSelection[] = [];
  if (toScore === null) selections.push({ kind: 'changed-since', since: kept.since });
  else if (toScore.length > 0) {
    const engines = engineList(ctx);
    const total = toScore.length;
    log?.(`score: ${engines}: ${total} contracts to score`);
    result.signals_created += await scoreContracts(ctx, toScore, {
      onHistoryLoaded,
      onProgress: (_stage, done) => {
        if (done === total || done % 50_000 === 0) log?.(`score: ${engines}: ${done}/${total} contracts`);
      },
    });
    result.scored += total;
  }
  if (leftovers.length > 0) selections.push({ kind: 'ids', ids: leftovers });
  for (const selection of selections) {
    const scored = await scoreStored(ctx, selection, log);
    result.scored += scored.contracts;
    result.signals_created += scored.created;
  }
}

/**
 * A contract changed in two chunks (its id repeated in the file) is scored once, with its last facts:
 * twice in one batch of signals, its upsert would fail (a row cannot be updated twice in one statement).
 * It has no signal yet if either chunk inserted it.
 */
function onePerContract(contracts: ScoredContract[]): ScoredContract[] {
  const byId = new Map<string, ScoredContract>();
  for (const contract of contracts) {
    const seen = byId.get(contract.id);
    byId.set(contract.id, seen?.unscored ? { ...contract, unscored: true } : contract);
  }
  return byId.size === contracts.length ? contracts : [...byId.values()];
}

/**
 * Defers the list indexes when the import is large (`from` awards or more) and at least the size of
 * what `contracts` holds: building an index over existing and new rows then costs less than writing
 * each new row through it.
 */
async function deferForImport(ctx: PipelineContext, estimate: number, from: number): Promise<Deferral> {
  const none: Deferral = { names: [], release: async () => {} };
  if (estimate < from || (await holdsMoreThan(ctx.db, estimate))) return none;
  return deferIndexes(ctx.db, ['contracts', 'signals']);
}

async function buildIndexes(
  db: Db,
  table: 'contracts' | 'signals',
  log?: (line: string) => void,
): Promise<void> {
  const start = performance.now();
  const built = await restoreIndexes(db, [table]);
  if (built.length > 0)
    log?.(`indexes: built ${built.join(', ')} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

function addCounts(into: AwardFileResult, c: IngestCounts): void {
  into.received += c.received;
  into.inserted += c.inserted;
  into.updated += c.updated;
  into.matched += c.matched;
  into.unmatched += c.unmatched;
}

/**
 * Imports a candle CSV (`date,open,high,low,close[,adj_close],volume`) for one ticker. Bad rows are
 * reported with their line and skipped. Read whole: decades of daily bars are a few hundred kB.
 */
export async function importCandleFile(
  db: Db,
  path: string,
  ticker: string,
): Promise<{ ticker: string; imported: number; rejected: { line: number; message: string }[] }> {
  const text = await readAll(textChunks(path));
  let parsed: ReturnType<typeof parseCandlesCsv>;
  try {
    parsed = parseCandlesCsv(text);
  } catch (error) {
    throw new FileFormatError((error as Error).message);
  }
  const { candles, rejected } = parsed;
  const symbol = ticker.toUpperCase();
  for (let i = 0; i < candles.length; i += 5000) {
    await upsertCandles(db, symbol, candles.slice(i, i + 5000));
  }
  return { ticker: symbol, imported: candles.length, rejected };
}
