import { Type } from 'typebox';
import { access } from '../access.ts';
import { Query } from '../schemas/common.ts';
import type { App } from '../types.ts';

const documentSchema = {
  tags: ['meta'],
  summary: 'OpenAPI 3.1 description of this API',
  description: 'No key required.',
  querystring: Query({}),
  response: { 200: Type.Unknown({ description: 'The OpenAPI 3.1 document.' }) },
};

export function registerOpenApi(app: App): void {
  app.get('/api/v1/openapi.json', { config: access.public, schema: documentSchema }, async () =>
    app.swagger(),
  );
}
