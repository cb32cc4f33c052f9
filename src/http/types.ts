import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Config } from '../config.ts';
import type { KeyCache } from '../infra/key-cache.ts';
import type { RateLimiter } from '../infra/limiter.ts';
import type { ServiceMetrics } from '../infra/metrics.ts';
import type { UsageRecorder } from '../infra/usage.ts';
import type { Db } from '../store/db.ts';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
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
}
