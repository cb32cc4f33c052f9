import { Type } from 'typebox';
import { access, cached } from '../access.ts';
import { errors } from '../errors.ts';
import { sendJson } from '../json-body.ts';
import { checkDateRange } from '../params.ts';
import { DateString, errorResponses, Limit, Query } from '../schemas/common.ts';
import type { App, Handler, Services } from '../types.ts';
import { CandlePage, candlePage, MAX_CANDLES } from './market.ts';

export const BENCHMARKS = ['SPY', 'XLI', 'ITA'] as const;

const benchmarkSchema = {
  tags: ['market'],
  summary: 'Daily OHLCV of a benchmark (SPY, XLI or ITA)',
  description:
    'With `from`, the first `limit` bars from that date; without it, the latest `limit` bars up to `to`. ' +
    'A full page with more bars in the range carries a `Link: <…>; rel="next"` header: the URL of the next page.',
  querystring: Query({
    ticker: Type.String({ description: 'SPY, XLI or ITA (case-insensitive).' }),
    from: Type.Optional(DateString('First date (inclusive).')),
    to: Type.Optional(DateString('Last date (inclusive).')),
    limit: Limit(MAX_CANDLES, MAX_CANDLES),
  }),
  response: { 200: CandlePage, ...errorResponses(400) },
};

export function registerBenchmarks(app: App, services: Services): void {
  app.get(
    '/api/v1/benchmarks',
    { config: cached(access.read), schema: benchmarkSchema },
    showBenchmark(services),
  );
}

function showBenchmark({ db }: Services): Handler<typeof benchmarkSchema> {
  return async (request, reply) => {
    const q = request.query;
    const ticker = q.ticker.toUpperCase();
    if (!(BENCHMARKS as readonly string[]).includes(ticker)) {
      throw errors.invalidParameter('ticker', `must be one of ${BENCHMARKS.join(', ')}`);
    }
    checkDateRange(q.from, q.to);
    const candles = await candlePage(request, reply, db, ticker, q);
    return sendJson(reply, candles.json);
  };
}
