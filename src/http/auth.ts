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
import type { App, Services } from './types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified key and its owner's plan; null for keyless requests to public endpoints. */
    principal: KeyPrincipal | null;
  }
  interface FastifyContextConfig {
    /** Lowest plan tier that may call the route. */
    tier?: Tier;
    scope?: Scope;
    /** Answers without a key (within the per-IP allowance). */
    public?: boolean;
  }
}

const API_PREFIX = '/api/v1/';

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

function setLimitHeaders(reply: FastifyReply, decision: LimitDecision): void {
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', decision.resetAt);
}

/** Verified principal, or the reason there is none. */
async function verify(services: Services, raw: string): Promise<KeyPrincipal | 'invalid' | 'revoked'> {
  if (keyMode(raw) === null) return 'invalid';
  const hash = hashKey(raw);
  const found = await findKeyByHash(services.db, hash);
  if (!found || !sameHash(found.hash, hash)) return 'invalid';
  return found.revoked_at ? 'revoked' : found;
}

/**
 * Every /api/v1/* request: key → per-key sliding window (or the per-IP allowance without a valid key) →
 * scope and tier of the route. Rate-limit headers are set before anything can fail.
 */
export function installAuth(app: App, services: Services): void {
  app.decorateRequest('principal', null);

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith(API_PREFIX)) return;
    const config = request.routeOptions.config;
    const raw = presentedKey(request);
    const verified = raw ? await verify(services, raw) : null;
    const principal = typeof verified === 'object' ? verified : null;
    const rpm = principal ? keyRpm(principal.plan, principal.mode) : null;

    if (!principal || rpm === null) {
      const decision = await services.limiter.hit(`ip:${request.ip}`, KEYLESS_PER_IP, RATE_WINDOW_MS);
      setLimitHeaders(reply, decision);
      if (!decision.allowed) throw errors.keylessThrottled();
      if (principal) throw errors.noLiveAccess(principal.plan);
      if (verified === 'revoked') throw errors.revokedKey();
      if (raw !== null) throw errors.invalidKey();
      if (!config.public) throw errors.missingKey();
      return;
    }

    const decision = await services.limiter.hit(`key:${principal.id}`, rpm, RATE_WINDOW_MS);
    setLimitHeaders(reply, decision);
    if (!decision.allowed) {
      throw errors.rateLimited(Math.max(1, Math.ceil((decision.resetAt - services.now().getTime()) / 1000)));
    }
    request.principal = principal;
    checkRoute(principal, config.scope ?? 'read', config.tier ?? 'developer');
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.principal) services.usage.record(request.principal.id, reply.statusCode);
  });
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

/** Per-rule rationale is shown on the intelligence tier and above. */
export function showsRationale(request: FastifyRequest): boolean {
  return request.principal !== null && reachesTier(request.principal.plan, 'intelligence');
}
