/**
 * The scoring service: load inputs (facts, trailing history, sectors, the benchmarks' regimes) → run
 * every engine → write signals, regimes and `signal.created` outbox rows in one transaction per batch.
 * One code path for one contract (`POST /contracts/{id}/score`) and for many (ingests, file imports,
 * the USASpending source, `score` and `score --all`).
 */
import { scoresSource } from '../domain/engines/index.ts';
import { computeRegime, REGIME_LOOKBACK_DAYS } from '../domain/regimes.ts';
import { addDays, type DatedValue, trailingSpan, trailingStatsMany } from '../domain/trailing.ts';
import type { Engine } from '../domain/types.ts';
import {
  type Candle,
  type EngineInput,
  type EngineOutput,
  engineKey,
  type RegimeResult,
} from '../domain/types.ts';
import type { SignalDto } from '../shapes/resources.ts';
import { companySectors } from '../store/companies.ts';
import {
  awardHistory,
  countSelectedByTicker,
  historyKey,
  type ScoredContract,
  type StoredSelection,
  selectedContracts,
  sourceOf,
} from '../store/contracts.ts';
import type { Db, Queryable } from '../store/db.ts';
import { candleSeries } from '../store/market.ts';
import { latestSignal } from '../store/signals.ts';
import { type SignalWrite, signalWrite, upsertRegimes, upsertSignals } from '../store/writes.ts';
import { enqueueSignalCreated } from '../webhooks/outbox.ts';
import { type AnnouncementReadings, announcementRules } from './announcement-rule.ts';
import type { ScoringContext } from './context.ts';
import { WritePipeline, YIELD_EVERY, yieldToIo } from './overlap.ts';

export type { ScoredContract };

export interface ScoreOptions {
  batchSize?: number;
  onProgress?: (stage: string, done: number, total: number) => void;
  /** Scoring has read the trailing history of its tickers; from here on it reads no contracts. */
  onHistoryLoaded?: () => void;
}

/**
 * Places each contract in its award-date regime and scores it with every engine of `ctx`.
 * Returns how many signal rows were created (recomputes update rows and are not counted).
 */
export async function scoreContracts(
  ctx: ScoringContext,
  contracts: readonly ScoredContract[],
  options: ScoreOptions = {},
): Promise<number> {
  if (contracts.length === 0) return 0;
  const batchSize = options.batchSize ?? 5000;
  const tickers = [...new Set(contracts.map((c) => c.ticker))];
  const [history, sectors, benchmarks, rules] = await Promise.all([
    loadHistory(ctx.db, contracts),
    companySectors(ctx.db, tickers),
    loadBenchmarks(ctx.db, contracts),
    ctx.engines.some((e) => e.sources?.includes('announcement'))
      ? announcementRules(ctx.db, contracts)
      : new Map<string, AnnouncementReadings>(),
  ]);
  options.onHistoryLoaded?.();
  const regimeByDate = new Map<string, RegimeResult | null>();
  const trailing = trailingOf(contracts, history);
  let created = 0;
  const writes = new WritePipeline();
  // One contract's outputs so far: an engine built on another takes that one's output from here.
  const outputs = new Map<string, EngineOutput>();
  const keys = ctx.engines.map(engineKey);
  for (let start = 0; start < contracts.length; start += batchSize) {
    const batch = contracts.slice(start, start + batchSize);
    const regimes: { awardDate: string; regime: RegimeResult }[] = [];
    const signals: SignalWrite[] = [];
    for (const [i, contract] of batch.entries()) {
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToIo();
      let regime = regimeByDate.get(contract.awardDate);
      if (regime === undefined) {
        // The whole window: computeRegime checks each array's order once and reads only what precedes the date.
        regime = computeRegime({ asOf: contract.awardDate, ...benchmarks });
        regimeByDate.set(contract.awardDate, regime);
        if (regime) regimes.push({ awardDate: contract.awardDate, regime });
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
        trailing: trailing[start + i] ?? NO_TRAILING,
        regime,
        announcement: rules.get(contract.id)?.size,
        announcementDv: rules.get(contract.id)?.dv,
      };
      outputs.clear();
      const source = sourceOf(contract.id);
      for (const [i, engine] of ctx.engines.entries()) {
        if (!scoresSource(engine, source)) continue;
        const output = engine.score(input, outputs);
        if (!output) continue;
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

/**
 * Scores one stored contract with one engine, as the batch does (same inputs, same writes).
 * Null when no matched contract has that id; `signal` null when the engine has no score for it (an
 * engine of another source, or the announcement rule without a year of history).
 */
export async function scoreContract(
  db: Db,
  contractId: string,
  engine: Engine,
  now: Date,
  signalThreshold: number,
): Promise<{ signal: SignalDto | null; created: boolean } | null> {
  const contracts = await selectedContracts(db, { kind: 'ids', ids: [contractId] });
  if (contracts.length === 0) return null;
  const created = await scoreContracts({ db, engines: [engine], signalThreshold, now: () => now }, contracts);
  const signal = await latestSignal(db, contractId, engine.name);
  return { signal: signal?.engine_version === engine.version ? signal : null, created: created > 0 };
}

/** Which stored, matched contracts to (re)score; `unscored` takes, per engine, those without its current version's signal. */
export type ScoreSelection = Exclude<StoredSelection, { kind: 'unscored-by' }> | { kind: 'unscored' };

/**
 * Contracts per scoreContracts call: it loads every award of their tickers once, and each call ends by
 * waiting for its last writes, so fewer, larger groups keep the server busy (≈ 200 bytes per contract).
 */
export const GROUP = 250_000;

/** Scores stored contracts with `ctx.engines`, a group of tickers at a time. */
export async function scoreStored(
  ctx: ScoringContext,
  selection: ScoreSelection,
  log?: (line: string) => void,
): Promise<{ contracts: number; created: number }> {
  if (selection.kind !== 'unscored') return scoreSelected(ctx, selection, log);
  const total = { contracts: 0, created: 0 };
  for (const engine of ctx.engines) {
    const one = await scoreSelected({ ...ctx, engines: [engine] }, { kind: 'unscored-by', engine }, log);
    total.contracts += one.contracts;
    total.created += one.created;
  }
  return total;
}

async function scoreSelected(
  ctx: ScoringContext,
  selection: StoredSelection,
  log?: (line: string) => void,
): Promise<{ contracts: number; created: number }> {
  const perTicker = await countSelectedByTicker(ctx.db, selection);
  const total = perTicker.reduce((sum, row) => sum + row.n, 0);
  if (total > 0) log?.(`score: ${engineList(ctx)}: ${total} contracts to score`);
  return scoreTickers(ctx, selection, perTicker, { log });
}

/**
 * Scores the selection's contracts of the tickers in `perTicker` (with their counts, in ticker order),
 * a group of at most GROUP contracts at a time. `onHistoryLoaded`: the first group has read its
 * trailing history (with one group, scoring reads no contracts after that).
 */
export async function scoreTickers(
  ctx: ScoringContext,
  selection: StoredSelection,
  perTicker: readonly { ticker: string; n: number }[],
  options: { log?: (line: string) => void; onHistoryLoaded?: () => void } = {},
): Promise<{ contracts: number; created: number }> {
  const total = perTicker.reduce((sum, row) => sum + row.n, 0);
  const engines = engineList(ctx);
  let done = 0;
  let created = 0;
  let onHistoryLoaded = options.onHistoryLoaded;
  for (const tickers of groupTickers(perTicker)) {
    const contracts = await selectedContracts(ctx.db, selection, tickers);
    created += await scoreContracts(ctx, contracts, { onHistoryLoaded });
    onHistoryLoaded = undefined;
    done += contracts.length;
    options.log?.(`score: ${engines}: ${done}/${total} contracts`);
  }
  return { contracts: done, created };
}

export const engineList = (ctx: ScoringContext): string =>
  ctx.engines.map((e) => `${e.name} ${e.version}`).join(', ');

function groupTickers(perTicker: readonly { ticker: string; n: number }[]): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const { ticker, n } of perTicker) {
    if (current.length > 0 && size + n > GROUP) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(ticker);
    size += n;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

const NO_TRAILING: EngineInput['trailing'] = { count: 0, totalValue: 0, medianValue: 0 };

/**
 * Every contract's trailing statistics, in the order of `contracts`, one sliding pass per ticker
 * instead of a sort per contract. By position, not in a map by id: a large import's scoring spent
 * seconds hashing its hundreds of thousands of ids in and out of one.
 */
function trailingOf(
  contracts: readonly ScoredContract[],
  history: ReadonlyMap<string, DatedValue[]>,
): EngineInput['trailing'][] {
  const byKey = new Map<string, number[]>();
  for (const [i, c] of contracts.entries()) {
    const key = historyKey(sourceOf(c.id), c.ticker);
    const list = byKey.get(key);
    if (list) list.push(i);
    else byKey.set(key, [i]);
  }
  const out: EngineInput['trailing'][] = new Array(contracts.length);
  for (const [key, list] of byKey) {
    const stats = trailingStatsMany(
      history.get(key) ?? [],
      list.map((i) => (contracts[i] as ScoredContract).awardDate),
    );
    list.forEach((position, j) => {
      out[position] = stats[j] ?? NO_TRAILING;
    });
  }
  return out;
}

/** The earliest and latest award date among `contracts`. */
function dateSpan(contracts: readonly Pick<ScoredContract, 'awardDate'>[]): { first: string; last: string } {
  let first = contracts[0]?.awardDate ?? '';
  let last = first;
  for (const { awardDate } of contracts) {
    if (awardDate < first) first = awardDate;
    else if (awardDate > last) last = awardDate;
  }
  return { first, last };
}

/**
 * Each ticker's stored events that the trailing statistics of `contracts` can see, in date order: a
 * daily file into years of history reads a year of each company's awards, not all of them. An
 * announcement's history is the company's earlier announcements only, all public before it (an award
 * signed earlier may reach USASpending months later); an award's, the earlier awards.
 */
export async function loadHistory(
  db: Queryable,
  contracts: readonly (Pick<ScoredContract, 'ticker' | 'awardDate'> & { id?: string })[],
): Promise<Map<string, DatedValue[]>> {
  const byKey = new Map<
    string,
    { ticker: string; source: ReturnType<typeof sourceOf>; list: { awardDate: string }[] }
  >();
  for (const contract of contracts) {
    const source = sourceOf(contract.id);
    const key = historyKey(source, contract.ticker);
    const entry = byKey.get(key);
    if (entry) entry.list.push(contract);
    else byKey.set(key, { ticker: contract.ticker, source, list: [contract] });
  }
  const spans = [...byKey.values()].map(({ ticker, source, list }) => {
    const { first, last } = dateSpan(list);
    return { ticker, source, ...trailingSpan(first, last) };
  });
  return awardHistory(db, spans);
}

/** The benchmarks' candles every regime of `contracts` reads: from the lookback before the first award to the last. */
async function loadBenchmarks(
  db: Queryable,
  contracts: readonly ScoredContract[],
): Promise<{ spy: Candle[]; xli: Candle[]; ita: Candle[] }> {
  const { first, last } = dateSpan(contracts);
  const from = addDays(first, -REGIME_LOOKBACK_DAYS);
  const [spy, xli, ita] = await Promise.all(
    ['SPY', 'XLI', 'ITA'].map((ticker) => candleSeries(db, ticker, from, last)),
  );
  return { spy: spy ?? [], xli: xli ?? [], ita: ita ?? [] };
}
