/** Reads what the event study needs from the store: one engine version's signals and the candles. */
import type { Queryable } from './db.ts';
import { candleSeries } from './market.ts';

export interface PricePoint {
  date: string; // YYYY-MM-DD, ascending
  adjClose: number;
}

export interface ScoredEvent {
  contractId: string;
  ticker: string;
  awardDate: string;
  score: number;
}

export async function signalVersions(
  db: Queryable,
  engine: string,
): Promise<{ version: string; signals: number }[]> {
  return db.query<{ version: string; signals: number }>(
    `SELECT engine_version AS version, count(*)::int AS signals FROM signals WHERE engine_name = $1
     GROUP BY engine_version ORDER BY engine_version`,
    [engine],
  );
}

/** Every contract scored by `engine` at `version`, oldest award first. */
export async function scoredEvents(db: Queryable, engine: string, version: string): Promise<ScoredEvent[]> {
  return db.query<ScoredEvent>(
    `SELECT s.contract_id AS "contractId", c.ticker, c.award_date AS "awardDate", s.signal_score AS score
     FROM signals s JOIN contracts c ON c.id = s.contract_id
     WHERE s.engine_name = $1 AND s.engine_version = $2 AND c.ticker IS NOT NULL
     ORDER BY c.award_date, s.contract_id`,
    [engine, version],
  );
}

/** Adjusted-close series of each ticker (empty when it has no candles). */
export async function priceSeries(
  db: Queryable,
  tickers: Iterable<string>,
): Promise<Map<string, PricePoint[]>> {
  const out = new Map<string, PricePoint[]>();
  for (const ticker of new Set(tickers)) {
    const candles = await candleSeries(db, ticker, '1900-01-01', '2999-12-31');
    out.set(
      ticker,
      candles.map((c) => ({ date: c.date, adjClose: c.adjClose })),
    );
  }
  return out;
}
