import { access, cached } from '../access.ts';
import { errorResponses, Query } from '../schemas/common.ts';
import { Predictions } from '../schemas/resources.ts';
import type { App } from '../types.ts';

const listSchema = {
  tags: ['predictions'],
  summary: 'Forward predictions (empty until the prediction engine ships)',
  querystring: Query({}),
  response: { 200: Predictions, ...errorResponses(400) },
};

export function registerPredictions(app: App): void {
  app.get('/api/v1/predictions', { config: cached(access.intelligence), schema: listSchema }, async () => ({
    data: [],
    note: 'The prediction engine is announced for a later phase; this endpoint returns an empty set until then.',
  }));
}
