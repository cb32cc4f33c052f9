import { Type } from 'typebox';
import { ENGINES } from '../../domain/engines/index.ts';
import { isDatabaseUnavailable } from '../../store/db.ts';
import { type HealthFacts, healthFacts } from '../../store/health.ts';
import { access } from '../access.ts';
import { ErrorEnvelope, errorResponses, Query } from '../schemas/common.ts';
import { Health, Liveness } from '../schemas/resources.ts';
import type { App, Services } from '../types.ts';

/** /health answers within this even while a dependency hangs. */
export const HEALTH_DEADLINE_MS = 800;

/** A due webhook delivery waiting longer than this means no worker keeps up: `webhooks` fails. */
export const WEBHOOK_LAG_LIMIT_S = 60;

/** The scheduled ingest is overdue when it has saved no progress for this many intervals. */
export const INGEST_OVERDUE_INTERVALS = 2;

interface DatabaseCheck {
  ok: boolean;
  detail?: string;
  facts?: HealthFacts;
}

/** The database answers within HEALTH_DEADLINE_MS (with the webhook and ingest facts, in one query). */
async function databaseCheck(db: Services['db'], ingestBaseUrl: string | null): Promise<DatabaseCheck> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<DatabaseCheck>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer within ${HEALTH_DEADLINE_MS} ms` }),
      HEALTH_DEADLINE_MS,
    );
  });
  const answer = healthFacts(db, ingestBaseUrl).then(
    (facts): DatabaseCheck => ({ ok: true, facts }),
    (error: unknown): DatabaseCheck => ({
      ok: false,
      detail: isDatabaseUnavailable(error) ? 'unreachable or not accepting queries' : 'query failed',
    }),
  );
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function webhooksCheck(database: DatabaseCheck): { ok: boolean; detail?: string } {
  if (!database.ok) return { ok: false, detail: 'unknown while the database is unavailable' };
  const lag = database.facts?.webhookLagS ?? 0;
  if (lag <= WEBHOOK_LAG_LIMIT_S) return { ok: true };
  return {
    ok: false,
    detail: `the oldest due delivery has waited ${Math.round(lag)} s (limit ${WEBHOOK_LAG_LIMIT_S} s): is a worker running?`,
  };
}

/**
 * With INGEST_SCHEDULE set, the scheduled ingest must save progress (a page fetched) at least every
 * INGEST_OVERDUE_INTERVALS intervals; before its first, the clock starts when this process did.
 */
function ingestCheck(
  database: DatabaseCheck,
  intervalMs: number | null,
  startedAt: Date,
  now: Date,
): { ok: boolean; scheduled: boolean; last_progress_at: string | null; detail?: string } {
  const last = database.facts?.ingestProgressAt ?? null;
  if (intervalMs === null) return { ok: true, scheduled: false, last_progress_at: last };
  if (!database.ok)
    return {
      ok: false,
      scheduled: true,
      last_progress_at: null,
      detail: 'unknown while the database is unavailable',
    };
  const since = last ? new Date(last) : startedAt;
  const waitedMs = now.getTime() - since.getTime();
  if (waitedMs <= INGEST_OVERDUE_INTERVALS * intervalMs)
    return { ok: true, scheduled: true, last_progress_at: last };
  const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;
  return {
    ok: false,
    scheduled: true,
    last_progress_at: last,
    detail:
      `the scheduled ingest has saved no progress for ${minutes(waitedMs)} (schedule: every ${minutes(intervalMs)}): ` +
      'is a worker running, and does USASpending answer? See the worker log.',
  };
}

export function registerMeta(app: App, { db, now, limiter, config, metrics }: Services): void {
  app.get(
    '/metrics',
    {
      config: access.admin,
      schema: {
        tags: ['admin'],
        summary: 'Prometheus metrics for operators (admin key: `x-api-key` or `Authorization: Bearer`)',
        description:
          'The exposition text format: 503s by cause, the rate limiter store and its local decisions while ' +
          'Redis is away, database reachability, the webhook outbox (oldest due delivery no worker sends, ' +
          "deliveries due, webhooks by status), the scheduled ingest's last progress, and process metrics.",
        querystring: Query({}),
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: Type.String() } },
          },
          ...errorResponses(400),
        },
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await metrics.text();
      return reply.type(contentType).send(body);
    },
  );

  const startedAt = now();
  const ingestBaseUrl = config.ingestSchedule === null ? null : config.usaspendingBaseUrl;
  app.get(
    '/api/v1/health',
    {
      config: access.public,
      schema: {
        tags: ['meta'],
        summary: 'Service health (readiness)',
        description:
          'Whether this instance can serve: the database answers within 800 ms, the rate limiter ' +
          'store answers (with Redis unreachable the API still serves, each process enforcing the ' +
          'limits alone, and this reports 503 naming `limiter`), and no due webhook delivery has ' +
          'waited over 60 s (`webhooks`: no worker keeps up), and with INGEST_SCHEDULE set the scheduled ' +
          'ingest has saved progress within two intervals (`ingest`). 200 when every component is ok, ' +
          'else 503 listing the failing ones; answered within a second even while a dependency hangs. ' +
          'Registered engine versions. No key required; an error envelope when rate limiting itself ' +
          'cannot decide. For whether the process is alive, see /api/v1/health/live.',
        querystring: Query({}),
        response: {
          200: Health,
          503: Type.Union([Health, ErrorEnvelope], { description: 'Not ok, or rate limiting unavailable' }),
          ...errorResponses(400),
        },
      },
    },
    async (_request, reply) => {
      const database = await databaseCheck(db, ingestBaseUrl);
      const webhooks = webhooksCheck(database);
      const ingest = ingestCheck(database, config.ingestSchedule, startedAt, now());
      const limits = limiter.state?.() ?? { ok: true, store: 'memory' };
      const failing = [
        ...(database.ok ? [] : ['db' as const]),
        ...(limits.ok ? [] : ['limiter' as const]),
        // Only when the database answered: otherwise `db` already says what is wrong.
        ...(database.ok && !webhooks.ok ? ['webhooks' as const] : []),
        ...(database.ok && !ingest.ok ? ['ingest' as const] : []),
      ];
      const engines = ENGINES.map(({ name, version, tier }) => ({ name, version, tier }));
      return reply.code(failing.length ? 503 : 200).send({
        ok: failing.length === 0,
        failing,
        db: database.ok ? { ok: true } : { ok: false, detail: database.detail },
        limiter: limits,
        webhooks,
        ingest,
        engines,
        now: now().toISOString(),
      });
    },
  );

  app.get(
    '/api/v1/health/live',
    {
      config: access.page,
      schema: {
        tags: ['meta'],
        summary: 'Liveness',
        description:
          '200 while this process runs its event loop, whatever its dependencies do: no database, no ' +
          'rate limiter, no key. For a supervisor deciding whether to restart the process; ' +
          '/api/v1/health says whether it can serve.',
        querystring: Query({}),
        response: { 200: Liveness, ...errorResponses(400) },
      },
    },
    async () => ({ ok: true as const }),
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
