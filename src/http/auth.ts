import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashKey, keyMode, sameHash } from '../domain/keys.ts';
import {
  hasScope,
  KEYLESS_PER_IP,
  keyRpm,
  RATE_WINDOW_MS,
  reachesTier,
  type Scope,
} from '../domain/plans.ts';
import type { Tier } from '../domain/types.ts';
import type { LimitDecision } from '../infra/limiter.ts';
import { findKeyByHash, type KeyPrincipal } from '../store/accounts.ts';
import { errors } from './errors.ts';
import type { Services } from './types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified key and its owner's plan; null for keyless requests to public endpoints. */
    principal: KeyPrincipal | null;
  }
}

/** The raw key from `x-api-key` or `Authorization: Bearer`; '' when a header is present but empty or malformed. */
function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string') return header.trim();
  if (Array.isArray(header)) return '';
  const authorization = request.headers.authorization;
  if (authorization === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? '';
}

/** The three `X-RateLimit-*` headers of a decision (API keys, addresses, dashboard users). */
export function setLimitHeaders(reply: FastifyReply, decision: LimitDecision): void {
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', resetText(decision.resetAt));
}

/**
 * The reset instant's digits. Node would turn the number into text with String(), which keeps every
 * result in V8's number-to-string cache; a reset instant is new at nearly every request, so each one
 * outlived the young generation there and added to the old one (docs/EVALUATION.md "Read-path tail").
 * toFixed(0) builds the same digits for a whole number of ms without caching them.
 */
const resetText = (ms: number): string => (Number.isInteger(ms) ? ms.toFixed(0) : String(ms));

type Verified = KeyPrincipal | 'invalid' | 'revoked' | null;

const checked = (found: KeyPrincipal | null, hash: string): Verified =>
  !found || !sameHash(found.hash, hash) ? 'invalid' : found.revoked_at ? 'revoked' : found;

/**
 * Verified principal, the reason there is none, or null when no key was sent; at once when this
 * process's key cache holds the key (the busy case), else once the database has answered.
 */
function verify(services: Services, raw: string | null): Verified | Promise<Verified> {
  if (raw === null) return null;
  if (!raw || keyMode(raw) === null) return 'invalid';
  const hash = hashKey(raw);
  const cached = services.keys.peek(hash);
  if (cached) return checked(cached, hash);
  return services.keys
    .find(hash, () => findKeyByHash(services.db, hash))
    .then((found) => checked(found, hash));
}

/**
 * The API's key checks, applied by the access hook to the routes that declare them. Rate-limit headers
 * are set before anything can fail.
 */
export function keyGate(services: Services) {
  const limiter = services.limiter;
  /** limiter.hit(), answered without a promise by a limiter in this process. */
  const hit = (bucket: string, limit: number): LimitDecision | Promise<LimitDecision> =>
    limiter.hitSync
      ? limiter.hitSync(bucket, limit, RATE_WINDOW_MS)
      : limiter.hit(bucket, limit, RATE_WINDOW_MS);
  /** Whole seconds until the window admits the next request (Retry-After). */
  const secondsLeft = (decision: LimitDecision) =>
    Math.max(1, Math.ceil((decision.resetAt - services.now().getTime()) / 1000));
  /** Spends the address's keyless allowance; throws the 401 (with Retry-After) when it is gone. */
  const keyless = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const decision = await hit(`ip:${request.ip}`, KEYLESS_PER_IP);
    setLimitHeaders(reply, decision);
    if (!decision.allowed) throw errors.keylessThrottled(secondsLeft(decision));
  };
  const usable = (verified: Verified) => {
    const principal = typeof verified === 'object' ? verified : null;
    const rpm = principal ? keyRpm(principal.plan, principal.mode) : null;
    return principal && rpm !== null ? { principal, rpm } : null;
  };
  /** A keyed route's request with no usable key: the keyless allowance is spent, then the reason given. */
  const refuse = async (
    request: FastifyRequest,
    reply: FastifyReply,
    raw: string | null,
    verified: Verified,
  ) => {
    await keyless(request, reply);
    if (typeof verified === 'object' && verified) throw errors.noLiveAccess(verified.plan);
    if (verified === 'revoked') throw errors.revokedKey();
    if (raw !== null) throw errors.invalidKey();
    throw errors.missingKey();
  };
  /** Counted within the key's window (rate-limit headers set first), then the route's scope and tier. */
  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    principal: KeyPrincipal,
    decision: LimitDecision,
    scope: Scope,
    tier: Tier,
  ): void => {
    setLimitHeaders(reply, decision);
    if (!decision.allowed) {
      throw errors.rateLimited(secondsLeft(decision));
    }
    request.principal = principal;
    checkRoute(principal, scope, tier);
  };
  const requireVerified = (
    request: FastifyRequest,
    reply: FastifyReply,
    raw: string | null,
    verified: Verified,
    scope: Scope,
    tier: Tier,
  ): void | Promise<void> => {
    const key = usable(verified);
    if (!key) return refuse(request, reply, raw, verified);
    const decision = hit(`key:${key.principal.id}`, key.rpm);
    if (decision instanceof Promise) {
      return decision.then((d) => admit(request, reply, key.principal, d, scope, tier));
    }
    admit(request, reply, key.principal, decision, scope, tier);
  };

  return {
    /**
     * Open routes answer without a key. A usable key within its window is counted (and its usage
     * recorded); any other key — unknown, revoked, without live access, over its limit — is ignored and
     * the request spends the address's keyless allowance, as a request without a key does.
     */
    async open(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const key = usable(await verify(services, presentedKey(request)));
      if (key) {
        const decision = await hit(`key:${key.principal.id}`, key.rpm);
        setLimitHeaders(reply, decision);
        if (decision.allowed) {
          request.principal = key.principal;
          return;
        }
      }
      await keyless(request, reply);
    },

    /**
     * Keyed routes: a verified key, within its window, with the scope and tier the route declares.
     * Returns without a promise when the key is cached and the limiter is in this process; throws or
     * rejects with the API error otherwise.
     */
    require(request: FastifyRequest, reply: FastifyReply, scope: Scope, tier: Tier): void | Promise<void> {
      const raw = presentedKey(request);
      const verified = verify(services, raw);
      if (verified instanceof Promise) {
        return verified.then((v) => requireVerified(request, reply, raw, v, scope, tier));
      }
      return requireVerified(request, reply, raw, verified, scope, tier);
    },
  };
}

function checkRoute(principal: KeyPrincipal, scope: Scope, tier: Tier): void {
  if (!hasScope(principal.scopes, scope)) throw errors.insufficientScope(scope, principal.scopes);
  if (scope === 'admin' && !principal.is_admin) throw errors.adminOnly();
  if (!reachesTier(principal.plan, tier)) throw errors.tierRequired(tier, principal.plan);
}

/** For tiers that depend on the request, such as an engine's. Keyless callers only reach public routes. */
export function requireTier(request: FastifyRequest, tier: Tier, what: string): void {
  const principal = request.principal;
  if (principal && !reachesTier(principal.plan, tier)) throw errors.tierRequired(tier, principal.plan, what);
}
