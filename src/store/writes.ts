import type { AwardRecord, Candle, Company, EngineOutput, RegimeResult } from '../domain/types.ts';
import type { Loader, Queryable } from './db.ts';
import { IDENTITY_STAGE, type IdentityColumns, identityRecord } from './identity-columns.ts';
import { timeOrderedId } from './ids.ts';
import { encodeRationale } from './rows.ts';

/**
 * Multi-row writes are one statement per batch: small tables go through
 * unnest() of typed arrays; the ingest hot path (contracts, signals) is staged with COPY (below).
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

/**
 * Many series at once (the demo data's 90,000 candles): streamed with COPY into a temporary table, then
 * upserted in one statement. Four to five times faster than batches of `upsertCandles`.
 */
export async function loadCandles(tx: Loader, series: ReadonlyMap<string, readonly Candle[]>): Promise<void> {
  await tx.query('CREATE TEMP TABLE candles_in (LIKE candles) ON COMMIT DROP');
  const rows = [...series].flatMap(([ticker, candles]) => candles.map((candle) => ({ ticker, candle })));
  await tx.copyFrom('candles_in', CANDLE_COLUMNS, rows, ({ ticker, candle: c }) => [
    ticker,
    c.date,
    c.open,
    c.high,
    c.low,
    c.close,
    c.adjClose,
    c.volume,
  ]);
  await tx.query(
    `INSERT INTO candles SELECT * FROM candles_in
     ON CONFLICT (ticker, date) DO UPDATE SET open = EXCLUDED.open, high = EXCLUDED.high, low = EXCLUDED.low,
       close = EXCLUDED.close, adj_close = EXCLUDED.adj_close, volume = EXCLUDED.volume`,
  );
}

const CANDLE_COLUMNS = ['ticker', 'date', 'open', 'high', 'low', 'close', 'adj_close', 'volume'] as const;

export interface ResolvedAward {
  award: AwardRecord;
  ticker: string | null;
  classification: string;
  matchConfidence: number;
  matchMethod: string;
  /** The normalized recipient name, the key of the unmatched-recipients tally. */
  nameNorm: string;
  /** Who owned the recipient on the award date (migration 023's columns). */
  identity: IdentityColumns;
}

/**
 * The ingest hot path stages a batch in a temporary table filled by COPY (no WAL, no indexes; the server
 * parses COPY text far more cheaply than a JSON document) and upserts from it in one statement.
 * `record(row)` gives a row's values in `columns` order; `upsert` reads the batch as the relation named
 * `table`. A small batch (an API call, one page) skips the temporary table, whose creation would cost
 * more than it saves: the same relation is read from a JSON parameter, appended after `params`. Call
 * inside a transaction: the staging table lives until the end of the call (or the commit).
 */
async function staged<T, R>(
  tx: Loader,
  table: string,
  columns: readonly (readonly [name: string, type: string])[],
  rows: readonly R[],
  record: (row: R) => readonly unknown[],
  upsert: (source: string) => string,
  params: readonly unknown[],
): Promise<T[]> {
  const definition = columns.map(([name, type]) => `${name} ${type}`).join(', ');
  if (rows.length <= SMALL_BATCH) {
    const records = rows.map((row) => {
      const values = record(row);
      return Object.fromEntries(columns.map(([name], i) => [name, values[i] ?? null]));
    });
    return tx.query<T>(upsert(`json_to_recordset($${params.length + 1}::json) AS ${table}(${definition})`), [
      ...params,
      JSON.stringify(records),
    ]);
  }
  await tx.query(`CREATE TEMP TABLE ${table} (${definition}) ON COMMIT DROP`);
  await tx.copyFrom(
    table,
    columns.map(([name]) => name),
    rows,
    record,
  );
  const result = await tx.query<T>(upsert(table), params);
  await tx.query(`DROP TABLE ${table}`);
  return result;
}

const SMALL_BATCH = 100;

const CONTRACT_STAGE = [
  ['id', 'text'],
  ['ticker', 'text'],
  ['recipient_name', 'text'],
  ['recipient_uei', 'text'],
  ['parent_name', 'text'],
  ['award_date', 'date'],
  ['contract_value', 'int8'],
  ['awarding_agency', 'text'],
  ['awarding_sub_agency', 'text'],
  ['description', 'text'],
  ['naics', 'text'],
  ['psc', 'text'],
  ['nlp_classification', 'text'],
  ['match_confidence', 'float8'],
  ['match_method', 'text'],
  ['source_modified_at', 'timestamptz'],
  ...IDENTITY_STAGE,
] as const;

/**
 * The columns a new contract gets the import's one timestamp in. `available_at` is written with it, not
 * left to its column default: that is the database's clock at its transaction's start, a few
 * milliseconds off this process's, and an award nothing announced must be available exactly when it
 * was first seen (announcements move it earlier: store/announcements.ts).
 */
const FIRST_SEEN_COLUMNS = ['first_seen_at', 'available_at', 'updated_at'] as const;

/**
 * Upserts by award id. A re-ingested award keeps `first_seen_at`; rows whose source data did not change
 * are left alone, so re-running an import is cheap and reports them as neither inserted nor updated.
 * Ids not stored yet are copied straight into the table; the others go through the staged upsert.
 * `stored`: the ids among `rows` the caller found stored just before (else they are probed here); one
 * stored meanwhile by another run makes the copy fail and the batch be upserted.
 */
export async function upsertContracts(
  tx: Loader,
  rows: readonly ResolvedAward[],
  now: Date,
  stored?: ReadonlySet<string>,
): Promise<{ id: string; inserted: boolean }[]> {
  const stamp = now.toISOString();
  if (rows.length <= SMALL_BATCH) return upsertContractRows(tx, rows, stamp);
  const known = stored ?? (await storedIds(tx, rows));
  return copyFreshOrUpsert(tx, rows, {
    fresh: rows.filter((r) => !known.has(r.award.id)),
    table: 'contracts',
    columns: [...CONTRACT_STAGE.map(([name]) => name), ...FIRST_SEEN_COLUMNS],
    record: (r) => [...contractRecord(r), stamp, stamp, stamp],
    written: (r) => ({ id: r.award.id, inserted: true }),
    upsert: (some) => upsertContractRows(tx, some, stamp),
  });
}

/**
 * Award ids as one query parameter for the stored-id probes: distinct, newline-separated text that
 * `storedContractsAmong` splits back (no array literal to escape element by element). An id that
 * itself held a newline would only look unstored: its COPY would fail and the batch be upserted.
 */
export const joinIds = (ids: readonly string[]): string => [...new Set(ids)].join('\n');

/**
 * The stored contracts among the ids in `param` (see `joinIds`), as a FROM item `c` holding `select`
 * (over `contracts c`): one primary-key lookup per id, never the whole-table scan an `= ANY` of tens of
 * thousands of ids gets (docs/EVALUATION.md#stored-id-probes). `OFFSET 0` keeps the lookups from being
 * merged into a join.
 */
export const storedContractsAmong = (param: string, select: string): string =>
  `unnest(string_to_array(${param}, E'\\n')) AS probe(id)
   CROSS JOIN LATERAL (SELECT ${select} FROM contracts c WHERE c.id = probe.id OFFSET 0) AS c`;

async function storedIds(tx: Loader, rows: readonly ResolvedAward[]): Promise<Set<string>> {
  const stored = await tx.query<{ id: string }>(`SELECT c.id FROM ${storedContractsAmong('$1', 'c.id')}`, [
    joinIds(rows.map((r) => r.award.id)),
  ]);
  return new Set(stored.map((r) => r.id));
}

function upsertContractRows(
  tx: Loader,
  rows: readonly ResolvedAward[],
  stamp: string,
): Promise<{ id: string; inserted: boolean }[]> {
  if (rows.length === 0) return Promise.resolve([]);
  const columns = CONTRACT_STAGE.map(([name]) => name).join(', ');
  return staged<{ id: string; inserted: boolean }, ResolvedAward>(
    tx,
    'contracts_in',
    CONTRACT_STAGE,
    rows,
    contractRecord,
    (source) => `INSERT INTO contracts (${columns}, ${FIRST_SEEN_COLUMNS.join(', ')})
     SELECT ${columns}, $1::timestamptz, $1::timestamptz, $1::timestamptz FROM ${source}
     ON CONFLICT (id) DO UPDATE SET ticker = EXCLUDED.ticker, recipient_name = EXCLUDED.recipient_name,
       recipient_uei = EXCLUDED.recipient_uei, parent_name = EXCLUDED.parent_name, award_date = EXCLUDED.award_date,
       contract_value = EXCLUDED.contract_value, awarding_agency = EXCLUDED.awarding_agency,
       awarding_sub_agency = EXCLUDED.awarding_sub_agency, description = EXCLUDED.description, naics = EXCLUDED.naics,
       psc = EXCLUDED.psc, nlp_classification = EXCLUDED.nlp_classification,
       match_confidence = EXCLUDED.match_confidence, match_method = EXCLUDED.match_method,
       source_modified_at = EXCLUDED.source_modified_at, updated_at = EXCLUDED.updated_at, ${IDENTITY_SET}
     WHERE (contracts.ticker, contracts.recipient_name, contracts.award_date, contracts.contract_value,
            contracts.awarding_agency, contracts.description, contracts.nlp_classification, contracts.source_modified_at,
            contracts.entity_id, contracts.series_ticker, contracts.resolver_version)
       IS DISTINCT FROM (EXCLUDED.ticker, EXCLUDED.recipient_name, EXCLUDED.award_date, EXCLUDED.contract_value,
            EXCLUDED.awarding_agency, EXCLUDED.description, EXCLUDED.nlp_classification, EXCLUDED.source_modified_at,
            EXCLUDED.entity_id, EXCLUDED.series_ticker, EXCLUDED.resolver_version)
     RETURNING id, (xmax = 0) AS inserted`,
    [stamp],
  );
}

/** A contract row in CONTRACT_STAGE's column order. */
function contractRecord({ award: a, ...r }: ResolvedAward): unknown[] {
  return [
    a.id,
    r.ticker,
    a.recipientName,
    a.recipientUei,
    a.parentName,
    a.awardDate,
    a.value,
    a.awardingAgency,
    a.awardingSubAgency,
    a.description,
    a.naics,
    a.psc,
    r.classification,
    r.matchConfidence,
    r.matchMethod,
    a.sourceModifiedAt,
    ...identityRecord(r.identity),
  ];
}

/** The identity columns an upsert overwrites. */
const IDENTITY_SET = IDENTITY_STAGE.map(([name]) => `${name} = EXCLUDED.${name}`).join(', ');

/**
 * Writes `fresh` (rows that should not exist yet) by COPY straight into `table` — the cheapest way in:
 * no conflict checks, batched heap writes — and upserts the other rows. If another transaction stored
 * one of the fresh rows meanwhile, the unique violation is rolled back to a savepoint and the whole
 * batch upserted instead.
 */
async function copyFreshOrUpsert<R, W>(
  tx: Loader,
  rows: readonly R[],
  plan: {
    fresh: readonly R[];
    table: string;
    columns: readonly string[];
    record: (row: R) => unknown[];
    /** What the upsert would have answered for a fresh row. */
    written: (row: R) => W;
    upsert: (rows: readonly R[]) => Promise<W[]>;
  },
): Promise<W[]> {
  const { fresh } = plan;
  if (fresh.length === 0) return plan.upsert(rows);
  await tx.query('SAVEPOINT copy_fresh');
  try {
    await tx.copyFrom(plan.table, plan.columns, fresh, plan.record);
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT copy_fresh');
    return plan.upsert(rows);
  }
  await tx.query('RELEASE SAVEPOINT copy_fresh');
  const written = fresh.map(plan.written);
  if (fresh.length === rows.length) return written;
  const copied = new Set(fresh);
  return [...written, ...(await plan.upsert(rows.filter((r) => !copied.has(r))))];
}

const UNIQUE_VIOLATION = '23505';

/** The regime of each award date (one row per date; the `regimes` view joins it to the contracts). */
export async function upsertRegimes(
  db: Queryable,
  rows: readonly { awardDate: string; regime: RegimeResult }[],
): Promise<void> {
  if (rows.length === 0) return;
  // In date order, so concurrent runs writing overlapping dates wait for each other instead of deadlocking.
  const sorted = [...rows].sort((a, b) =>
    a.awardDate < b.awardDate ? -1 : a.awardDate > b.awardDate ? 1 : 0,
  );
  const records = sorted.map(({ awardDate, regime }) => ({
    award_date: awardDate,
    as_of: regime.asOf,
    benchmark: regime.benchmark,
    dominant: regime.dominant,
    scores: regime.scores,
    features: regime.features,
    engine_version: regime.version,
  }));
  await db.query(
    `INSERT INTO market_regimes (award_date, as_of, benchmark, dominant, scores, features, engine_version)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS u(award_date date, as_of date, benchmark text,
       dominant text, scores jsonb, features jsonb, engine_version text)
     ON CONFLICT (award_date) DO UPDATE SET as_of = EXCLUDED.as_of, benchmark = EXCLUDED.benchmark,
       dominant = EXCLUDED.dominant, scores = EXCLUDED.scores, features = EXCLUDED.features,
       engine_version = EXCLUDED.engine_version, computed_at = now()
     WHERE (market_regimes.as_of, market_regimes.dominant, market_regimes.scores, market_regimes.features,
            market_regimes.engine_version)
       IS DISTINCT FROM (EXCLUDED.as_of, EXCLUDED.dominant, EXCLUDED.scores, EXCLUDED.features,
            EXCLUDED.engine_version)`,
    [JSON.stringify(records)],
  );
}

export interface SignalWrite {
  id: string;
  contractId: string;
  ticker: string;
  engine: { name: string; version: string; tier: string };
  scores: EngineOutput['scores'];
  /**
   * The rationale as stored (`encodeRationale`), encoded as soon as it is computed: a batch waiting for
   * its write then holds one string per signal instead of a dozen objects, which every young-generation
   * collection meanwhile would copy (the scoring phase of a large import spent ≈ 20 % of its node time
   * in such collections).
   */
  rationale: string;
  /** The contract has no stored signal of any engine yet (just inserted): the row is copied straight in. */
  unscored?: boolean;
}

/** An engine's output on a contract, ready to write: a new time-ordered id, the rationale encoded. */
export function signalWrite(
  contract: { id: string; ticker: string },
  engine: SignalWrite['engine'],
  { scores, rationale }: EngineOutput,
  unscored?: boolean,
): SignalWrite {
  return {
    id: timeOrderedId(),
    contractId: contract.id,
    ticker: contract.ticker,
    engine,
    scores,
    rationale: encodeRationale(rationale),
    unscored,
  };
}

export interface SignalWritten {
  id: string;
  contract_id: string;
  engine_name: string;
  signal_score: number;
  inserted: boolean;
}

const SIGNAL_STAGE = [
  ['id', 'uuid'],
  ['contract_id', 'text'],
  ['ticker', 'text'],
  ['engine_name', 'text'],
  ['engine_version', 'text'],
  ['engine_tier', 'text'],
  ['signal_score', 'int'],
  ['importance_score', 'int'],
  ['confidence_score', 'int'],
  ['risk_score', 'int'],
  ['rationale', 'text'],
] as const;

/**
 * Idempotent per (contract, engine, version): a recompute updates the row and keeps its id; one that
 * gives the same values leaves the row alone (its `computed_at` is when those values were computed),
 * so it notifies no cache (migration 024) and is not among the rows returned. Rows of
 * contracts without any signal yet (`unscored`) are copied straight in; the others go through the
 * staged upsert.
 */
export async function upsertSignals(
  tx: Loader,
  rows: readonly SignalWrite[],
  now: Date,
): Promise<SignalWritten[]> {
  const stamp = now.toISOString();
  const fresh = rows.length <= SMALL_BATCH ? [] : rows.filter((r) => r.unscored);
  const availableAt = await contractsAvailableAt(tx, fresh);
  return copyFreshOrUpsert(tx, rows, {
    fresh,
    table: 'signals',
    columns: [...SIGNAL_STAGE.map(([name]) => name), 'computed_at', 'available_at'],
    record: (r) => [...signalRecord(r), stamp, availableAt.get(r.contractId) ?? null],
    written: ({ id, contractId, engine, scores }) => ({
      id,
      contract_id: contractId,
      engine_name: engine.name,
      signal_score: scores.signal,
      inserted: true,
    }),
    upsert: (some) => upsertSignalRows(tx, some, stamp),
  });
}

/**
 * The `available_at` of the contracts of `rows`, which their signals carry (migration 028): a signal
 * copied straight in is given its contract's value here, one primary-key lookup per contract.
 */
async function contractsAvailableAt(tx: Loader, rows: readonly SignalWrite[]): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map();
  const found = await tx.query<{ id: string; available_at: string }>(
    `SELECT c.id, c.available_at FROM ${storedContractsAmong('$1', 'c.id, c.available_at')}`,
    [joinIds(rows.map((r) => r.contractId))],
  );
  return new Map(found.map((r) => [r.id, r.available_at]));
}

function upsertSignalRows(tx: Loader, rows: readonly SignalWrite[], stamp: string): Promise<SignalWritten[]> {
  if (rows.length === 0) return Promise.resolve([]);
  const columns = SIGNAL_STAGE.map(([name]) => name).join(', ');
  return staged<SignalWritten, SignalWrite>(
    tx,
    'signals_in',
    SIGNAL_STAGE,
    rows,
    signalRecord,
    // The contract's available_at as the statement finds it (migration 028).
    (source) => `INSERT INTO signals (${columns}, computed_at, available_at)
     SELECT ${columns}, $1::timestamptz,
       (SELECT c.available_at FROM contracts c WHERE c.id = signals_in.contract_id) FROM ${source}
     ON CONFLICT (contract_id, engine_name, engine_version) DO UPDATE SET ticker = EXCLUDED.ticker,
       engine_tier = EXCLUDED.engine_tier, signal_score = EXCLUDED.signal_score,
       importance_score = EXCLUDED.importance_score, confidence_score = EXCLUDED.confidence_score,
       risk_score = EXCLUDED.risk_score, rationale = EXCLUDED.rationale, computed_at = EXCLUDED.computed_at,
       available_at = EXCLUDED.available_at
     WHERE (signals.ticker, signals.engine_tier, signals.signal_score, signals.importance_score,
            signals.confidence_score, signals.risk_score, signals.rationale, signals.available_at)
       IS DISTINCT FROM (EXCLUDED.ticker, EXCLUDED.engine_tier, EXCLUDED.signal_score, EXCLUDED.importance_score,
            EXCLUDED.confidence_score, EXCLUDED.risk_score, EXCLUDED.rationale, EXCLUDED.available_at)
     RETURNING id, contract_id, engine_name, signal_score, (xmax = 0) AS inserted`,
    [stamp],
  );
}

/** A signal row in SIGNAL_STAGE's column order. */
function signalRecord(r: SignalWrite): unknown[] {
  return [
    r.id,
    r.contractId,
    r.ticker,
    r.engine.name,
    r.engine.version,
    r.engine.tier,
    r.scores.signal,
    r.scores.importance,
    r.scores.confidence,
    r.scores.risk,
    r.rationale,
  ];
}
