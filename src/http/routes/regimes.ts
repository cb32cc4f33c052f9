import { Type } from 'typebox';
import { REGIME_NAMES } from '../../domain/types.ts';
import { regimesJson } from '../../store/market.ts';
import { access, cached } from '../access.ts';
import { pageJson, sendJson } from '../json-body.ts';
import { errorResponses, Limit, Query, StringEnum, Text } from '../schemas/common.ts';
import { Predictions, RegimeList } from '../schemas/resources.ts';
import type { App, Services } from '../types.ts';

export function registerRegimes(app: App, { db }: Services): void {
  app.get(
    '/api/v1/regimes',
    {
      config: cached(access.intelligence),
      schema: {
        tags: ['regimes'],
        summary: 'Market regime at each contract award date (no look-ahead), newest first',
        querystring: Query({
          contract_id: Type.Optional(Text({ maxLength: 200, description: 'One contract.' })),
          dominant: Type.Optional(StringEnum(REGIME_NAMES, { description: 'Dominant regime.' })),
          limit: Limit(200, 50),
        }),
        response: { 200: RegimeList, ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const list = await regimesJson(db, { contractId: q.contract_id, dominant: q.dominant, limit: q.limit });
      return sendJson(reply, pageJson(list, q.limit, 0));
    },
  );

  app.get(
    '/api/v1/predictions',
    {
      config: cached(access.intelligence),
      schema: {
        tags: ['predictions'],
        summary: 'Forward predictions (empty until the prediction engine ships)',
        querystring: Query({}),
        response: { 200: Predictions, ...errorResponses(400) },
      },
    },
    async () => ({
      data: [],
      note: 'The prediction engine is announced for a later phase; this endpoint returns an empty set until then.',
    }),
  );
}
