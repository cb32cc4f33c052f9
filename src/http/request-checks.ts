import type { FastifyRequest } from 'fastify';
import { MAX_URL_LENGTH } from './client-errors.ts';
import { type ApiError, errors } from './errors.ts';
import type { App } from './types.ts';

/**
 * What a request must be before any route sees it (docs/SECURITY.md, "Answers are built from the
 * route"):
 *
 * - its target in origin form (RFC 9112 §3.2.1): a path starting with one `/`. Node and the router
 *   accept an absolute-form target (`GET http://other.example/api/v1/… HTTP/1.1`) and route it by its
 *   path; this service is never a proxy, so such a target is refused rather than normalised — the
 *   request reaches no handler and no cache, and a client learns its spelling is wrong.
 * - no `#`: a fragment is never part of a request target, and the router would read the text after it
 *   as the query.
 * - one `Host` header (RFC 9112 §3.2: a request with several is a 400).
 * - a body without `Content-Encoding`, or `identity`: none other is decoded, so a compressed body is a
 *   415 rather than bytes handed to the JSON parser (a header on a request without a body is ignored).
 */
export function requestProblem(request: FastifyRequest): ApiError | null {
  const target = request.raw.url ?? '';
  if (target.length > MAX_URL_LENGTH) return errors.uriTooLong(MAX_URL_LENGTH);
  if (!target.startsWith('/') || target.startsWith('//')) {
    return errors.malformedRequest('the request target must be a path starting with a single "/"');
  }
  if (target.includes('#')) return errors.malformedRequest('the request target may not contain "#"');
  if (headerCount(request.raw.rawHeaders, 'host') > 1) return errors.repeatedHeader('host');
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && hasBody(request) && !isIdentity(encoding)) {
    return errors.unsupportedEncoding(String(encoding));
  }
  return null;
}

/** How many times a header was sent (node folds repeated `Host` headers into the first). */
function headerCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === name) count += 1;
  }
  return count;
}

/** A body follows the headers (node's own test: a length above 0, or chunked framing). */
const hasBody = ({ headers }: FastifyRequest): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** Every coding listed is `identity` (an empty list element, as in `identity,`, names none). */
const isIdentity = (encoding: string | string[]): boolean =>
  [encoding]
    .flat()
    .flatMap((value) => value.split(','))
    .map((coding) => coding.trim().toLowerCase())
    .every((coding) => coding === '' || coding === 'identity');

/**
 * The checks above, first of every request's hooks (installed before access and caching). Then, once
 * access has been decided, a request with a body to a route that declares none (`schema.body`) is a
 * 400 before its body is read: an operation without a body schema takes no input there, and accepting
 * bytes it ignores would hide a client's mistake (docs/SECURITY.md).
 */
export function installRequestChecks(app: App): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    done(requestProblem(request) ?? undefined);
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const refused = !request.is404 && !request.routeOptions.schema?.body && hasBody(request);
    done(refused ? errors.bodyNotTaken() : null, payload);
  });
}
