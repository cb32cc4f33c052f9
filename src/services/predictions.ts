/** The prediction engine's served view: a page of stored predictions and the model block (its track record). */
import { PREDICTION_MODEL } from '../domain/prediction.ts';
import type { PredictionDto } from '../shapes/resources.ts';
import type { Queryable } from '../store/db.ts';
import type { Position } from '../store/keyset.ts';
import { calibration, predictionsPage } from '../store/predictions.ts';

const M = PREDICTION_MODEL;

/** The `model` block of GET /api/v1/predictions: how the model was fixed and how it has done since. */
export async function modelBlock(db: Queryable) {
  return {
    name: M.name,
    version: M.version,
    benchmark: M.benchmark,
    horizon_days: M.horizonDays,
    level: M.level,
    fit_period: M.fit,
    out_of_sample: { from: M.test.from, ...(await calibration(db, M, M.test.from)) },
  };
}

export interface PredictionQuery {
  ticker?: string;
  contractId?: string;
  from?: string;
  to?: string;
  limit: number;
  after?: Position;
}

/** A page of the current model's predictions, newest first. */
export const currentPredictions = (db: Queryable, query: PredictionQuery) =>
  predictionsPage(db, { model: M, ...query });

/** The newest `limit` predictions (oldest first, as a chart reads them) and the model block. */
export async function predictionTrack(
  db: Queryable,
  limit: number,
): Promise<{ data: PredictionDto[]; model: Awaited<ReturnType<typeof modelBlock>> }> {
  const [page, model] = await Promise.all([currentPredictions(db, { limit }), modelBlock(db)]);
  return { data: page.rows.reverse(), model };
}
