import { availableParallelism } from 'node:os';
import { classify } from '../domain/classifier.ts';
import { computeRegime } from '../domain/regimes.ts';
import { type DatedValue, trailingSpan, trailingStatsMany } from '../domain/trailing.ts';
import {
  type AwardRecord,
  type ClassificationLabel,
  type EngineInput,
  type EngineOutput,
  engineKey,
  type RegimeResult,
} from '../domain/types.ts';
import type { Queryable } from '../store/db.ts';
import {
  joinIds,
  type ResolvedAward,
  type SignalWrite,
  signalWrite,
  storedContractsAmong,
  upsertContracts,
  upsertRegimes,
  upsertSignals,
} from '../store/writes.ts';
import { enqueueSignalCreated } from '../webhooks/outbox.ts';
import type { PipelineContext } from './context.ts';

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

export interface IngestOptions {
  batchSize?: number;
  onProgress?: (stage: string, done: number, total: number) => void;
  /** Scoring has read the trailing history of its tickers; from here on it reads no contracts. */
  onHistoryLoaded?: () => void;
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
 * The contract facts an engine needs, as stored; `unscored`: no signal of any engine is stored for it
 * yet (a contract this run inserted), so its signal rows can be copied straight in.
 */
export type ScoredContract = EngineInput['contract'] & { unscored?: boolean };

/**
 * Which awards of the chunk are stored already (one probe for the whole chunk; `ingestAwards` then
 * copies the others straight in), and which stored, matched ones lack a signal of some current engine
 * version (left over by an import that stopped before scoring).
 */
export async function storedAmong(
  ctx: PipelineContext,
  awards: readonly AwardRecord[],
): Promise<{ stored: Set<string>; unscored: string[] }> {
  const rows = await ctx.db.query<{ id: string; unscored: boolean }>(
    `SELECT c.id, c.unscored FROM ${storedContractsAmong(
      '$1',
      `c.id, c.ticker IS NOT NULL AND EXISTS (
         SELECT 1 FROM unnest($2::text[], $3::text[]) AS e(name, version) WHERE NOT EXISTS (
           SELECT 1 FROM signals s WHERE s.contract_id = c.id AND s.engine_name = e.name AND s.engine_version = e.version)
       ) AS unscored`,
    )}`,
    [joinIds(awards.map((a) => a.id)), ctx.engines.map((e) => e.name), ctx.engines.map((e) => e.version)],
  );
  return {
    stored: new Set(rows.map((r) => r.id)),
    unscored: rows.filter((r) => r.unscored).map((r) => r.id),
  };
}

export function resolveAward(ctx: PipelineContext, award: AwardRecord): ResolvedAward {
  const match = ctx.resolver.resolve({ recipientName: award.recipientName, parentName: award.parentName });
  return {
    award,
    ticker: match.ticker,
    classification: classify({ description: award.description, naics: award.naics, psc: award.psc }),
    matchConfidence: match.confidence,
    matchMethod: match.method,
    nameNorm: match.nameNorm,
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
  const batchSize = options.batchSize ?? 5000;
  const progress = options.onProgress ?? (() => undefined);
  const counts: IngestCounts = { ...zeroCounts(), received: awards.length, rejected: [] };
  const changed: ScoredContract[] = [];
  /** Matched awards stored before exactly as they are now: scored only if a signal is missing. */
  const unchanged: ResolvedAward[] = [];
  const unique = latestPerId(awards);
  // Batches of one call hold distinct ids, so on PostgreSQL two may be written at once.
  const writes = new WritePipeline(writeDepth());
  for (let start = 0; start < unique.length; start += batchSize) {
    const batch: ResolvedAward[] = [];
    for (const award of byId(unique.slice(start, start + batchSize))) {
      batch.push(resolveAward(ctx, award));
      if (batch.length % YIELD_EVERY === 0) await yieldToIo();
    }
    const done = Math.min(start + batchSize, unique.length);
    await writes.enqueue(
      () =>
        ctx.db.transaction(async (tx) => {
          const rows = await upsertContracts(tx, batch, ctx.now(), options.stored);
          await tallyUnmatched(tx, batch, new Set(rows.filter((r) => r.inserted).map((r) => r.id)));
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
        progress('contracts', done, unique.length);
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
 * Overlaps the CPU work of the next batch (resolve, classify, score) with the database writes of
 * earlier ones. With depth 1 at most one write is in flight and writes start — and their results are
 * handled — in batch order, exactly as if each were awaited in turn. The batches of one run touch
 * disjoint rows (distinct award ids; the signals of distinct contracts), so with a greater depth several
 * are written at once and their results handled as they complete (the callers only add them up).
 */
class WritePipeline {
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(private readonly depth = 1) {}

  /** Waits until fewer than `depth` writes are in flight, then starts `write` without waiting for it. */
  async enqueue<T>(write: () => Promise<T>, handle: (result: T) => void): Promise<void> {
    while (this.inFlight.size >= this.depth) await Promise.race(this.inFlight);
    this.rethrow();
    const pending: Promise<void> = write()
      .then(handle)
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.inFlight.delete(pending));
    this.inFlight.add(pending);
  }

  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
    this.rethrow();
  }

  private rethrow(): void {
    if (this.failure) throw this.failure.error;
  }
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

/** Rows locked in one order, so concurrent runs over the same awards wait instead of deadlocking. */
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
  if (tally.size === 0) return;
  // In key order, so concurrent batches updating the same names wait for each other instead of deadlocking.
  const entries = [...tally.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Each award is at most MAX_AMOUNT, but a name's running total is not bounded: it saturates at
  // bigint's range (the list only ranks by it) instead of failing the batch on overflow.
  await tx.query(
    `INSERT INTO unmatched_recipients (name_norm, sample_name, award_count, total_value)
     SELECT * FROM json_to_recordset($1::json) AS t(name_norm text, sample_name text, award_count int, total_value int8)
     ON CONFLICT (name_norm) DO UPDATE SET award_count = unmatched_recipients.award_count + EXCLUDED.award_count,
       total_value = ${saturatedInt8('unmatched_recipients.total_value::numeric + EXCLUDED.total_value')}`,
    [
      JSON.stringify(
        entries.map(([name, v]) => ({
          name_norm: name,
          sample_name: v.sample,
          award_count: v.count,
          total_value: v.total,
        })),
      ),
    ],
  );
}

const saturatedInt8 = (sql: string): string =>
  `LEAST(GREATEST(${sql}, -9223372036854775808), 9223372036854775807)::int8`;

/**
 * Places each contract in its award-date regime and scores it with every engine.
 * Returns how many signal rows were created (recomputes update rows and are not counted).
 */
export async function scoreContracts(
  ctx: PipelineContext,
  contracts: readonly ScoredContract[],
  options: IngestOptions = {},
): Promise<number> {
  if (contracts.length === 0) return 0;
  const batchSize = options.batchSize ?? 5000;
  const tickers = [...new Set(contracts.map((c) => c.ticker))];
  const [history, sectors] = await Promise.all([
    loadHistory(ctx.db, contracts),
    loadSectors(ctx.db, tickers),
  ]);
  options.onHistoryLoaded?.();
  const regimeByDate = new Map<string, RegimeResult | null>();
  const regimesWritten = new Set<string>();
  const trailing = trailingById(contracts, history);
  let created = 0;
  const writes = new WritePipeline(writeDepth());
  // One contract's outputs so far: an engine built on another takes that one's output from here.
  const outputs = new Map<string, EngineOutput>();
  const keys = ctx.engines.map(engineKey);
  for (let start = 0; start < contracts.length; start += batchSize) {
    const batch = contracts.slice(start, start + batchSize);
    const regimes: { awardDate: string; regime: RegimeResult }[] = [];
    const signals: SignalWrite[] = [];
    for (const [i, contract] of batch.entries()) {
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToIo();
      const regime = regimeAt(ctx, regimeByDate, contract.awardDate);
      if (regime && !regimesWritten.has(contract.awardDate)) {
        regimesWritten.add(contract.awardDate);
        regimes.push({ awardDate: contract.awardDate, regime });
      }
      const input: EngineInput = {
        // Named one by one: an object rest copy (`{ unscored, ...facts }`) cost ≈ 0.25 µs per contract.
        contract: {
          id: contract.id,
          ticker: contract.ticker,
          value: contract.value,
          awardDate: contract.awardDate,
          awardingAgency: contract.awardingAgency,
          classification: contract.classification,
          matchConfidence: contract.matchConfidence,
        },
        company: sectors.get(contract.ticker) ?? null,
        trailing: trailing.get(contract.id) ?? NO_TRAILING,
        regime,
      };
      outputs.clear();
      for (const [i, engine] of ctx.engines.entries()) {
        const output = engine.score(input, outputs);
        outputs.set(keys[i] as string, output);
        signals.push(signalWrite(contract, engine, output, contract.unscored));
      }
    }
    const done = Math.min(start + batchSize, contracts.length);
    await writes.enqueue(
      () =>
        ctx.db.transaction(async (tx) => {
          await upsertRegimes(tx, regimes);
          const rows = await upsertSignals(tx, signals, ctx.now());
          // In the same transaction as the signals: a crash cannot lose a delivery or send one for a rolled-back signal.
          await enqueueSignalCreated(tx, rows, ctx.signalThreshold, ctx.now());
          return rows;
        }),
      (written) => {
        created += written.filter((w) => w.inserted).length;
        options.onProgress?.('signals', done, contracts.length);
      },
    );
  }
  await writes.drain();
  return created;
}

const NO_TRAILING: EngineInput['trailing'] = { count: 0, totalValue: 0, medianValue: 0 };

/**
 * Batches in flight: writing costs the server about as much CPU as node spends preparing the rows, so
 * the server gets up to one backend per core (at least two, at most four; the pool has ten connections).
 */
function writeDepth(): number {
  return Math.min(4, Math.max(2, availableParallelism()));
}

/**
 * Resolving, classifying and scoring are synchronous; a batch of them would hold the event loop for
 * tens of milliseconds while the writes in flight wait to send their next statement. Yielding every 50
 * awards (about a millisecond of work) lets those transactions move on, so node and the server work at
 * the same time.
 */
const YIELD_EVERY = 50;
export const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Every contract's trailing statistics, one sliding pass per ticker instead of a sort per contract. */
function trailingById(
  contracts: readonly ScoredContract[],
  history: ReadonlyMap<string, DatedValue[]>,
): Map<string, EngineInput['trailing']> {
  const byTicker = new Map<string, ScoredContract[]>();
  for (const c of contracts) {
    const list = byTicker.get(c.ticker);
    if (list) list.push(c);
    else byTicker.set(c.ticker, [c]);
  }
  const out = new Map<string, EngineInput['trailing']>();
  for (const [ticker, list] of byTicker) {
    const stats = trailingStatsMany(
      history.get(ticker) ?? [],
      list.map((c) => c.awardDate),
    );
    list.forEach((c, i) => {
      out.set(c.id, stats[i] ?? NO_TRAILING);
    });
  }
  return out;
}

function regimeAt(
  ctx: PipelineContext,
  cache: Map<string, RegimeResult | null>,
  date: string,
): RegimeResult | null {
  const cached = cache.get(date);
  if (cached !== undefined) return cached;
  // The whole series: computeRegime checks each array's order once and reads only what precedes the date.
  const regime = computeRegime({ asOf: date, ...ctx.benchmarks });
  cache.set(date, regime);
  return regime;
}

/**
 * Each ticker's stored awards that the trailing statistics of `contracts` can see, in date order: a
 * daily file into years of history reads a year of each company's awards, not all of them.
 */
export async function loadHistory(
  db: Queryable,
  contracts: readonly Pick<ScoredContract, 'ticker' | 'awardDate'>[],
): Promise<Map<string, DatedValue[]>> {
  const dates = new Map<string, { first: string; last: string }>();
  for (const { ticker, awardDate } of contracts) {
    const seen = dates.get(ticker);
    if (!seen) dates.set(ticker, { first: awardDate, last: awardDate });
    else if (awardDate < seen.first) seen.first = awardDate;
    else if (awardDate > seen.last) seen.last = awardDate;
  }
  const spans = [...dates].map(([ticker, { first, last }]) => ({ ticker, ...trailingSpan(first, last) }));
  const rows = await db.query<{ ticker: string; date: string; value: number }>(
    `SELECT c.ticker, c.award_date AS date, c.contract_value AS value
     FROM unnest($1::text[], $2::date[], $3::date[]) AS span(ticker, from_date, until_date)
       JOIN contracts c ON c.ticker = span.ticker AND c.award_date >= span.from_date AND c.award_date < span.until_date
     ORDER BY c.ticker, c.award_date`,
    [spans.map((s) => s.ticker), spans.map((s) => s.from), spans.map((s) => s.until)],
  );
  const history = new Map<string, DatedValue[]>();
  for (const row of rows) {
    const list = history.get(row.ticker) ?? [];
    list.push({ date: row.date, value: row.value });
    history.set(row.ticker, list);
  }
  return history;
}

async function loadSectors(db: Queryable, tickers: string[]): Promise<Map<string, EngineInput['company']>> {
  const rows = await db.query<{ ticker: string; sector: string | null; industry: string | null }>(
    'SELECT ticker, sector, industry FROM companies WHERE ticker = ANY($1::text[])',
    [tickers],
  );
  return new Map(rows.map((r) => [r.ticker, { sector: r.sector, industry: r.industry }]));
}
