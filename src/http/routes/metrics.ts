import { Type } from 'typebox';
import { access } from '../access.ts';
import { errorResponses, Query } from '../schemas/common.ts';
import type { App, Services } from '../types.ts';

const metricsSchema = {
  tags: ['admin'],
  summary: 'Prometheus metrics for operators (admin key: `x-api-key` or `Authorization: Bearer`)',
  description:
    'The exposition text format, for the whole instance (in `serve --workers N`, every HTTP worker merged: counters and histograms summed, gauges as each one says): requests and their durations by method, ' +
    'route template and status; rate-limit refusals by limit; 503s by cause; the rate limiter store and ' +
    'its local decisions while Redis is away; key and response cache lookups; the connection pool; ' +
    'database reachability; the webhook outbox (oldest due delivery no worker sends, deliveries due, ' +
    "webhooks by status) and attempts by outcome; ingest counts and the scheduled ingest's last " +
    'progress; and process metrics.',
  querystring: Query({}),
  response: {
    200: {
      description: 'Prometheus text exposition format 0.0.4',
      content: { 'text/plain': { schema: Type.String() } },
    },
    ...errorResponses(400, 503),
  },
};

export function registerMetrics(app: App, { metrics }: Services): void {
  app.get('/metrics', { config: access.admin, schema: metricsSchema }, async (_request, reply) => {
    const { contentType, body } = await metrics.text();
    return reply.type(contentType).send(body);
  });
}
