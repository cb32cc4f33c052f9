import type { AwardRecord, Candle, Company, EngineOutput, RegimeResult } from '../domain/types.ts';
import type { Queryable } from './db.ts';

/** Multi-row writes go through unnest() of typed arrays: one round trip per batch, same SQL on PGlite and pg. */
const column = <T, V>(rows: readonly T[], pick: (row: T) => V): V[] => rows.map(pick);

export async function upsertCompanies(db: Queryable, rows: readonly Company[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO companies (ticker, name, cik, exchange, sector, industry)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
     ON CONFLICT (ticker) DO UPDATE SET name = EXCLUDED.name, cik = EXCLUDED.cik, exchange = EXCLUDED.exchange,
       sector = EXCLUDED.sector, industry = EXCLUDED.industry`,
    [
      column(rows, (r) => r.ticker),
      column(rows, (r) => r.name),
      column(rows, (r) => r.cik),
      column(rows, (r) => r.exchange),
      column(rows, (r) => r.sector),
      column(rows, (r) => r.industry),
    ],
  );
}

export async function insertAliases(
  db: Queryable,
  rows: readonly { aliasNorm: string; ticker: string; source: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO company_aliases (alias_norm, ticker, source)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
    [column(rows, (r) => r.aliasNorm), column(rows, (r) => r.ticker), column(rows, (r) => r.source)],
  );
}

export async function upsertCandles(
  db: Queryable,
  ticker: string,
  candles: readonly Candle[],
): Promise<void> {
  if (candles.length === 0) return;
  await db.query(
    `INSERT INTO candles (ticker, date, open, high, low, close, adj_close, volume)
     SELECT $1, * FROM unnest($2::date[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::int8[])
     ON CONFLICT (ticker, date) DO UPDATE SET open = EXCLUDED.open, high = EXCLUDED.high, low = EXCLUDED.low,
       close = EXCLUDED.close, adj_close = EXCLUDED.adj_close, volume = EXCLUDED.volume`,
    [
      ticker,
      column(candles, (c) => c.date),
      column(candles, (c) => c.open),
      column(candles, (c) => c.high),
      column(candles, (c) => c.low),
      column(candles, (c) => c.close),
      column(candles, (c) => c.adjClose),
      column(candles, (c) => c.volume),
    ],
  );
}

export interface ResolvedAward {
  award: AwardRecord;
  ticker: string | null;
  classification: string;
  matchConfidence: number;
  matchMethod: string;
  /** The normalized recipient name, the key of the unmatched-recipients tally. */
  nameNorm: string;
}

/**
 * Upserts by award id. A re-ingested award keeps `first_seen_at`; rows whose source data did not change
 * are left alone, so re-running an import is cheap and reports them as neither inserted nor updated.
 */
export async function upsertContracts(
  db: Queryable,
  rows: readonly ResolvedAward[],
  now: Date,
): Promise<{ id: string; inserted: boolean }[]> {
  if (rows.length === 0) return [];
  const a = (pick: (r: AwardRecord) => unknown) => column(rows, (r) => pick(r.award));
  return db.query<{ id: string; inserted: boolean }>(
    `INSERT INTO contracts (id, ticker, recipient_name, recipient_uei, parent_name, award_date, contract_value,
       awarding_agency, awarding_sub_agency, description, naics, psc, nlp_classification, match_confidence,
       match_method, source_modified_at, first_seen_at, updated_at)
     SELECT u.*, $17::timestamptz, $17::timestamptz FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],
       $5::text[], $6::date[], $7::int8[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
       $14::float8[], $15::text[], $16::timestamptz[]) AS u
     ON CONFLICT (id) DO UPDATE SET ticker = EXCLUDED.ticker, recipient_name = EXCLUDED.recipient_name,
       recipient_uei = EXCLUDED.recipient_uei, parent_name = EXCLUDED.parent_name, award_date = EXCLUDED.award_date,
       contract_value = EXCLUDED.contract_value, awarding_agency = EXCLUDED.awarding_agency,
       awarding_sub_agency = EXCLUDED.awarding_sub_agency, description = EXCLUDED.description, naics = EXCLUDED.naics,
       psc = EXCLUDED.psc, nlp_classification = EXCLUDED.nlp_classification,
       match_confidence = EXCLUDED.match_confidence, match_method = EXCLUDED.match_method,
       source_modified_at = EXCLUDED.source_modified_at, updated_at = EXCLUDED.updated_at
     WHERE (contracts.ticker, contracts.recipient_name, contracts.award_date, contracts.contract_value,
            contracts.awarding_agency, contracts.description, contracts.nlp_classification, contracts.source_modified_at)
       IS DISTINCT FROM (EXCLUDED.ticker, EXCLUDED.recipient_name, EXCLUDED.award_date, EXCLUDED.contract_value,
            EXCLUDED.awarding_agency, EXCLUDED.description, EXCLUDED.nlp_classification, EXCLUDED.source_modified_at)
     RETURNING id, (xmax = 0) AS inserted`,
    [
      a((r) => r.id),
      column(rows, (r) => r.ticker),
      a((r) => r.recipientName),
      a((r) => r.recipientUei),
      a((r) => r.parentName),
      a((r) => r.awardDate),
      a((r) => r.value),
      a((r) => r.awardingAgency),
      a((r) => r.awardingSubAgency),
      a((r) => r.description),
      a((r) => r.naics),
      a((r) => r.psc),
      column(rows, (r) => r.classification),
      column(rows, (r) => r.matchConfidence),
      column(rows, (r) => r.matchMethod),
      a((r) => r.sourceModifiedAt),
      now.toISOString(),
    ],
  );
}

export async function upsertRegimes(
  db: Queryable,
  rows: readonly { contractId: string; ticker: string; regime: RegimeResult }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO regimes (contract_id, ticker, as_of, benchmark, dominant, scores, features, engine_version)
     SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::text[])
     ON CONFLICT (contract_id) DO UPDATE SET ticker = EXCLUDED.ticker, as_of = EXCLUDED.as_of,
       benchmark = EXCLUDED.benchmark, dominant = EXCLUDED.dominant, scores = EXCLUDED.scores,
       features = EXCLUDED.features, engine_version = EXCLUDED.engine_version, computed_at = now()`,
    [
      column(rows, (r) => r.contractId),
      column(rows, (r) => r.ticker),
      column(rows, (r) => r.regime.asOf),
      column(rows, (r) => r.regime.benchmark),
      column(rows, (r) => r.regime.dominant),
      column(rows, (r) => JSON.stringify(r.regime.scores)),
      column(rows, (r) => JSON.stringify(r.regime.features)),
      column(rows, (r) => r.regime.version),
    ],
  );
}

export interface SignalWrite {
  id: string;
  contractId: string;
  ticker: string;
  engine: { name: string; version: string; tier: string };
  output: EngineOutput;
}

export interface SignalWritten {
  id: string;
  contract_id: string;
  engine_name: string;
  signal_score: number;
  inserted: boolean;
}

/** Idempotent per (contract, engine, version): a recompute updates the row and keeps its id. */
export async function upsertSignals(
  db: Queryable,
  rows: readonly SignalWrite[],
  now: Date,
): Promise<SignalWritten[]> {
  if (rows.length === 0) return [];
  const s = (pick: (r: SignalWrite['output']['scores']) => number) =>
    column(rows, (r) => pick(r.output.scores));
  return db.query<SignalWritten>(
    `INSERT INTO signals (id, contract_id, ticker, engine_name, engine_version, engine_tier, signal_score,
       importance_score, confidence_score, risk_score, rationale, computed_at)
     SELECT u.*, $12::timestamptz FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
       $7::int[], $8::int[], $9::int[], $10::int[], $11::jsonb[]) AS u
     ON CONFLICT (contract_id, engine_name, engine_version) DO UPDATE SET ticker = EXCLUDED.ticker,
       engine_tier = EXCLUDED.engine_tier, signal_score = EXCLUDED.signal_score,
       importance_score = EXCLUDED.importance_score, confidence_score = EXCLUDED.confidence_score,
       risk_score = EXCLUDED.risk_score, rationale = EXCLUDED.rationale, computed_at = EXCLUDED.computed_at
     RETURNING id, contract_id, engine_name, signal_score, (xmax = 0) AS inserted`,
    [
      column(rows, (r) => r.id),
      column(rows, (r) => r.contractId),
      column(rows, (r) => r.ticker),
      column(rows, (r) => r.engine.name),
      column(rows, (r) => r.engine.version),
      column(rows, (r) => r.engine.tier),
      s((x) => x.signal),
      s((x) => x.importance),
      s((x) => x.confidence),
      s((x) => x.risk),
      column(rows, (r) => JSON.stringify(r.output.rationale)),
      now.toISOString(),
    ],
  );
}
