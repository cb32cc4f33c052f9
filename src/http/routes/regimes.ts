import { Type } from 'typebox';
import { REGIME_NAMES } from '../../domain/types.ts';
import { KEYSETS } from '../../store/keyset.ts';
import { regimesJson } from '../../store/market.ts';
import { access, cached } from '../access.ts';
import { pageJson, sendJson } from '../json-body.ts';
import { pageStart, pagination } from '../paging.ts';
import { Cursor, errorResponses, Limit, Query, StringEnum, Text } from '../schemas/common.ts';
import { RegimeList } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';

const listSchema = {
  tags: ['regimes'],
  summary: 'Market regime at each contract award date (no look-ahead), newest first',
  querystring: Query({
    contract_id: Type.Optional(Text({ maxLength: 200, description: 'One contract.' })),
    dominant: Type.Optional(StringEnum(REGIME_NAMES, { description: 'Dominant regime.' })),
    limit: Limit(200, 50),
    cursor: Type.Optional(Cursor),
  }),
  response: { 200: RegimeList, ...errorResponses(400) },
};

export function registerRegimes(app: App, services: Services): void {
  app.get(
    '/api/v1/regimes',
    { config: cached(access.intelligence), schema: listSchema },
    listRegimes(services),
  );
}

function listRegimes({ db }: Services): Handler<typeof listSchema> {
  return async (request, reply) => {
    const q = request.query;
    const list = await regimesJson(db, {
      contractId: q.contract_id,
      dominant: q.dominant,
      limit: q.limit,
      after: pageStart(request, KEYSETS.regimes),
    });
    return sendJson(reply, pageJson(list, pagination(request, reply, KEYSETS.regimes, list)));
  };
}
