import { Type } from 'typebox';
import { candlesJson } from '../../store/market.ts';
import { access, cached } from '../access.ts';
import { errors } from '../errors.ts';
import { sendJson } from '../json-body.ts';
import { checkDateRange } from '../params.ts';
import { DateString, errorResponses, Query } from '../schemas/common.ts';
import { CandleList } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';
import { MAX_CANDLES } from './market.ts';

export const BENCHMARKS = ['SPY', 'XLI', 'ITA'] as const;

const benchmarkSchema = {
  tags: ['market'],
  summary: 'Daily OHLCV of a benchmark (SPY, XLI or ITA)',
  querystring: Query({
    ticker: Type.String({ description: 'SPY, XLI or ITA (case-insensitive).' }),
    from: Type.Optional(DateString('First date (inclusive).')),
    to: Type.Optional(DateString('Last date (inclusive).')),
  }),
  response: { 200: CandleList, ...errorResponses(400) },
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
    const candles = await candlesJson(db, ticker, { from: q.from, to: q.to, limit: MAX_CANDLES });
    return sendJson(reply, candles.json);
  };
}
