import { createHash } from 'node:crypto';
import type { FastifyRequest, RouteOptions } from 'fastify';
import { PLAN_LIMITS } from '../domain/plans.ts';
import { Lru } from '../infra/lru.ts';
import type { ResponseCache } from '../infra/response-cache.ts';
import type { NotificationBus } from '../store/notifications.ts';
import type { App, Services } from './types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Where a cacheable GET's body goes once computed; `hit` when it came from the cache. */
    cacheSlot: { key: string; version: number | null; hit: boolean } | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Strong, from the bytes alone: the same body has the same tag on every instance and after restarts. */
export const etagOf = (body: Buffer): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** If-None-Match compares weakly (RFC 9110 §13.1.2): `W/` prefixes are ignored, `*` matches any. */
export function ifNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return [header]
    .flat()
    .flatMap((value) => value.split(','))
    .some((tag) => {
      const trimmed = tag.trim();
      return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
    });
}

const sortedEntries = (values: unknown) =>
  JSON.stringify(
    Object.entries((values ?? {}) as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    ),
  );

/**
 * What the body of a cacheable route depends on: the caller's tier (rationale, engine tiers), the UTC
 * day (decay ages), and the route with its parameters and query as validated (coerced, defaults
 * filled, sorted: spellings of one query share an entry).
 *
 * The last part is a function of the request's URL alone (a cached route is a GET, its input the path
 * and query), so `urls` keeps it by URL: sorting and writing out the query again for every request
 * of a busy URL cost 2–3 % of a worker's CPU. Such a URL holds only declared parameters (an unknown
 * one, `?api_key=…` included, is refused with 400 before this runs), so no credential is kept.
 */
export function cacheKey(request: FastifyRequest, now: Date, urls: Lru<string, string>): string {
  const tier = request.principal ? PLAN_LIMITS[request.principal.plan].tier : '-';
  let input = urls.get(request.url);
  if (input === undefined) {
    input = `${request.routeOptions.url}\n${sortedEntries(request.params)}\n${sortedEntries(request.query)}`;
    urls.set(request.url, input);
  }
  return `${tier}\n${now.toISOString().slice(0, 10)}\n${input}`;
}

/** URLs whose cache-key input is kept. */
const KEY_URLS = 10_000;

/**
 * Routes declaring `cache` get `Cache-Control: private, no-cache` and a strong ETag on their 200s, a 304
 * when If-None-Match matches, and, with a response cache, their 200 bodies kept and served from it. The
 * access hook runs first (onRequest), so keys, limits and usage count for every request, 304s and cache
 * hits included. Only 200s are kept, under the caller's tier: an error is never served from the cache.
 *
 * With a bus, a successful write request (not GET, HEAD or OPTIONS) is answered only after this process
 * has received the notifications of what it committed (`bus.sync`), so its own next read never meets a
 * stale entry.
 */
export function installCaching(
  app: App,
  services: Services,
  options: { responses: ResponseCache | null; bus: NotificationBus | null },
): void {
  const { responses, bus } = options;
  const keyInputs = new Lru<string, string>(KEY_URLS);
  app.decorateRequest('cacheSlot', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.cache) return;
    if (route.config.secret) throw new Error(`route ${route.url} is secret and may not be cached`);
    if ([route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD')) {
      throw new Error(`cached route ${String(route.method)} ${route.url} must be GET`);
    }
  });

  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config.cache || request.method !== 'GET') return;
    reply.header('cache-control', 'private, no-cache');
    if (!responses) return;
    const key = cacheKey(request, services.now(), keyInputs);
    const hit = responses.get(key);
    if (!hit) {
      request.cacheSlot = { key, version: responses.begin(), hit: false };
      return;
    }
    request.cacheSlot = { key, version: null, hit: true };
    reply.header('etag', hit.etag);
    if (ifNoneMatch(request.headers['if-none-match'], hit.etag)) return reply.code(304).send();
    return reply.type(hit.contentType).send(hit.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const slot = request.cacheSlot;
    if (!request.routeOptions.config.cache || request.method !== 'GET' || slot?.hit) return payload;
    if (reply.statusCode !== 200) return payload;
    const body =
      typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : null;
    if (!body) return payload;
    const etag = etagOf(body);
    reply.header('etag', etag);
    if (responses && slot && slot.version !== null) {
      const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
      responses.put(slot.key, slot.version, { body, etag, contentType });
    }
    if (!ifNoneMatch(request.headers['if-none-match'], etag)) return body;
    reply.code(304);
    reply.removeHeader('content-type');
    return null;
  });

  if (bus) {
    app.addHook('onSend', async (request, reply, payload) => {
      if (!SAFE_METHODS.has(request.method) && reply.statusCode < 300) await bus.sync();
      return payload;
    });
  }
}
