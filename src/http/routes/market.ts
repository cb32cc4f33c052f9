import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Queryable } from '../../store/db.ts';
import {
  type CandleListPage,
  type CandleRange,
  candlesJson,
  hasCandles,
  moreCandles,
} from '../../store/market.ts';
import { access, cached } from '../access.ts';
import { canonicalUrl, validatedQuery } from '../canonical.ts';
import { errors } from '../errors.ts';
import { sendJson } from '../json-body.ts';
import { sometimes } from '../openapi-headers.ts';
import { checkDateRange } from '../params.ts';
import { DateString, errorResponses, Limit, Query, TickerParam } from '../schemas/common.ts';
import { CandleList } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';

/** The most bars one answer holds, here and at /api/v1/benchmarks. */
export const MAX_CANDLES = 5000;

/** The candle list with its `Link` header, documented on the 200 (see http/openapi.ts). */
export const CandlePage = {
  ...CandleList,
  headers: {
    Link: sometimes(
      { type: 'string' },
      'Only when more bars lie in the range: `<URL>; rel="next"`, the same query continued (with `from`: `from` set to the day after the last bar; without it: `to` set to the day before the first).',
    ),
  },
} as typeof CandleList;

const candlesSchema = {
  tags: ['market'],
  summary: 'Daily OHLCV candles, ascending by date',
  description:
    'With `from`, the first `limit` bars from that date; without it, the latest `limit` bars up to `to`. SPY, XLI and ITA always exist; contractor tickers where candles were imported. ' +
    'A full page with more bars in the range carries a `Link: <…>; rel="next"` header: the URL of the next page.',
  params: Type.Object({ ticker: TickerParam }),
  querystring: Query({
    from: Type.Optional(DateString('First date (inclusive).')),
    to: Type.Optional(DateString('Last date (inclusive).')),
    limit: Limit(MAX_CANDLES, 500),
  }),
  response: { 200: CandlePage, ...errorResponses(400, 404) },
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
    const candles = await candlePage(request, reply, db, ticker, q);
    if (candles.count === 0 && !(await hasCandles(db, ticker))) throw errors.unknownTicker(ticker);
    return sendJson(reply, candles.json);
  };
}

const DAY_MS = 86_400_000;
const shiftDay = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * A page of `range`'s candles. A full page with more bars in the range gets a `Link: <…>; rel="next"`
 * header, the route's canonical URL with its validated query continued: never a silent truncation.
 */
export async function candlePage(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Queryable,
  ticker: string,
  range: CandleRange,
): Promise<CandleListPage> {
  const page = await candlesJson(db, ticker, range);
  const { first, last } = page;
  if (page.count < range.limit || first === null || last === null) return page;
  if (!(await moreCandles(db, ticker, range, { first, last }))) return page;
  const query = validatedQuery(request);
  if (range.from === undefined) query.to = shiftDay(first, -1);
  else query.from = shiftDay(last, 1);
  query.limit = range.limit;
  reply.header('link', `<${canonicalUrl(request, query)}>; rel="next"`);
  return page;
}
