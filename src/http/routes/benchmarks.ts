import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { access, cached } from '../access.ts';
import { sendJson } from '../json-body.ts';
import { checkDateRange } from '../params.ts';
import { DateString, errorResponses, Limit, Query, StringEnum } from '../schemas/common.ts';
import type { App, Handler, Services } from '../types.ts';
import { CandlePage, candlePage, MAX_CANDLES } from './market.ts';

export const BENCHMARKS = ['SPY', 'XLI', 'ITA'] as const;

/** `^(?:[Ss][Pp][Yy]|…)$`: a name in any case (JSON Schema patterns have no case-insensitive flag). */
const anyCase = (names: readonly string[]) =>
  `^(?:${names.map((name) => [...name].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join('')).join('|')})$`;

/**
 * Case is not significant, as for the ticker paths: the document lists the names (the enum) and says
 * any case is accepted (the pattern), which is exactly what the server takes. The enum comes first, so
 * a wrong value is told the names.
 */
export const BenchmarkParam = Type.Union(
  [StringEnum(BENCHMARKS), Type.String({ pattern: anyCase(BENCHMARKS) })],
  {
    description: 'The benchmark: SPY, XLI or ITA, in any case (`spy` is read as `SPY`).',
    examples: ['SPY'],
  },
);

const benchmarkSchema = {
  tags: ['market'],
  summary: 'Daily OHLCV of a benchmark (SPY, XLI or ITA)',
  description:
    'With `from`, the first `limit` bars from that date; without it, the latest `limit` bars up to `to`. ' +
    'A full page with more bars in the range carries a `Link: <…>; rel="next"` header: the URL of the next page.',
  querystring: Query({
    ticker: BenchmarkParam,
    from: Type.Optional(DateString('First date (inclusive).')),
    to: Type.Optional(DateString('Last date (inclusive).')),
    limit: Limit(MAX_CANDLES, MAX_CANDLES),
  }),
  response: { 200: CandlePage, ...errorResponses(400) },
};

export function registerBenchmarks(app: App, services: Services): void {
  app.get(
    '/api/v1/benchmarks',
    { config: cached(access.read), schema: benchmarkSchema, preValidation: upperTicker },
    showBenchmark(services),
  );
}

/** Case is not significant: the ticker is upper-cased before validation, so the enum is the one spelling. */
function upperTicker(request: FastifyRequest, _reply: unknown, done: () => void): void {
  const query = request.query as { ticker?: unknown };
  if (typeof query.ticker === 'string') query.ticker = query.ticker.toUpperCase();
  done();
}

function showBenchmark({ db }: Services): Handler<typeof benchmarkSchema> {
  return async (request, reply) => {
    const q = request.query;
    checkDateRange(q.from, q.to);
    const candles = await candlePage(request, reply, db, q.ticker, q);
    return sendJson(reply, candles.json);
  };
}
