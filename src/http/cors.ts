/**
 * CORS for browser clients of the API, behind an allow-list (CORS_ORIGINS; off when empty, the
 * default). Only the API's own routes (access rule `key` or `public`, and unrouted requests, which are
 * counted like them) take part: the dashboard is same-origin and its cookie session never crosses.
 *
 * - An allowed `Origin` is echoed in `Access-Control-Allow-Origin`, never `*`, and never with
 *   `Access-Control-Allow-Credentials`: a key travels in a header the page's code sets, not in a cookie.
 * - Every API response says `Vary: Origin` while CORS is on, so a shared cache never hands one origin's
 *   answer to another.
 * - A preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered here, before any key or
 *   limit is looked at (a browser sends none with it): 204 with the methods and headers the API takes
 *   when the origin is allowed and the requested method has a route at that path; otherwise the
 *   error envelope (403 for an origin not listed, 404 for a path or method without a route).
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { sendError } from './error-handler.ts';
import { errors } from './errors.ts';
import { routeOf } from './route-of.ts';
import type { App } from './types.ts';

const ALLOW_HEADERS = [
  'Authorization',
  'X-Api-Key',
  'Content-Type',
  'Idempotency-Key',
  'If-None-Match',
  'X-Request-Id',
].join(', ');

/** What a page's script may read besides the CORS-safelisted headers. */
const EXPOSE_HEADERS = [
  'ETag',
  'Link',
  'Retry-After',
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Idempotent-Replayed',
  'Content-Disposition',
  'WWW-Authenticate',
].join(', ');

/** Seconds a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE = 600;

const isApiRule = (kind: string | undefined) => kind === 'key' || kind === 'public';

export function installCors(app: App, allowed: readonly string[]): void {
  if (allowed.length === 0) return;
  const origins = new Set(allowed);
  // The API's routes by method and path, to answer preflights for them only (as Fastify routes them).
  const api = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!isApiRule(route.config?.access?.kind)) return;
    for (const method of [route.method].flat()) api.on(method as HTTPMethod, route.url, () => undefined);
  });

  app.addHook('onRequest', (request, reply, done) => {
    const apiRequest = request.is404 || isApiRule(routeOf(request).config.access?.kind);
    const requested = request.headers['access-control-request-method'];
    if (request.method === 'OPTIONS' && typeof requested === 'string' && request.is404) {
      return preflight(request, reply, origins, api.find(requested as HTTPMethod, path(request)) !== null);
    }
    if (apiRequest) {
      const origin = request.headers.origin;
      if (origin && origins.has(origin)) {
        reply.header('access-control-allow-origin', origin);
        reply.header('access-control-expose-headers', EXPOSE_HEADERS);
      }
    }
    done();
  });
  // Added last, to whatever Vary the route set (the exports vary by Accept).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.is404 || isApiRule(routeOf(request).config.access?.kind)) varyByOrigin(reply);
    done(null, payload);
  });
}

function varyByOrigin(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const names =
    vary === undefined
      ? []
      : String(vary)
          .split(',')
          .map((name) => name.trim());
  if (!names.some((name) => name.toLowerCase() === 'origin'))
    reply.header('vary', [...names, 'Origin'].join(', '));
}

const path = (request: FastifyRequest) => request.url.split('?')[0] ?? '/';

function preflight(
  request: FastifyRequest,
  reply: FastifyReply,
  origins: ReadonlySet<string>,
  routed: boolean,
): FastifyReply {
  reply.header('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
  const origin = request.headers.origin;
  if (!origin || !origins.has(origin)) {
    return sendError(reply, request, errors.forbidden('this origin may not call the API from a browser'));
  }
  if (!routed) return sendError(reply, request, errors.routeNotFound('OPTIONS', path(request)));
  return reply
    .code(204)
    .headers({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': String(PREFLIGHT_MAX_AGE),
    })
    .send();
}
