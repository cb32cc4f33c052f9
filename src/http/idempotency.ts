import { createHash, randomUUID } from 'node:crypto';
import type {
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerHookHandler,
  RouteOptions,
} from 'fastify';
import { sealBytes, unsealBytes } from '../domain/sealing.ts';
import {
  claimIdempotencyKey,
  type IdempotencyScope,
  releaseIdempotencyKey,
  type StoredAttempt,
  storedAttempt,
  storeIdempotentResponse,
} from '../store/idempotency.ts';
import { errors } from './errors.ts';
import { readerTier } from './reader-tier.ts';
import { routeOf } from './route-of.ts';
import { IDEMPOTENCY_HEADER } from './schemas/common.ts';
import type { App, Services } from './types.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A keyed POST that creates something: it honours `Idempotency-Key` (see installIdempotency). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The Idempotency-Key row this request holds while it runs. */
    idempotency: Held | null;
  }
}

interface Held {
  scope: IdempotencyScope;
  lockToken: string;
}

/** How long an answer is kept and replayed. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;
/**
 * A row whose request has not answered for this long is taken to be abandoned (its process died) and
 * may be taken over by the same request. Handlers answer within the database deadline, well under it.
 */
export const IDEMPOTENCY_LOCK_MS = 60_000;
/** HKDF purpose of the sealed answers: a stored body opens only as one. */
const PURPOSE = 'idempotent-response-v1';
/** The answer's headers that are part of it; the rest (request id, rate limits) belong to each request. */
const KEPT_HEADERS = ['content-type', 'location'];

/** Keys sorted at every depth: two spellings of one JSON value have one fingerprint. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
}

/**
 * What "the same request" means: method, route, the validated path parameters, query and body, and the
 * tier the caller reads on. A stored answer holds what that tier was shown (src/domain/field-tiers.ts):
 * after a downgrade the same key is another request (422), never a replay of fields the plan lost.
 */
export function requestFingerprint(request: FastifyRequest): Buffer {
  const parts = [
    request.method,
    routeOf(request).url,
    request.params,
    request.query,
    request.body,
    readerTier(request),
  ];
  return createHash('sha256')
    .update(JSON.stringify(canonical(parts)))
    .digest();
}

/** The associated data of a sealed answer: it opens only in its own row. */
const rowOf = (scope: IdempotencyScope) => `${scope.keyId}\n${scope.idempotencyKey}`;

/**
 * `Idempotency-Key` on the routes that declare `idempotent` (keyed POSTs that create something), as
 * Stripe has it. The first request with a key value claims a row in PostgreSQL for (API key, value), so
 * the guarantee holds across processes and instances; its answer (status, content type, body sealed
 * with SECRET_KEY) is stored when it is sent, unless it is a 5xx, which releases the row so a retry
 * runs afresh. A later request with the same value within 24 hours is answered with the stored answer
 * and `Idempotent-Replayed: true` if it is the same request, refused with 422 if it is another, and
 * refused with 409 (Retry-After: 1) while the first still runs. A request refused before its handler
 * (authentication, limits, validation) claims nothing.
 */
export function installIdempotency(app: App, services: Services): void {
  app.decorateRequest('idempotency', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.idempotent) return;
    const headers = (route.schema?.headers ?? {}) as { properties?: Record<string, unknown> };
    const declared = Object.keys(headers.properties ?? {}).some(
      (name) => name.toLowerCase() === IDEMPOTENCY_HEADER,
    );
    if (route.method !== 'POST' || route.config.access?.kind !== 'key' || !declared) {
      throw new Error(
        `idempotent route ${route.url} must be a keyed POST declaring the ${IDEMPOTENCY_HEADER} header`,
      );
    }
    withIdempotency(route, services);
  });
}

const asList = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/**
 * The two hooks, on the idempotent routes only: hooks on the app would run, for nothing, on every
 * request of every route, the cached reads included.
 */
function withIdempotency(route: RouteOptions, services: Services): void {
  const claim: preHandlerHookHandler = (request, reply, done) => {
    if (request.headers[IDEMPOTENCY_HEADER] === undefined) return done();
    begin(services, request, reply).then((replayed) => {
      if (!replayed) done();
    }, done);
  };
  const store: onSendHookHandler = (request, reply, payload, done) => {
    const held = request.idempotency;
    if (!held) return done(null, payload);
    request.idempotency = null;
    finish(services, held, reply, payload).then(
      () => done(null, payload),
      (error: unknown) => {
        // The answer still goes out; the row stays claimed until IDEMPOTENCY_LOCK_MS passes.
        request.log.error({ err: error }, 'could not store the answer of an Idempotency-Key request');
        done(null, payload);
      },
    );
  };
  route.preHandler = [...asList(route.preHandler), claim];
  route.onSend = [...asList(route.onSend), store];
}

/** Claims the key for this request (false: run the handler) or answers it (true). */
async function begin(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (sentTwice(request.raw.rawHeaders)) throw errors.repeatedHeader('Idempotency-Key');
  const principal = request.principal;
  // Only without keys (a benchmark of their cost) is there no principal: nothing to scope by.
  if (!principal) return false;
  const secretKey = services.config.secretKey;
  if (!secretKey) throw errors.idempotencyUnavailable();
  const scope = { keyId: principal.id, idempotencyKey: String(request.headers[IDEMPOTENCY_HEADER]) };
  const fingerprint = requestFingerprint(request);
  const now = services.now();
  // A row can vanish between the claim and the read (released after a 5xx, swept): then claim again.
  for (let tries = 0; tries < 3; tries += 1) {
    const lockToken = randomUUID();
    const claimed = await claimIdempotencyKey(services.db, scope, {
      fingerprint,
      lockToken,
      now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
      staleBefore: new Date(now.getTime() - IDEMPOTENCY_LOCK_MS),
    });
    if (claimed) {
      request.idempotency = { scope, lockToken };
      return false;
    }
    const stored = await storedAttempt(services.db, scope, now);
    if (!stored) continue;
    if (!stored.fingerprint.equals(fingerprint)) throw errors.idempotencyKeyReused();
    if (stored.state === 'running') throw errors.idempotencyInProgress();
    replay(reply, stored, unsealBytes(stored.body, secretKey, PURPOSE, rowOf(scope)));
    return true;
  }
  throw errors.idempotencyInProgress();
}

/** Node joins a repeated header's values with commas, which could pass for one value. */
function sentTwice(rawHeaders: string[]): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]?.toLowerCase() === IDEMPOTENCY_HEADER) seen += 1;
  return seen > 1;
}

function replay(reply: FastifyReply, stored: StoredAttempt & { state: 'done' }, body: Buffer): void {
  reply.code(stored.status);
  for (const [name, value] of Object.entries(stored.headers)) reply.header(name, value);
  reply.header('idempotent-replayed', 'true');
  reply.log.info({ status: stored.status }, 'answered with the stored answer of its Idempotency-Key');
  void reply.send(body);
}

/** Stores the answer of the request holding the row, or releases the row after a 5xx. */
async function finish(services: Services, held: Held, reply: FastifyReply, payload: unknown): Promise<void> {
  const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : null;
  const secretKey = services.config.secretKey;
  if (reply.statusCode >= 500 || body === null || !secretKey) {
    await releaseIdempotencyKey(services.db, held.scope, held.lockToken);
    return;
  }
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  await storeIdempotentResponse(services.db, held.scope, held.lockToken, {
    status: reply.statusCode,
    headers,
    body: sealBytes(body, secretKey, PURPOSE, rowOf(held.scope)),
  });
}
