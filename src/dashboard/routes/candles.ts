import { Type } from 'typebox';
import { access } from '../../http/access.ts';
import { errors } from '../../http/errors.ts';
import { sendJson } from '../../http/json-body.ts';
import { checkDateRange } from '../../http/params.ts';
import { DateString, Limit, Query, TickerParam } from '../../http/schemas/common.ts';
import type { App, Handler, Services } from '../../http/types.ts';
import { candlesJson, hasCandles } from '../../store/market.ts';
import { requireSessionTier } from '../plan-tier.ts';

/**
 * A chart zooms over a company's whole history without a round trip, so one answer holds every bar
 * shipped (SPY's, the longest, are about 8,500); /api/v1/market/candles pages by 5,000 instead.
 */
const MAX_BARS = 20_000;

const candlesSchema = {
  params: Type.Object({ ticker: TickerParam }),
  querystring: Query({
    from: Type.Optional(DateString('First date (inclusive).')),
    to: Type.Optional(DateString('Last date (inclusive).')),
    limit: Limit(MAX_BARS, MAX_BARS),
  }),
};

/** Daily candles of a company or benchmark, ascending, as /api/v1/market/candles/{ticker} writes them. */
export function registerCandles(app: App, services: Services): void {
  app.get(
    '/dashboard/api/candles/:ticker',
    { config: access.user, schema: candlesSchema },
    listCandles(services),
  );
}

function listCandles({ db }: Services): Handler<typeof candlesSchema> {
  return async (request, reply) => {
    requireSessionTier(request, 'developer', 'candles');
    const ticker = request.params.ticker.toUpperCase();
    const { from, to, limit } = request.query;
    checkDateRange(from, to);
    const page = await candlesJson(db, ticker, { from, to, limit });
    if (page.count === 0 && !(await hasCandles(db, ticker))) throw errors.unknownTicker(ticker);
    return sendJson(reply, page.json);
  };
}
