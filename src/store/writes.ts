import type { AwardRecord, Candle, Company, EngineOutput, RegimeResult } from '../domain/types.ts';
import type { Queryable } from './db.ts';

/**
 * Multi-row writes are one statement per batch, same SQL on PGlite and pg: small tables go through
 * unnest() of typed arrays; the ingest hot path (contracts, regimes, signals) sends the batch as one
 * JSON document read by jsonb_to_recordset(), which costs node ~6× less CPU than serializing a dozen
 * text[] literals (each element escaped in JS) and halves the round trip for 10k signal rows.
 */
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
  const records = rows.map(({ award: a, ...r }) => ({
    id: a.id,
    ticker: r.ticker,
    recipient_name: a.recipientName,
    recipient_uei: a.recipientUei,
    parent_name: a.parentName,
    award_date: a.awardDate,
    contract_value: a.value,
    awarding_agency: a.awardingAgency,
    awarding_sub_agency: a.awardingSubAgency,
    description: a.description,
    naics: a.naics,
    psc: a.psc,
    nlp_classification: r.classification,
    match_confidence: r.matchConfidence,
    match_method: r.matchMethod,
    source_modified_at: a.sourceModifiedAt,
  }));
  return db.query<{ id: string; inserted: boolean }>(
    `INSERT INTO contracts (id, ticker, recipient_name, recipient_uei, parent_name, award_date, contract_value,
       awarding_agency, awarding_sub_agency, description, naics, psc, nlp_classification, match_confidence,
       match_method, source_modified_at, first_seen_at, updated_at)
     SELECT u.*, $2::timestamptz, $2::timestamptz FROM jsonb_to_recordset($1::jsonb) AS u(id text, ticker text,
       recipient_name text, recipient_uei text, parent_name text, award_date date, contract_value int8,
       awarding_agency text, awarding_sub_agency text, description text, naics text, psc text,
       nlp_classification text, match_confidence float8, match_method text, source_modified_at timestamptz)
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
    [JSON.stringify(records), now.toISOString()],
  );
}

export async function upsertRegimes(
  db: Queryable,
  rows: readonly { contractId: string; ticker: string; regime: RegimeResult }[],
): Promise<void> {
  if (rows.length === 0) return;
  const records = rows.map(({ contractId, ticker, regime }) => ({
    contract_id: contractId,
    ticker,
    as_of: regime.asOf,
    benchmark: regime.benchmark,
    dominant: regime.dominant,
    scores: regime.scores,
    features: regime.features,
    engine_version: regime.version,
  }));
  await db.query(
    `INSERT INTO regimes (contract_id, ticker, as_of, benchmark, dominant, scores, features, engine_version)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS u(contract_id text, ticker text, as_of date, benchmark text,
       dominant text, scores jsonb, features jsonb, engine_version text)
     ON CONFLICT (contract_id) DO UPDATE SET ticker = EXCLUDED.ticker, as_of = EXCLUDED.as_of,
       benchmark = EXCLUDED.benchmark, dominant = EXCLUDED.dominant, scores = EXCLUDED.scores,
       features = EXCLUDED.features, engine_version = EXCLUDED.engine_version, computed_at = now()`,
    [JSON.stringify(records)],
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
  const records = rows.map((r) => ({
    id: r.id,
    contract_id: r.contractId,
    ticker: r.ticker,
    engine_name: r.engine.name,
    engine_version: r.engine.version,
    engine_tier: r.engine.tier,
    signal_score: r.output.scores.signal,
    importance_score: r.output.scores.importance,
    confidence_score: r.output.scores.confidence,
    risk_score: r.output.scores.risk,
    rationale: r.output.rationale,
  }));
  return db.query<SignalWritten>(
    `INSERT INTO signals (id, contract_id, ticker, engine_name, engine_version, engine_tier, signal_score,
       importance_score, confidence_score, risk_score, rationale, computed_at)
     SELECT u.*, $2::timestamptz FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, contract_id text, ticker text,
       engine_name text, engine_version text, engine_tier text, signal_score int, importance_score int,
       confidence_score int, risk_score int, rationale jsonb)
     ON CONFLICT (contract_id, engine_name, engine_version) DO UPDATE SET ticker = EXCLUDED.ticker,
       engine_tier = EXCLUDED.engine_tier, signal_score = EXCLUDED.signal_score,
       importance_score = EXCLUDED.importance_score, confidence_score = EXCLUDED.confidence_score,
       risk_score = EXCLUDED.risk_score, rationale = EXCLUDED.rationale, computed_at = EXCLUDED.computed_at
     RETURNING id, contract_id, engine_name, signal_score, (xmax = 0) AS inserted`,
    [JSON.stringify(records), now.toISOString()],
  );
}
