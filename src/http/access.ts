import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { meteredUser } from '../dashboard/meter.ts';
import type { Scope } from '../domain/plans.ts';
import type { Tier } from '../domain/types.ts';
import { keyGate } from './auth.ts';
import { errors } from './errors.ts';
import { routeOf } from './route-of.ts';
import { sessionGate } from './session-auth.ts';
import type { App, Services } from './types.ts';

/**
 * Who may call a route. Every route declares one in its options (`config: access.read`, …); the hook
 * below reads the declaration of the route that matched — never the text of the URL — so a request
 * reaches a handler only under the rule of that handler, however its path was spelled.
 *
 * - `public`: the API's open routes (/health, /openapi.json): no key needed, the per-address allowance
 *   applies; a key that verifies and is within its window is counted instead.
 * - `key`: an API key with at least `scope`, on a plan reaching `tier`, within its window.
 * - `page`: the dashboard's HTML and assets; no credentials, GET only.
 * - `session`: the dashboard's JSON API. `need` says which session: `none` (sign-up, sign-in: the cookie
 *   is not read), `optional` (sign-out), `user`, `admin`. Every state change checks the Origin, and the
 *   CSRF token whenever a session is present.
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'key'; scope: Scope; tier: Tier }
  | { kind: 'page' }
  | { kind: 'session'; need: 'none' | 'optional' | 'user' | 'admin' };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** The response carries a raw key, a webhook secret or a CSRF token: `Cache-Control: no-store`. */
    secret?: boolean;
    /**
     * A GET whose 200 body depends only on the data, the request and the caller's tier: it gets an ETag
     * and 304s, and may be answered from the response cache (src/http/caching.ts).
     */
    cache?: boolean;
  }
}

/** Route configs, one per rule (the tiers and scopes of docs/API.md "Plans and tiers"). */
export const access = {
  public: { access: { kind: 'public' } },
  read: { access: { kind: 'key', scope: 'read', tier: 'developer' } },
  write: { access: { kind: 'key', scope: 'write', tier: 'developer' } },
  intelligence: { access: { kind: 'key', scope: 'read', tier: 'intelligence' } },
  admin: { access: { kind: 'key', scope: 'admin', tier: 'free' } },
  page: { access: { kind: 'page' } },
  anonymous: { access: { kind: 'session', need: 'none' } },
  anySession: { access: { kind: 'session', need: 'optional' } },
  user: { access: { kind: 'session', need: 'user' } },
  adminUser: { access: { kind: 'session', need: 'admin' } },
} as const satisfies Record<string, { access: Access }>;

/** The same rule, for a route whose response carries a secret. */
export const secret = <T extends { access: Access }>(config: T): T & { secret: true } => ({
  ...config,
  secret: true,
});

/** The same rule, for a POST that honours Idempotency-Key (http/idempotency.ts). */
export const idempotent = <T extends { access: Access }>(config: T): T & { idempotent: true } => ({
  ...config,
  idempotent: true,
});

/** The same rule, for a read whose responses may be cached (see `cache` above). */
export const cached = <T extends { access: Access }>(config: T): T & { cache: true } => ({
  ...config,
  cache: true,
});

/**
 * What a shared cache may keep of a route's answers, decided by its declared config: nothing of a
 * secret (`no-store`); nothing of any other keyed answer that is not a tier-shared cached read — usage,
 * webhooks, deliveries, admin lists, /metrics, writes: answers per caller (`private, no-store`). Cached
 * reads get `private, no-cache` with their ETag (caching.ts); session routes `no-store` below.
 */
function storePolicy(rule: Access, config: { secret?: boolean; cache?: boolean }): string | null {
  if (config.secret) return 'no-store';
  if (rule.kind === 'key' && !config.cache) return 'private, no-store';
  return null;
}

/** Requests no route matched (404, 405): counted like the open routes, so probing spends the allowance. */
const UNROUTED: Access = { kind: 'public' };

export interface AccessOptions {
  /** false skips keys, limits and usage on key routes — only to measure their cost (bench:events). */
  keys: boolean;
}

/** Every route this app registered, with its access rule, in registration order (tests enumerate it). */
export interface RouteAccess {
  method: string;
  url: string;
  access: Access;
  secret: boolean;
  /** A tier-shared cached read (`cache`). */
  cache: boolean;
  /** Declares a request body (`schema.body`); a route without one refuses a body (request-checks.ts). */
  body: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeAccess: RouteAccess[];
  }
}

export function installAccess(app: App, services: Services, options: AccessOptions): void {
  const table: RouteAccess[] = [];
  app.decorate('routeAccess', table);
  app.addHook('onRoute', (route: RouteOptions) => {
    const declared = route.config?.access;
    // Fail closed at startup: a route without a rule never serves.
    if (!declared) throw new Error(`route ${String(route.method)} ${route.url} declares no access rule`);
    if (declared.kind === 'page' && route.method !== 'GET' && route.method !== 'HEAD') {
      throw new Error(`page route ${String(route.method)} ${route.url} must be GET`);
    }
    for (const method of [route.method].flat()) {
      const { secret = false, cache = false } = route.config ?? {};
      const body = route.schema?.body !== undefined;
      table.push({ method, url: route.url, access: declared, secret, cache, body });
    }
  });

  const keys = keyGate(services);
  const sessions = sessionGate(services);
  app.decorateRequest('principal', null);
  app.decorateRequest('session', null);

  /** The route's rule applied: at once for a cached key on an in-process limiter, else a promise. */
  const check = (request: FastifyRequest, reply: FastifyReply): void | Promise<void> => {
    const rule = request.is404 ? UNROUTED : routeOf(request).config.access;
    if (!rule) throw errors.forbidden('this route declares no access rule');
    const privacy = storePolicy(rule, routeOf(request).config);
    if (privacy) reply.header('cache-control', privacy);
    switch (rule.kind) {
      case 'public':
        return options.keys ? keys.open(request, reply) : undefined;
      case 'key':
        return options.keys ? keys.require(request, reply, rule.scope, rule.tier) : undefined;
      case 'page':
        return;
      case 'session':
        reply.header('cache-control', 'no-store');
        return sessions.require(request, reply, rule.need);
      default:
        throw errors.forbidden('this route declares an unknown access rule');
    }
  };
  // A callback hook, not an async one: the busy path (a cached key) runs without a promise or a
  // microtask turn. Fastify's hook runner turns a throw here into the error reply.
  app.addHook('onRequest', (request, reply, done) => {
    const pending = check(request, reply);
    if (pending) pending.then(() => done(), done);
    else done();
  });

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    if (request.principal) services.usage.record(request.principal.id, reply.statusCode);
    else {
      const user = meteredUser(request);
      if (user) services.usage.recordDashboard(user, reply.statusCode);
    }
    done();
  });
}
