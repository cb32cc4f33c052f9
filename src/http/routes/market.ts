import { Type } from 'typebox';
import { candlesJson, hasCandles } from '../../store/market.ts';
import { access, cached } from '../access.ts';
import { errors } from '../errors.ts';
import { sendJson } from '../json-body.ts';
import { checkDateRange } from '../params.ts';
import { DateString, errorResponses, Limit, Query, TickerParam } from '../schemas/common.ts';
import { CandleList } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';

/** The most bars one answer holds, here and at /api/v1/benchmarks. */
export const MAX_CANDLES = 5000;

const candlesSchema = {
  tags: ['market'],
  summary: 'Daily OHLCV candles, ascending by date',
  description:
    'With `from`, the first `limit` bars from that date; without it, the latest `limit` bars up to `to`. SPY, XLI and ITA always exist; contractor tickers where candles were imported.',
  params: Type.Object({ ticker: TickerParam }),
  querystring: Query({
    from: Type.Optional(DateString('First date (inclusive).')),
    to: Type.Optional(DateString('Last date (inclusive).')),
    limit: Limit(MAX_CANDLES, 500),
  }),
  response: { 200: CandleList, ...errorResponses(400, 404) },
};

export function registerMarket(app: App, services: Services): void {
  app.get(
    '/api/v1/market/candles/:ticker',
    { config: cached(access.read), schema: candlesSchema },
    listCandles(services),
  );
}

function listCandles({ db }: Services): Handler<typeof candlesSchema> {
  return async (request, reply) => {
    const ticker = request.params.ticker.toUpperCase();
    const q = request.query;
    checkDateRange(q.from, q.to);
    const candles = await candlesJson(db, ticker, q);
    if (candles.count === 0 && !(await hasCandles(db, ticker))) throw errors.unknownTicker(ticker);
    return sendJson(reply, candles.json);
  };
}
