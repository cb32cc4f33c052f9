import { Type } from 'typebox';
import { candlesJson, hasCandles } from '../../store/market.ts';
import { access, cached } from '../access.ts';
import { errors } from '../errors.ts';
import { sendJson } from '../json-body.ts';
import { checkDateRange } from '../params.ts';
import { DateString, errorResponses, Limit, Query, TickerParam } from '../schemas/common.ts';
import { CandleList } from '../schemas/resources.ts';
import type { App, Services } from '../types.ts';

export const BENCHMARKS = ['SPY', 'XLI', 'ITA'] as const;
const MAX_CANDLES = 5000;

export function registerMarket(app: App, { db }: Services): void {
  app.get(
    '/api/v1/market/candles/:ticker',
    {
      config: cached(access.read),
      schema: {
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
      },
    },
    async (request, reply) => {
      const ticker = request.params.ticker.toUpperCase();
      const q = request.query;
      checkDateRange(q.from, q.to);
      const candles = await candlesJson(db, ticker, q);
      if (candles.count === 0 && !(await hasCandles(db, ticker))) throw errors.unknownTicker(ticker);
      return sendJson(reply, candles.json);
    },
  );

  app.get(
    '/api/v1/benchmarks',
    {
      config: cached(access.read),
      schema: {
        tags: ['market'],
        summary: 'Daily OHLCV of a benchmark (SPY, XLI or ITA)',
        querystring: Query({
          ticker: Type.String({ description: 'SPY, XLI or ITA (case-insensitive).' }),
          from: Type.Optional(DateString('First date (inclusive).')),
          to: Type.Optional(DateString('Last date (inclusive).')),
        }),
        response: { 200: CandleList, ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const ticker = q.ticker.toUpperCase();
      if (!(BENCHMARKS as readonly string[]).includes(ticker)) {
        throw errors.invalidParameter('ticker', `must be one of ${BENCHMARKS.join(', ')}`);
      }
      checkDateRange(q.from, q.to);
      const candles = await candlesJson(db, ticker, { from: q.from, to: q.to, limit: MAX_CANDLES });
      return sendJson(reply, candles.json);
    },
  );
}
