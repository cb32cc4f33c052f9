import { Type } from 'typebox';
import { currentPredictions, modelBlock } from '../../services/predictions.ts';
import { KEYSETS } from '../../store/keyset.ts';
import { access, cached } from '../access.ts';
import { pageStart, rowsBody } from '../paging.ts';
import { checkDateRange, upper } from '../params.ts';
import { Cursor, DateString, errorResponses, Limit, Query, Text, TickerParam } from '../schemas/common.ts';
import { Predictions } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';

const listSchema = {
  tags: ['predictions'],
  summary: 'Stored point-in-time predictions of announcement events, newest first, with their outcomes',
  description:
    'Each announcement event with a priced ticker gets one prediction per model version, made at its `available_at` from closes at or before it and never recomputed: the abnormal return over the next `horizon_days` trading days against `benchmark`, a centre and an interval. `realized_abnormal_return` is filled in from the served adjusted closes once the horizon has passed. The `model` block states the fit period and how the stored predictions made out of sample have done.',
  querystring: Query({
    ticker: Type.Optional(TickerParam),
    contract_id: Type.Optional(Text({ maxLength: 200, description: 'One event.' })),
    from: Type.Optional(DateString('made_at on or after this date (UTC).')),
    to: Type.Optional(DateString('made_at on or before this date (UTC).')),
    limit: Limit(200, 50),
    cursor: Type.Optional(Cursor),
  }),
  response: { 200: Predictions, ...errorResponses(400) },
};

const NOTE =
  'The centre is 0: no rule here predicts the direction of the move (docs/EVALUATION.md). The interval is the forecast: ' +
  "scaled by the ticker's recent volatility against the benchmark, its quantiles fixed on the fit period. " +
  'Realized values are null until the horizon has passed.';

export function registerPredictions(app: App, services: Services): void {
  app.get(
    '/api/v1/predictions',
    { config: cached(access.intelligence), schema: listSchema },
    listPredictions(services),
  );
}

function listPredictions({ db }: Services): Handler<typeof listSchema> {
  return async (request, reply) => {
    const q = request.query;
    checkDateRange(q.from, q.to);
    const [page, model] = await Promise.all([
      currentPredictions(db, {
        ticker: upper(q.ticker),
        contractId: q.contract_id,
        from: q.from,
        to: q.to,
        limit: q.limit,
        after: pageStart(request, KEYSETS.predictions),
      }),
      modelBlock(db),
    ]);
    return { ...rowsBody(request, reply, KEYSETS.predictions, page), model, note: NOTE };
  };
}
