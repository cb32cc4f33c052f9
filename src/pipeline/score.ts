import { computeRegime } from '../domain/regimes.ts';
import { addDays } from '../domain/trailing.ts';
import type { Engine, EngineInput, RegimeResult } from '../domain/types.ts';
import type { SignalDto } from '../shapes/resources.ts';
import type { Db, Queryable } from '../store/db.ts';
import { candleSeries, getRegime } from '../store/market.ts';
import { latestSignal } from '../store/signals.ts';
import { signalWrite, upsertRegimes, upsertSignals } from '../store/writes.ts';
import { enqueueSignalCreated } from '../webhooks/outbox.ts';

type ContractFacts = EngineInput['contract'] & { sector: string | null; industry: string | null };

/** Enough history for a 200-day average and a one-year volatility percentile. */
const REGIME_LOOKBACK_DAYS = 800;

/**
 * Computes (or recomputes) one contract's signal under one engine from stored inputs.
 * Idempotent: the same inputs give the same scores and the same row. Null when no such event exists.
 * A newly created signal at or above `signalThreshold` enqueues its `signal.created` deliveries in the
 * same transaction as the signal row.
 */
export async function scoreContract(
  db: Db,
  contractId: string,
  engine: Engine,
  now: Date,
  signalThreshold: number,
): Promise<{ signal: SignalDto; created: boolean } | null> {
  const facts = await loadFacts(db, contractId);
  if (!facts) return null;
  const [trailing, regime] = await Promise.all([loadTrailing(db, facts), regimeFor(db, facts)]);
  const input: EngineInput = {
    contract: contractOf(facts),
    company: { sector: facts.sector, industry: facts.industry },
    trailing,
    regime,
  };
  const write = signalWrite({ id: contractId, ticker: facts.ticker }, engine, engine.score(input));
  const written = await db.transaction(async (tx) => {
    const rows = await upsertSignals(tx, [write], now);
    await enqueueSignalCreated(tx, rows, signalThreshold, now);
    return rows[0];
  });
  const signal = await latestSignal(db, contractId, engine.name);
  if (!signal) return null;
  return { signal, created: written?.inserted ?? false };
}

function contractOf({ sector: _s, industry: _i, ...contract }: ContractFacts): EngineInput['contract'] {
  return contract;
}

async function loadFacts(db: Queryable, id: string): Promise<ContractFacts | null> {
  const rows = await db.query<ContractFacts>(
    `SELECT c.id, c.ticker, c.contract_value AS value, c.award_date AS "awardDate", c.awarding_agency AS "awardingAgency",
       c.nlp_classification AS classification, c.match_confidence AS "matchConfidence", co.sector, co.industry
     FROM contracts c LEFT JOIN companies co ON co.ticker = c.ticker
     WHERE c.id = $1 AND c.ticker IS NOT NULL`,
    [id],
  );
  return rows[0] ?? null;
}

/** Same definition as the batch pipeline: the ticker's awards in the 365 days strictly before. */
async function loadTrailing(db: Queryable, facts: ContractFacts): Promise<EngineInput['trailing']> {
  const rows = await db.query<{ count: number; total: number | null; median: number | null }>(
    `SELECT count(*)::int AS count, sum(contract_value)::float8 AS total,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY contract_value)::float8 AS median
     FROM contracts WHERE ticker = $1 AND award_date >= $2::date AND award_date < $3::date`,
    [facts.ticker, addDays(facts.awardDate, -365), facts.awardDate],
  );
  const row = rows[0];
  return { count: row?.count ?? 0, totalValue: row?.total ?? 0, medianValue: row?.median ?? 0 };
}

/** The stored regime; computed from the candles up to the award date when the pipeline left none. */
async function regimeFor(db: Db, facts: ContractFacts): Promise<RegimeResult | null> {
  const stored = await getRegime(db, facts.id);
  if (stored) {
    return {
      asOf: stored.as_of,
      benchmark: stored.benchmark,
      dominant: stored.dominant,
      scores: stored.scores,
      features: stored.features,
      version: stored.engine_version,
    };
  }
  const from = addDays(facts.awardDate, -REGIME_LOOKBACK_DAYS);
  const [spy, xli, ita] = await Promise.all(
    ['SPY', 'XLI', 'ITA'].map((t) => candleSeries(db, t, from, facts.awardDate)),
  );
  const regime = computeRegime({ asOf: facts.awardDate, spy: spy ?? [], xli: xli ?? [], ita: ita ?? [] });
  if (regime) await upsertRegimes(db, [{ awardDate: facts.awardDate, regime }]);
  return regime;
}
