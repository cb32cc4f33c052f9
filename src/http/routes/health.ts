import { Type } from 'typebox';
import { checkHealth } from '../../services/health.ts';
import { access } from '../access.ts';
import { ErrorEnvelope, errorResponses, Query } from '../schemas/common.ts';
import { Health, Liveness } from '../schemas/resources.ts';
import type { App, Services } from '../types.ts';

const healthSchema = {
  tags: ['meta'],
  summary: 'Service health (readiness)',
  description:
    'Whether this instance can serve: the database answers within 800 ms, the rate limiter ' +
    'store answers (with Redis unreachable the API still serves, each process enforcing the ' +
    'limits alone, and this reports 503 naming `limiter`), and no due webhook delivery has ' +
    'waited over 60 s (`webhooks`: no worker keeps up), and with INGEST_SCHEDULE set the scheduled ' +
    'ingest has saved progress within two intervals (`ingest`). 200 when every component is ok, ' +
    'else 503 listing the failing ones. `announcements` reports the live DoD announcement poll ' +
    '(ANNOUNCEMENTS_LIVE): its last release seen, last error and next run; not ok when the release of ' +
    'the last business day that has passed was not seen — reported only, never a 503 (an outside ' +
    "site's outage must not take the API out of rotation). Answered within a second even while a " +
    'dependency hangs. ' +
    'Registered engine versions. No key required; an error envelope when rate limiting itself ' +
    'cannot decide. For whether the process is alive, see /api/v1/health/live.',
  querystring: Query({}),
  response: {
    200: Health,
    503: Type.Union([Health, ErrorEnvelope], { description: 'Not ok, or rate limiting unavailable' }),
    ...errorResponses(400),
  },
};

const liveSchema = {
  tags: ['meta'],
  summary: 'Liveness',
  description:
    '200 while this process runs its event loop, whatever its dependencies do: no database, no ' +
    'rate limiter, no key. For a supervisor deciding whether to restart the process; ' +
    '/api/v1/health says whether it can serve.',
  querystring: Query({}),
  response: { 200: Liveness, ...errorResponses(400) },
};

export function registerHealth(app: App, { db, now, limiter, config }: Services): void {
  const sources = {
    db,
    limiter,
    now,
    ingestBaseUrl: config.ingestSchedule === null ? null : config.usaspendingBaseUrl,
    ingestIntervalMs: config.ingestSchedule,
    announcementsLive: config.announcementsLive,
    startedAt: now(),
  };
  app.get('/api/v1/health', { config: access.public, schema: healthSchema }, async (_request, reply) => {
    const health = await checkHealth(sources);
    return reply.code(health.ok ? 200 : 503).send(health);
  });
  app.get('/api/v1/health/live', { config: access.page, schema: liveSchema }, async () => ({
    ok: true as const,
  }));
}
