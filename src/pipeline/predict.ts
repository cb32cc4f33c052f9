/**
 * The prediction engine in the pipeline: every announcement event with a priced ticker gets one
 * prediction per model version, made at its `available_at` from the closes at or before that moment
 * (src/domain/prediction.ts), stored once and never recomputed. An event whose day 0 the benchmark's
 * candles do not reach yet is left for a later run (ingests and seeds call this for every event they
 * touch, so it is made when the candles arrive); one whose ticker has no candles is never predicted.
 */
import { PREDICTION_MODEL, type PricePoint, predict } from '../domain/prediction.ts';
import { addDays } from '../domain/trailing.ts';
import type { Queryable } from '../store/db.ts';
import { candleSeries } from '../store/market.ts';
import {
  insertPredictions,
  type PredictionWrite,
  unpredictedEventIds,
  unpredictedEvents,
} from '../store/predictions.ts';

const M = PREDICTION_MODEL;
/** Calendar days of closes read before the earliest event: the long window with room for holidays and gaps. */
const LOOKBACK_DAYS = Math.ceil((M.long * 7) / 5) + 30;

async function closes(db: Queryable, ticker: string, from: string, to: string): Promise<PricePoint[]> {
  const candles = await candleSeries(db, ticker, from, to);
  return candles.map((c) => ({ date: c.date, adjClose: c.adjClose }));
}

/** Predicts the events among `ids` that have none under the current model; returns how many were stored. */
export async function predictEvents(db: Queryable, ids: readonly string[]): Promise<number> {
  const events = await unpredictedEvents(db, ids, M);
  if (events.length === 0) return 0;
  const dates = events.map((e) => e.availableAt.slice(0, 10)).sort();
  const from = addDays(dates[0] ?? '', -LOOKBACK_DAYS);
  const to = addDays(dates[dates.length - 1] ?? '', 1);
  // Closes up to the day after the last event: day 0 is chosen by the moment, never a later close.
  const calendar = await closes(db, M.benchmark, from, to);
  const series = new Map<string, PricePoint[]>();
  const rows: PredictionWrite[] = [];
  for (const event of events) {
    let points = series.get(event.ticker);
    if (!points) {
      points = await closes(db, event.ticker, from, to);
      series.set(event.ticker, points);
    }
    const p = predict(points, calendar, new Date(event.availableAt));
    if (!p.ok) continue;
    rows.push({
      contractId: event.id,
      ticker: event.ticker,
      madeAt: event.availableAt,
      day0: p.day0,
      horizonDays: M.horizonDays,
      benchmark: M.benchmark,
      expected: p.expected,
      level: M.level,
      low: p.low,
      high: p.high,
    });
  }
  return insertPredictions(db, M, rows);
}

/** Events per predictEvents call when catching up: a year of pages' closes fit in memory with room. */
const CATCH_UP_CHUNK = 5000;

/**
 * Predicts every stored announcement event the current model has not predicted (a database from before
 * the prediction engine, or a new model version). Each is still made at its own `available_at` from
 * the closes before it: when it is computed does not change what it reads. Returns how many were stored.
 */
export async function predictMissing(db: Queryable): Promise<number> {
  const ids = await unpredictedEventIds(db, M);
  let stored = 0;
  for (let i = 0; i < ids.length; i += CATCH_UP_CHUNK) {
    stored += await predictEvents(db, ids.slice(i, i + CATCH_UP_CHUNK));
  }
  return stored;
}
