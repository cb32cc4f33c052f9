import type { FastifyRequest } from 'fastify';
import { routeOf } from './route-of.ts';

/**
 * URLs the API writes into an answer (`Link`, cursors' next pages) are built from what the router and
 * the validator decided — the matched route's pattern with its validated parameters filled in, and
 * the validated query — never from the text the client sent. A cached answer is shared by every caller
 * on a tier, so a URL copied from one caller's spelling (another host in an absolute-form target, a
 * `#`, `;`, `//` or an encoded character) would reach all of them (docs/SECURITY.md, "Answers are
 * built from the route").
 */

/** `:name` segments of a route pattern (the API's patterns use no regular expressions or wildcards). */
const PARAM = /:(\w+)/g;

/** The matched route's path with its validated parameters, each percent-encoded as one segment. */
export function canonicalPath(request: FastifyRequest): string {
  const pattern = routeOf(request).url;
  if (pattern === undefined) throw new Error('canonicalPath needs a matched route');
  const params = (request.params ?? {}) as Record<string, unknown>;
  return pattern.replace(PARAM, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${pattern} has no validated parameter "${name}"`);
    return encodeURIComponent(String(value));
  });
}

/**
 * The route's canonical URL (origin-relative) with `query` — the validated query with any changes the
 * caller made — written in the query's own order, undefined values left out.
 */
export function canonicalUrl(request: FastifyRequest, query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `${canonicalPath(request)}?${text}` : canonicalPath(request);
}

/** The request's validated query, as an object a caller may change without touching the request. */
export const validatedQuery = (request: FastifyRequest): Record<string, unknown> => ({
  ...(request.query as Record<string, unknown>),
});
