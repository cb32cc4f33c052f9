import { createHash } from 'node:crypto';
import type { FastifyRequest, RouteOptions } from 'fastify';
import { PLAN_LIMITS } from '../domain/plans.ts';
import type { ResponseCache } from '../infra/response-cache.ts';
import type { NotificationBus } from '../store/notifications.ts';
import { routeOf } from './route-of.ts';
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

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The entries of `values` sorted by name, as JSON: `[["a",1],["b","x"]]`. */
const sortedEntries = (values: unknown) =>
  JSON.stringify(Object.entries((values ?? {}) as Record<string, unknown>).sort(([a], [b]) => byName(a, b)));

/** A name a key may hold, sorted as sortedEntries sorts, with its entry's opening text. */
interface Field {
  name: string;
  /** `["name",` */
  opening: string;
}

/**
 * The names a cached route's validated input can hold: its path's parameters, and its query's
 * declared parameters when the query schema admits no others (`Query()` in schemas/common.ts; else
 * null, and the query's own entries are sorted at each request).
 */
interface KeyPlan {
  params: Field[];
  query: Field[] | null;
}

const fields = (names: string[]): Field[] =>
  names.sort(byName).map((name) => ({ name, opening: `[${JSON.stringify(name)},` }));

/** Per route pattern, made at its first cached read. */
const plans = new Map<string, KeyPlan>();

function keyPlan(request: FastifyRequest): KeyPlan {
  const url = routeOf(request).url ?? '';
  let plan = plans.get(url);
  if (!plan) {
    const query = routeOf(request).schema?.querystring as
      | { properties?: Record<string, unknown>; additionalProperties?: unknown }
      | undefined;
    plan = {
      params: fields([...url.matchAll(/:(\w+)/g)].map((match) => match[1] as string)),
      query: query?.additionalProperties === false ? fields(Object.keys(query.properties ?? {})) : null,
    };
    plans.set(url, plan);
  }
  return plan;
}

/**
 * sortedEntries(values) of an object whose own names are all in `names` — the same text, written
 * straight from the sorted names instead of listing, sorting and serializing the entries at each
 * request (the read path's largest allocation of its own; docs/EVALUATION.md "Read-path tail").
 */
function entriesOf(values: unknown, names: Field[]): string {
  const object = (values ?? {}) as Record<string, unknown>;
  let text = '[';
  for (const field of names) {
    if (!Object.hasOwn(object, field.name)) continue;
    if (text.length > 1) text += ',';
    text += `${field.opening}${JSON.stringify(object[field.name]) ?? 'null'}]`;
  }
  return `${text}]`;
}

/**
 * What the body of a cacheable route depends on: the caller's tier (rationale, engine tiers), the UTC
 * day (decay ages), and the route with its parameters and query as validated (coerced, defaults
 * filled, sorted: spellings of one query share an entry).
 *
 * Everything in the key comes from the matched route and its validated input, never from the request
 * target's text: two spellings of one request share an entry, and no spelling can add an entry of its
 * own (an earlier memo keyed by the target was dropped for that reason). Only declared parameters reach
 * it (an unknown one, `?api_key=…` included, is refused with 400 before this runs), so no credential is
 * kept. The names come from the matched route (keyPlan), the values from the validated input.
 */
export function cacheKey(request: FastifyRequest, now: Date): string {
  const tier = request.principal ? PLAN_LIMITS[request.principal.plan].tier : '-';
  const plan = keyPlan(request);
  const params = entriesOf(request.params, plan.params);
  const query = plan.query ? entriesOf(request.query, plan.query) : sortedEntries(request.query);
  return `${tier}\n${utcDay(now.getTime())}\n${routeOf(request).url}\n${params}\n${query}`;
}

/** cacheKey as written before key plans, from the entries themselves: tests hold the two equal. */
export function cacheKeyFromEntries(request: FastifyRequest, now: Date): string {
  const tier = request.principal ? PLAN_LIMITS[request.principal.plan].tier : '-';
  const input = `${routeOf(request).url}\n${sortedEntries(request.params)}\n${sortedEntries(request.query)}`;
  return `${tier}\n${utcDay(now.getTime())}\n${input}`;
}

const DAY_MS = 86_400_000;
let dayMemo = { start: 0, text: '1970-01-01' };

/** YYYY-MM-DD of a UTC instant, written once per day rather than once per request. */
function utcDay(ms: number): string {
  if (ms < dayMemo.start || ms >= dayMemo.start + DAY_MS) {
    const start = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
    dayMemo = { start, text: new Date(start).toISOString().slice(0, 10) };
  }
  return dayMemo.text;
}

/**
 * A `Link` another caller on the tier may be given: none, or one origin-relative target on this
 * service (`</…>`, not `<//host/…>`), as http/canonical.ts builds them. Anything else is served to its
 * own request but never kept, whichever route made it.
 */
const SHAREABLE_LINK = /^<\/(?!\/)[^<>#\s]*>; rel="next"$/;
const shareableLink = (link: unknown): boolean =>
  link === undefined || (typeof link === 'string' && SHAREABLE_LINK.test(link));

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
  app.decorateRequest('cacheSlot', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.cache) return;
    if (route.config.secret) throw new Error(`route ${route.url} is secret and may not be cached`);
    if ([route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD')) {
      throw new Error(`cached route ${String(route.method)} ${route.url} must be GET`);
    }
  });

  // Callback hooks (no promise per request); replying from one means not calling its `done`.
  app.addHook('preHandler', (request, reply, done) => {
    if (!routeOf(request).config.cache || request.method !== 'GET') return done();
    reply.header('cache-control', 'private, no-cache');
    if (!responses) return done();
    const key = cacheKey(request, services.now());
    const hit = responses.get(key);
    if (!hit) {
      request.cacheSlot = { key, version: responses.begin(), hit: false };
      return done();
    }
    request.cacheSlot = { key, version: null, hit: true };
    reply.header('etag', hit.etag);
    if (hit.link !== undefined) reply.header('link', hit.link);
    if (ifNoneMatch(request.headers['if-none-match'], hit.etag)) reply.code(304).send();
    else reply.type(hit.contentType).send(hit.body);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const slot = request.cacheSlot;
    if (!routeOf(request).config.cache || request.method !== 'GET' || slot?.hit) return done(null, payload);
    if (reply.statusCode !== 200) return done(null, payload);
    const body =
      typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : null;
    if (!body) return done(null, payload);
    const etag = etagOf(body);
    reply.header('etag', etag);
    const link = reply.getHeader('link');
    if (responses && slot && slot.version !== null && shareableLink(link)) {
      const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
      const entry = { body, etag, contentType };
      responses.put(slot.key, slot.version, link === undefined ? entry : { ...entry, link: String(link) });
    }
    if (!ifNoneMatch(request.headers['if-none-match'], etag)) return done(null, body);
    reply.code(304);
    reply.removeHeader('content-type');
    done(null, null);
  });

  if (bus) {
    app.addHook('onSend', (request, reply, payload, done) => {
      if (SAFE_METHODS.has(request.method) || reply.statusCode >= 300) return done(null, payload);
      bus.sync().then(() => done(null, payload), done);
    });
  }
}
