import { randomUUID } from 'node:crypto';
import { classify } from '../domain/classifier.ts';
import { computeRegime } from '../domain/regimes.ts';
import { type DatedValue, trailingStats } from '../domain/trailing.ts';
import type { AwardRecord, Candle, ClassificationLabel, EngineInput, RegimeResult } from '../domain/types.ts';
import type { Queryable } from '../store/db.ts';
import {
  type ResolvedAward,
  type SignalWrite,
  upsertContracts,
  upsertRegimes,
  upsertSignals,
} from '../store/writes.ts';
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

export interface IngestOptions {
  batchSize?: number;
  onProgress?: (stage: string, done: number, total: number) => void;
}

/** The contract facts an engine needs, as stored. */
export type ScoredContract = EngineInput['contract'];

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
  const counts: IngestCounts = {
    received: awards.length,
    inserted: 0,
    updated: 0,
    matched: 0,
    unmatched: 0,
    rejected: [],
    signals_created: 0,
  };
  const changed: ScoredContract[] = [];
  for (let start = 0; start < awards.length; start += batchSize) {
    const batch = awards.slice(start, start + batchSize).map((award) => resolveAward(ctx, award));
    const written = await ctx.db.transaction(async (tx) => {
      const rows = await upsertContracts(tx, batch, ctx.now());
      await tallyUnmatched(tx, batch, new Set(rows.filter((r) => r.inserted).map((r) => r.id)));
      return rows;
    });
    const writtenIds = new Map(written.map((r) => [r.id, r.inserted]));
    for (const item of batch) {
      if (item.ticker) counts.matched += 1;
      else counts.unmatched += 1;
      const inserted = writtenIds.get(item.award.id);
      if (inserted === undefined) continue;
      if (inserted) counts.inserted += 1;
      else counts.updated += 1;
      if (item.ticker) changed.push(toScored(item, item.ticker));
    }
    progress('contracts', Math.min(start + batchSize, awards.length), awards.length);
  }
  counts.signals_created = await scoreContracts(ctx, changed, { batchSize, onProgress: progress });
  return counts;
}

function toScored(item: ResolvedAward, ticker: string): ScoredContract {
  return {
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
  const entries = [...tally.entries()];
  await tx.query(
    `INSERT INTO unmatched_recipients (name_norm, sample_name, award_count, total_value)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int8[])
     ON CONFLICT (name_norm) DO UPDATE SET award_count = unmatched_recipients.award_count + EXCLUDED.award_count,
       total_value = unmatched_recipients.total_value + EXCLUDED.total_value`,
    [
      entries.map(([k]) => k),
      entries.map(([, v]) => v.sample),
      entries.map(([, v]) => v.count),
      entries.map(([, v]) => v.total),
    ],
  );
}

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
  const [history, sectors] = await Promise.all([loadHistory(ctx.db, tickers), loadSectors(ctx.db, tickers)]);
  const regimeByDate = new Map<string, RegimeResult | null>();
  let created = 0;
  for (let start = 0; start < contracts.length; start += batchSize) {
    const batch = contracts.slice(start, start + batchSize);
    const regimes: { contractId: string; ticker: string; regime: RegimeResult }[] = [];
    const signals: SignalWrite[] = [];
    for (const contract of batch) {
      const regime = regimeAt(ctx, regimeByDate, contract.awardDate);
      if (regime) regimes.push({ contractId: contract.id, ticker: contract.ticker, regime });
      const input: EngineInput = {
        contract: { ...contract },
        company: sectors.get(contract.ticker) ?? null,
        trailing: trailingStats(history.get(contract.ticker) ?? [], contract.awardDate),
        regime,
      };
      for (const engine of ctx.engines) {
        signals.push({
          id: randomUUID(),
          contractId: contract.id,
          ticker: contract.ticker,
          engine,
          output: engine.score(input),
        });
      }
    }
    const written = await ctx.db.transaction(async (tx) => {
      await upsertRegimes(tx, regimes);
      return upsertSignals(tx, signals, ctx.now());
    });
    created += written.filter((w) => w.inserted).length;
    options.onProgress?.('signals', Math.min(start + batchSize, contracts.length), contracts.length);
  }
  return created;
}

function regimeAt(
  ctx: PipelineContext,
  cache: Map<string, RegimeResult | null>,
  date: string,
): RegimeResult | null {
  const cached = cache.get(date);
  if (cached !== undefined) return cached;
  const { spy, xli, ita } = ctx.benchmarks;
  const regime = computeRegime({
    asOf: date,
    spy: barsUpTo(spy, date),
    xli: barsUpTo(xli, date),
    ita: barsUpTo(ita, date),
  });
  cache.set(date, regime);
  return regime;
}

/**
 * The regime reads at most about 300 bars (a year of 20-day volatility); handing it only the bars up
 * to the date, bounded, keeps a run over many award dates linear instead of quadratic.
 */
const REGIME_BARS = 400;

function barsUpTo(series: readonly Candle[], date: string): Candle[] {
  let lo = 0;
  let hi = series.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((series[mid]?.date ?? '') <= date) lo = mid + 1;
    else hi = mid;
  }
  return series.slice(Math.max(0, lo - REGIME_BARS), lo);
}

async function loadHistory(db: Queryable, tickers: string[]): Promise<Map<string, DatedValue[]>> {
  const rows = await db.query<{ ticker: string; date: string; value: number }>(
    `SELECT ticker, award_date AS date, contract_value AS value FROM contracts
     WHERE ticker = ANY($1::text[]) ORDER BY ticker, award_date`,
    [tickers],
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
