import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { CLASSIFICATION_LABELS } from '../../domain/types.ts';
import { CONTRACT_SOURCES } from '../../shapes/resources.ts';
import { eventsJson } from '../../store/events.ts';
import { KEYSETS } from '../../store/keyset.ts';
import { access, cached } from '../access.ts';
import { pageJson, sendJson } from '../json-body.ts';
import { pageStart, pagination } from '../paging.ts';
import { checkDateRange, pickEngine, upper } from '../params.ts';
import { showsField } from '../reader-tier.ts';
import {
  Cursor,
  DateString,
  EngineParam,
  errorResponses,
  Limit,
  Offset,
  Query,
  StringEnum,
  Text,
  TickerParam,
} from '../schemas/common.ts';
import { EventList } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';

export const EventQuery = Query({
  engine: Type.Optional(EngineParam),
  ticker: Type.Optional(TickerParam),
  agency: Type.Optional(
    Text({ maxLength: 200, description: 'Awarding agency, exact name, case-insensitive.' }),
  ),
  classification: Type.Optional(
    StringEnum(CLASSIFICATION_LABELS, { description: 'nlp_classification label.' }),
  ),
  from: Type.Optional(DateString('Award date on or after.')),
  to: Type.Optional(DateString('Award date on or before.')),
  source: Type.Optional(StringEnum(CONTRACT_SOURCES, { description: 'Only events of this source.' })),
  available_from: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'available_at on or after (ISO 8601): what was public by then.',
    }),
  ),
  available_to: Type.Optional(
    Type.String({ format: 'date-time', description: 'available_at on or before (ISO 8601).' }),
  ),
  limit: Limit(200, 50),
  offset: Offset,
  cursor: Type.Optional(Cursor),
});

const listSchema = {
  tags: ['events'],
  summary: 'Contract events, newest award first, each with its latest signal',
  querystring: EventQuery,
  response: { 200: EventList, ...errorResponses(400) },
};

export function registerEvents(app: App, services: Services): void {
  app.get('/api/v1/events', { config: cached(access.read), schema: listSchema }, listEvents(services));
}

/** Also the handler of /api/v1/contracts, the list's older name. */
/** The events filter of a validated query (the list's and the export's), for the caller's engine and tier. */
export function eventFilter(
  request: FastifyRequest,
  q: Omit<Static<typeof EventQuery>, 'limit' | 'offset' | 'cursor'>,
) {
  checkDateRange(q.from, q.to);
  return {
    engine: pickEngine(request, q.engine).name,
    withRationale: showsField(request, 'signal', 'rationale'),
    ticker: upper(q.ticker),
    agency: q.agency,
    classification: q.classification,
    from: q.from,
    to: q.to,
    source: q.source,
    availableFrom: q.available_from,
    availableTo: q.available_to,
  };
}

export function listEvents({ db }: Services): Handler<typeof listSchema> {
  return async (request, reply) => {
    const q = request.query;
    const list = await eventsJson(db, {
      ...eventFilter(request, q),
      limit: q.limit,
      offset: q.offset,
      after: pageStart(request, KEYSETS.events),
    });
    return sendJson(reply, pageJson(list, pagination(request, reply, KEYSETS.events, list)));
  };
}
