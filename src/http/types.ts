import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyInstance,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { Config } from '../config.ts';
import type { KeyCache } from '../infra/key-cache.ts';
import type { RateLimiter } from '../infra/limiter.ts';
import type { ServiceMetrics } from '../infra/metrics.ts';
import type { UsageRecorder } from '../infra/usage.ts';
import type { Db } from '../store/db.ts';
import type { WebhookContext } from '../webhooks/service.ts';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * A handler written apart from its route, typed by the route's schema as an inline one would be: the
 * route's line then shows its path, access rule, schema and handler at a glance.
 */
export type Handler<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider,
  FastifyBaseLogger
>;

/** What handlers reach: one typed context instead of globals. */
export interface Services {
  config: Config;
  db: Db;
  now: () => Date;
  limiter: RateLimiter;
  usage: UsageRecorder;
  /** Key lookups of authentication; bypassed when notifications cannot vouch for it. */
  keys: KeyCache;
  metrics: ServiceMetrics;
  /** What the webhook operations need: the database, the secret key, the target policy and DNS. */
  webhooks: WebhookContext;
}
