import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { KEYSETS } from '../../store/keyset.ts';
import { signalsJson } from '../../store/signals.ts';
import { access, cached } from '../access.ts';
import { pageJson, sendJson } from '../json-body.ts';
import { pageStart, pagination } from '../paging.ts';
import { pickEngine, upper } from '../params.ts';
import { showsField } from '../reader-tier.ts';
import { Cursor, EngineParam, errorResponses, Limit, Offset, Query, TickerParam } from '../schemas/common.ts';
import { SignalList } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';

export const SignalQuery = Query({
  engine: Type.Optional(EngineParam),
  min_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Minimum signal_score.' })),
  ticker: Type.Optional(TickerParam),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'Lower bound on computed_at (ISO 8601).' }),
  ),
  available_from: Type.Optional(
    Type.String({
      format: 'date-time',
      description: "The contract's available_at on or after (ISO 8601): when its news was public.",
    }),
  ),
  available_to: Type.Optional(
    Type.String({ format: 'date-time', description: "The contract's available_at on or before (ISO 8601)." }),
  ),
  limit: Limit(200, 50),
  offset: Offset,
  cursor: Type.Optional(Cursor),
});

const listSchema = {
  tags: ['signals'],
  summary: "Signals of an engine's current version ranked by signal_score, each with its contract",
  querystring: SignalQuery,
  response: { 200: SignalList, ...errorResponses(400) },
};

export function registerSignals(app: App, services: Services): void {
  app.get('/api/v1/signals', { config: cached(access.read), schema: listSchema }, listSignals(services));
}

/** The signals filter of a validated query (the list's and the export's), for the caller's engine and tier. */
export function signalFilter(
  request: FastifyRequest,
  q: Omit<Static<typeof SignalQuery>, 'limit' | 'offset' | 'cursor'>,
) {
  const engine = pickEngine(request, q.engine);
  return {
    engine: engine.name,
    engineVersion: engine.version,
    withRationale: showsField(request, 'signal', 'rationale'),
    minScore: q.min_score,
    ticker: upper(q.ticker),
    since: q.since,
    availableFrom: q.available_from,
    availableTo: q.available_to,
  };
}

function listSignals({ db }: Services): Handler<typeof listSchema> {
  return async (request, reply) => {
    const q = request.query;
    const list = await signalsJson(db, {
      ...signalFilter(request, q),
      limit: q.limit,
      offset: q.offset,
      after: pageStart(request, KEYSETS.signals),
    });
    return sendJson(reply, pageJson(list, pagination(request, reply, KEYSETS.signals, list)));
  };
}
