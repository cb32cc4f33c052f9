import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyReply } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import { registerDashboard } from './dashboard/routes/index.ts';
import { installAccess } from './http/access.ts';
import { installCaching } from './http/caching.ts';
import { DEFAULT_TIMEOUTS, handleClientError, type Timeouts } from './http/client-errors.ts';
import { installCors } from './http/cors.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { errors } from './http/errors.ts';
import { installIdempotency } from './http/idempotency.ts';
import { installJsonDepthLimit } from './http/json-depth.ts';
import { loggerOptions, requestLogger } from './http/logging.ts';
import { openApiOptions } from './http/openapi.ts';
import { installRequestChecks } from './http/request-checks.ts';
import { installRouteOf, routeOf } from './http/route-of.ts';
import { registerApi } from './http/routes/index.ts';
import { installStrictInput } from './http/strict-input.ts';
import type { App, Services } from './http/types.ts';
import { FailoverLimiter } from './infra/failover-limiter.ts';
import type { LimiterChannel } from './infra/ipc-limiter.ts';
import { KeyCache } from './infra/key-cache.ts';
import type { RateLimiter } from './infra/limiter.ts';
import { MemoryLimiter } from './infra/memory-limiter.ts';
import { ServiceMetrics, UNMATCHED_ROUTE } from './infra/metrics.ts';
import { createRedisLimiter } from './infra/redis-limiter.ts';
import { ResponseCache } from './infra/response-cache.ts';
import { UsageRecorder } from './infra/usage.ts';
import { HEALTH_DEADLINE_MS } from './services/health.ts';
import type { Db } from './store/db.ts';
import { acquireBus, type NotificationBus } from './store/notifications.ts';
import type { WebhookContext } from './webhooks/service.ts';
import { type HostResolver, systemResolver, TargetPolicy } from './webhooks/target.ts';
import { DeliveryWorker } from './webhooks/worker.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  now?: () => Date;
  /** Defaults: in-memory, or Redis when REDIS_URL is set. */
  limiter?: RateLimiter;
  /** false silences request logs (tests, benchmarks). */
  logger?: boolean;
  /** Where logs go instead of stdout (tests read them). */
  logStream?: DestinationStream;
  /**
   * false builds the app without keys, limits and usage counting — only for measuring their cost
   * (`npm run bench:events`); never reachable from configuration.
   */
  security?: boolean;
  /**
   * false builds the app without the key and response caches — only for measuring them (bench:events).
   * They are on wherever the database is PostgreSQL (`db.url`), which notifies their invalidations.
   */
  caches?: boolean;
  /** A notification bus of the caller's (tests); default the process's bus for `db.url`. */
  notifications?: NotificationBus;
  /**
   * A cluster worker's channel to its primary: /metrics then answers for every worker of the instance
   * (infra/cluster-metrics.ts).
   */
  clusterChannel?: LimiterChannel;
  /** Server-level time limits (tests shorten them). */
  timeouts?: Partial<Timeouts>;
  webhooks?: {
    /** Runs the delivery worker in this process (embedded `serve`; not `serve --no-worker`). */
    worker?: boolean;
    /** DNS for webhook targets (tests inject one); default the system resolver. */
    resolve?: HostResolver;
    /** The worker's idle poll interval in ms (default 250). */
    pollMs?: number;
  };
}

/** Builds the HTTP app without listening, so tests can `inject` and servers can `listen`. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...deps.timeouts };
  const app: App = Fastify({
    logger: deps.logger === false ? false : loggerOptions(deps.config.logLevel, deps.logStream),
    childLoggerFactory: requestLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    trustProxy: deps.config.trustProxy,
    bodyLimit: 16 * 1024 * 1024,
    requestTimeout: timeouts.requestMs,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    clientErrorHandler: handleClientError,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 512 },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: true, useDefaults: true, allErrors: false },
    },
    frameworkErrors: (error, request, reply) => {
      const apiError =
        error.code === 'FST_ERR_BAD_URL'
          ? errors.invalidPath('url', 'malformed percent-encoding')
          : errors.invalidBody(error.message);
      void (reply as FastifyReply)
        .code(apiError.status)
        .type('application/json')
        .send(apiError.toEnvelope(request.id));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const now = deps.now ?? (() => new Date());
  const limiter = deps.limiter ?? (await createLimiter(deps.config, app));
  const usage = new UsageRecorder(deps.db, {
    onError: (error) => app.log.error({ err: error }, 'usage flush failed'),
  });
  usage.start();
  const shared = !deps.notifications && deps.db.url ? acquireBus(deps.db.url, app.log) : null;
  const bus = deps.notifications ?? shared?.bus ?? null;
  const cacheBus = deps.caches === false ? null : bus;
  const keys = new KeyCache({ bus: cacheBus });
  const cacheBytes = deps.config.responseCacheBytes;
  const responses =
    cacheBus && cacheBytes > 0 ? new ResponseCache({ bus: cacheBus, maxBytes: cacheBytes }) : null;
  app.decorate('caches', { bus, keys, responses });
  app.decorate('limiter', limiter);
  const metrics = new ServiceMetrics({
    limiter,
    db: deps.db,
    deadlineMs: HEALTH_DEADLINE_MS,
    caches: () => ({ keys, responses }),
  });
  app.decorate('metrics', metrics);
  const clusterMetrics = deps.clusterChannel ? metrics.joinCluster(deps.clusterChannel) : null;
  const resolve = deps.webhooks?.resolve ?? systemResolver;
  const webhooks = webhookContext(deps.config, deps.db, now, resolve);
  const services: Services = {
    config: deps.config,
    db: deps.db,
    now,
    limiter,
    usage,
    keys,
    metrics,
    webhooks,
  };
  // The first connection attempt is awaited so that a ready app starts with its caches on.
  app.addHook('onReady', async () => {
    await bus?.start();
  });
  app.addHook('onClose', async () => {
    await usage.close();
    if (!deps.limiter) await limiter.close();
    keys.close();
    responses?.close();
    clusterMetrics?.close();
    await shared?.release();
  });

  installRouteOf(app);
  installErrorHandling(app);
  // Every body this API takes is JSON; anything else is a 415, not a string for the validator to refuse.
  app.removeContentTypeParser('text/plain');
  installJsonDepthLimit(app);
  installStrictInput(app);
  installRequestChecks(app);
  // Before the access check: preflights carry no key, and refusals must be readable cross-origin too.
  installCors(app, deps.config.corsOrigins);
  // Counted by the matched route's URL pattern, never the URL's text (bounded series; 404/405 as one).
  if (deps.config.requestMetrics) {
    app.addHook('onResponse', (request, reply, done) => {
      const route = routeOf(request).url ?? UNMATCHED_ROUTE;
      metrics.request(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
  installAccess(app, services, { keys: deps.security !== false });
  installCaching(app, services, { responses, bus: cacheBus });
  installIdempotency(app, services);
  await app.register(swagger, openApiOptions);

  registerApi(app, services);
  registerDashboard(app, services);
  if (deps.webhooks?.worker) {
    const worker = new DeliveryWorker({
      db: deps.db,
      config: deps.config,
      log: app.log,
      metrics,
      resolve,
      pollMs: deps.webhooks.pollMs,
    });
    app.addHook('onReady', () => worker.start());
    app.addHook('onClose', () => worker.stop());
  }
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's notification bus and caches (tests and benchmarks look at them). */
    caches: { bus: NotificationBus | null; keys: KeyCache; responses: ResponseCache | null };
    /** The rate limiter the access checks use (tests look at its state). */
    limiter: RateLimiter;
    /** The Prometheus series of /metrics. */
    metrics: ServiceMetrics;
  }
}

/** What the webhook operations need: the database, the secret key, the target policy and DNS. */
function webhookContext(config: Config, db: Db, now: () => Date, resolve: HostResolver): WebhookContext {
  return {
    db,
    secretKey: config.secretKey,
    policy: new TargetPolicy(config.webhookAllowCidrs),
    resolve,
    now,
    secretOverlapMs: config.webhookSecretOverlapMs,
  };
}

async function createLimiter(config: Config, app: App): Promise<RateLimiter> {
  if (!config.redisUrl) return new MemoryLimiter();
  const redis = createRedisLimiter(config.redisUrl);
  // Connection errors repeat on every reconnect attempt while Redis is away: the limiter's own
  // transitions below are what the log reports.
  redis.redis.on('error', () => undefined);
  return new FailoverLimiter(redis, {
    degraded: (error) =>
      app.log.warn(
        { err: error },
        'Redis is unreachable: rate limits and sign-in back-off are now enforced per process until it answers again',
      ),
    recovered: (downMs) => app.log.warn({ downMs }, 'Redis answers again: rate limits are shared again'),
  });
}
