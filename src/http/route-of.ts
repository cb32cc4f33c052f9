import type { FastifyRequest } from 'fastify';
import type { App } from './types.ts';

type RouteOptions = FastifyRequest['routeOptions'];

declare module 'fastify' {
  interface FastifyRequest {
    /** `routeOptions` as first read for this request (routeOf). */
    routeMemo: FastifyRequest['routeOptions'] | null;
  }
}

/**
 * The matched route's options (its URL pattern, config and schema). Fastify's `request.routeOptions`
 * is a getter that builds a new 12-field object (and asks the router about a `version` constraint)
 * at every read, and a cache hit read it eight times (access, strict input, the cache key, the cache
 * hooks, the request metrics): the first read is kept on the request. Everything in it is fixed for
 * the request's route.
 * (docs/EVALUATION.md "Read-path tail", fourth pass.)
 */
export function routeOf(request: FastifyRequest): RouteOptions {
  let options = request.routeMemo;
  if (!options) {
    options = request.routeOptions;
    request.routeMemo = options;
  }
  return options;
}

/** Declares the memo on every request (a field of Fastify's request class, not added per request). */
export function installRouteOf(app: App): void {
  app.decorateRequest('routeMemo', null);
}
