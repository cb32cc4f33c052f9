/**
 * Stored predictions (migration 021): written once per (event, model version), read back with the
 * abnormal return realized since, priced from the candles the API serves.
 */
import type { PredictionDto } from '../shapes/resources.ts';
import type { Queryable } from './db.ts';
import { KEYSETS, keysetRows, type Position, type RowPage } from './keyset.ts';
import { Where } from './where.ts';

export interface PredictionWrite {
  contractId: string;
  ticker: string;
  madeAt: string;
  day0: string;
  horizonDays: number;
  benchmark: string;
  expected: number;
  level: number;
  low: number;
  high: number;
}

export interface ModelKey {
  name: string;
  version: string;
}

/** Announcement events among `ids` with a ticker and no prediction of `model` yet. */
export async function unpredictedEvents(
  db: Queryable,
  ids: readonly string[],
  model: ModelKey,
): Promise<{ id: string; ticker: string; availableAt: string }[]> {
  if (ids.length === 0) return [];
  return db.query(
    `SELECT c.id, c.ticker, c.available_at AS "availableAt" FROM contracts c
     WHERE c.id = ANY($1::text[]) AND c.ticker IS NOT NULL AND c.source = 'announcement'
       AND NOT EXISTS (SELECT 1 FROM predictions p WHERE p.contract_id = c.id AND p.model_name = $2 AND p.model_version = $3)
     ORDER BY c.id`,
    [ids, model.name, model.version],
  );
}

/**
 * Announcement events with a ticker that has candles and no prediction of `model`: what a start after
 * an upgrade (or a model version bump) predicts.
 */
export async function unpredictedEventIds(db: Queryable, model: ModelKey): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT c.id FROM contracts c
     WHERE c.source = 'announcement' AND c.ticker IS NOT NULL
       AND EXISTS (SELECT 1 FROM candles k WHERE k.ticker = c.ticker)
       AND NOT EXISTS (SELECT 1 FROM predictions p WHERE p.contract_id = c.id AND p.model_name = $1 AND p.model_version = $2)
     ORDER BY c.id`,
    [model.name, model.version],
  );
  return rows.map((r) => r.id);
}

/** Writes predictions; one already stored for (event, model, version) is kept as it was. Returns rows added. */
export async function insertPredictions(
  db: Queryable,
  model: ModelKey,
  rows: readonly PredictionWrite[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const added = await db.query(
    `INSERT INTO predictions (contract_id, model_name, model_version, ticker, made_at, day0, horizon_days, benchmark,
       expected, level, low, high)
     SELECT r."contractId", $2, $3, r.ticker, r."madeAt", r.day0, r."horizonDays", r.benchmark, r.expected, r.level,
       r.low, r.high
     FROM jsonb_to_recordset($1::jsonb) AS r("contractId" text, ticker text, "madeAt" timestamptz, day0 date,
       "horizonDays" int, benchmark text, expected float8, level float8, low float8, high float8)
     ON CONFLICT DO NOTHING RETURNING 1`,
    [JSON.stringify(rows), model.name, model.version],
  );
  return added.length;
}

/**
 * The realized abnormal return of prediction `p`: the ticker's adjusted-close ratio from day0 to the
 * horizon's trading day (the benchmark's calendar) minus the benchmark's; null while any close is missing.
 */
const REALIZED = `LEFT JOIN LATERAL (
    SELECT t1.adj_close / t0.adj_close - b1.adj_close / b0.adj_close AS realized
    FROM (SELECT date, adj_close FROM candles WHERE ticker = p.benchmark AND date > p.day0
          ORDER BY date OFFSET p.horizon_days - 1 LIMIT 1) b1
    JOIN candles b0 ON b0.ticker = p.benchmark AND b0.date = p.day0
    JOIN candles t0 ON t0.ticker = p.ticker AND t0.date = p.day0
    JOIN candles t1 ON t1.ticker = p.ticker AND t1.date = b1.date
    WHERE t0.adj_close > 0 AND b0.adj_close > 0
  ) r ON true`;

export interface PredictionFilter {
  model: ModelKey;
  ticker?: string;
  contractId?: string;
  from?: string;
  to?: string;
  limit: number;
  after?: Position;
}

interface PredictionRow {
  contract_id: string;
  ticker: string;
  made_at: string;
  day0: string;
  horizon_days: number;
  benchmark: string;
  expected: number;
  level: number;
  low: number;
  high: number;
  model_name: string;
  model_version: string;
  realized: number | null;
}

/** One page of a model's predictions, newest first; `from`/`to` bound made_at's UTC date. */
export async function predictionsPage(
  db: Queryable,
  filter: PredictionFilter,
): Promise<RowPage<PredictionDto>> {
  const where = new Where()
    .add((p) => `p.model_name = ${p}`, filter.model.name)
    .add((p) => `p.model_version = ${p}`, filter.model.version)
    .add((p) => `p.ticker = ${p}`, filter.ticker)
    .add((p) => `p.contract_id = ${p}`, filter.contractId)
    .add((p) => `p.made_at >= (${p}::date)::timestamp AT TIME ZONE 'UTC'`, filter.from)
    .add((p) => `p.made_at < (${p}::date + 1)::timestamp AT TIME ZONE 'UTC'`, filter.to);
  const page = await keysetRows<PredictionRow>(
    db,
    KEYSETS.predictions,
    {
      columns: `p.contract_id, p.ticker, p.made_at, p.day0, p.horizon_days, p.benchmark, p.expected, p.level,
        p.low, p.high, p.model_name, p.model_version, r.realized`,
      from: `predictions p ${REALIZED}`,
      where,
    },
    { limit: filter.limit, offset: 0, after: filter.after },
  );
  return { rows: page.rows.map(toPrediction), next: page.next };
}

/** The stored predictions of `model` for the events among `ids` (with their outcomes so far). */
export async function predictionsOf(
  db: Queryable,
  ids: readonly string[],
  model: ModelKey,
): Promise<Map<string, PredictionDto>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<PredictionRow>(
    `SELECT p.contract_id, p.ticker, p.made_at, p.day0, p.horizon_days, p.benchmark, p.expected, p.level, p.low,
       p.high, p.model_name, p.model_version, r.realized
     FROM predictions p ${REALIZED}
     WHERE p.contract_id = ANY($1::text[]) AND p.model_name = $2 AND p.model_version = $3`,
    [ids, model.name, model.version],
  );
  return new Map(rows.map((r) => [r.contract_id, toPrediction(r)]));
}

export function toPrediction(r: PredictionRow): PredictionDto {
  return {
    contract_id: r.contract_id,
    ticker: r.ticker,
    made_at: r.made_at,
    day0: r.day0,
    horizon_days: r.horizon_days,
    benchmark: r.benchmark,
    expected_abnormal_return: r.expected,
    interval: { level: r.level, low: r.low, high: r.high },
    model: { name: r.model_name, version: r.model_version },
    realized_abnormal_return: r.realized,
  };
}

/** What a model's stored predictions with a passed horizon show, made on or after `from` (out of sample). */
export interface Calibration {
  n: number;
  coverage: number | null;
  mean_width: number | null;
  /** The fit period's unconditional interval (one for every event) over the same predictions. */
  unconditional: { low: number; high: number; width: number; coverage: number | null };
  /** Spread of the realized values themselves between the level's quantiles: the sharpest constant interval in hindsight. */
  realized_spread: number | null;
  /** Squared error of the centre against realized, relative to a zero forecast's: 1 − SSE/SSE₀. */
  skill_vs_zero: number | null;
}

export async function calibration(
  db: Queryable,
  model: ModelKey & { level: number; unconditional: { low: number; high: number } },
  from: string,
): Promise<Calibration> {
  const { low, high } = model.unconditional;
  const rows = await db.query<{
    n: number;
    inside: number;
    inside_u: number;
    width: number | null;
    spread: number | null;
    sse: number;
    sse0: number;
  }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE r.realized BETWEEN p.low AND p.high)::int AS inside,
       count(*) FILTER (WHERE r.realized BETWEEN $4 AND $5)::int AS inside_u,
       avg(p.high - p.low) AS width,
       percentile_cont((1 + $6::float8) / 2) WITHIN GROUP (ORDER BY r.realized)
         - percentile_cont((1 - $6::float8) / 2) WITHIN GROUP (ORDER BY r.realized) AS spread,
       coalesce(sum((r.realized - p.expected) ^ 2), 0) AS sse, coalesce(sum(r.realized ^ 2), 0) AS sse0
     FROM predictions p ${REALIZED}
     WHERE p.model_name = $1 AND p.model_version = $2 AND p.made_at >= $3::date AND r.realized IS NOT NULL`,
    [model.name, model.version, from, low, high, model.level],
  );
  const row = rows[0];
  const n = row?.n ?? 0;
  const share = (k: number | undefined) => (n > 0 ? (k ?? 0) / n : null);
  return {
    n,
    coverage: share(row?.inside),
    mean_width: n > 0 ? (row?.width ?? null) : null,
    unconditional: { low, high, width: high - low, coverage: share(row?.inside_u) },
    realized_spread: n > 0 ? (row?.spread ?? null) : null,
    skill_vs_zero: row && n > 0 && row.sse0 > 0 ? 1 - row.sse / row.sse0 : null,
  };
}
