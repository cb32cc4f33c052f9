import { Type } from 'typebox';
import { ENGINES } from '../../domain/engines/index.ts';
import { access } from '../access.ts';
import { ErrorEnvelope, errorResponses, Query } from '../schemas/common.ts';
import { Health } from '../schemas/resources.ts';
import type { App, Services } from '../types.ts';

export function registerMeta(app: App, { db, now }: Services): void {
  app.get(
    '/api/v1/health',
    {
      config: access.public,
      schema: {
        tags: ['meta'],
        summary: 'Service health',
        description:
          'Database connectivity and registered engine versions. No key required. 503 when not ok, or ' +
          'as an error envelope when rate limiting is unavailable.',
        querystring: Query({}),
        response: {
          200: Health,
          503: Type.Union([Health, ErrorEnvelope], { description: 'Not ok, or rate limiting unavailable' }),
          ...errorResponses(400),
        },
      },
    },
    async (_request, reply) => {
      const dbOk = await db.query('SELECT 1').then(
        () => true,
        () => false,
      );
      const engines = ENGINES.map(({ name, version, tier }) => ({ name, version, tier }));
      return reply
        .code(dbOk ? 200 : 503)
        .send({ ok: dbOk, db: { ok: dbOk }, engines, now: now().toISOString() });
    },
  );

  app.get(
    '/api/v1/openapi.json',
    {
      config: access.public,
      schema: {
        tags: ['meta'],
        summary: 'OpenAPI 3.1 description of this API',
        description: 'No key required.',
        querystring: Query({}),
        response: { 200: Type.Unknown({ description: 'The OpenAPI 3.1 document.' }) },
      },
    },
    async () => app.swagger(),
  );
}
