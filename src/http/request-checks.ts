import type { FastifyRequest } from 'fastify';
import { MAX_URL_LENGTH } from './client-errors.ts';
import { type ApiError, errors } from './errors.ts';
import { routeOf } from './route-of.ts';
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
 */
export function requestProblem(request: FastifyRequest): ApiError | null {
  const target = request.raw.url ?? '';
  if (target.length > MAX_URL_LENGTH) return errors.uriTooLong(MAX_URL_LENGTH);
  if (!target.startsWith('/') || target.startsWith('//')) {
    return errors.malformedRequest('the request target must be a path starting with a single "/"');
  }
  if (target.includes('#')) return errors.malformedRequest('the request target may not contain "#"');
  if (headerCount(request.raw.rawHeaders, 'host') > 1) return errors.repeatedHeader('host');
  return null;
}

/**
 * What a request's body must be, decided once access has been (so these answers carry the rate-limit
 * headers, as the parser's 413 and 415 do) and before any byte of it is read:
 *
 * - none, where the route declares no `schema.body`: such an operation takes no input there, and
 *   accepting bytes it ignores would hide a client's mistake (400);
 * - without `Content-Encoding`, or `identity`: no other is decoded, so a compressed body is a 415
 *   rather than bytes handed to the JSON parser. The header on a request without a body is ignored.
 */
export function bodyProblem(request: FastifyRequest): ApiError | null {
  if (request.is404 || !hasBody(request)) return null;
  if (!routeOf(request).schema?.body) return errors.bodyNotTaken();
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && !isIdentity(encoding)) return errors.unsupportedEncoding(String(encoding));
  return null;
}

/**
 * How many times a header was sent (node folds repeated `Host` headers into the first). `name` is
 * lower case; only names of its length are lowered to compare (every request's headers pass here).
 */
function headerCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const sent = rawHeaders[i];
    if (sent?.length === name.length && sent.toLowerCase() === name) count += 1;
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
 * `requestProblem` in the first of every request's hooks (installed before access and caching);
 * `bodyProblem` before the body is parsed, after the access hooks.
 */
export function installRequestChecks(app: App): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    done(requestProblem(request) ?? undefined);
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    done(bodyProblem(request), payload);
  });
}
