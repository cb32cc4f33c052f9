import type { FastifyReply, FastifyRequest } from 'fastify';
import { dashboardMeter, meteredRead } from '../dashboard/meter.ts';
import { findSession, readCookie, SESSION_COOKIE, type Session, sameToken } from '../dashboard/sessions.ts';
import { ApiError, errors } from './errors.ts';
import type { Services } from './types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of a `session` route; null when none was needed or sent. */
    session: Session | null;
  }
}

type Need = 'none' | 'optional' | 'user' | 'admin';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The dashboard's checks, applied by the access hook to `session` routes: the session cookie, the
 * Origin of every state change (a cross-site form or fetch carries a foreign one), and the CSRF token
 * whenever a session is present; then a signed-in user's reads within their dashboard allowance
 * (src/dashboard/meter.ts).
 */
export function sessionGate(services: Services) {
  const { db, now } = services;
  const meter = dashboardMeter(services);
  return {
    async require(request: FastifyRequest, reply: FastifyReply, need: Need): Promise<void> {
      const token = need === 'none' ? null : readCookie(request.headers.cookie, SESSION_COOKIE);
      const session = token ? await findSession(db, token, now()) : null;
      if (!SAFE_METHODS.has(request.method)) {
        checkOrigin(request);
        if (session) checkCsrf(request, session);
      }
      if ((need === 'user' || need === 'admin') && !session)
        throw new ApiError('unauthorized', 'sign in first');
      if (need === 'admin' && !session?.user.is_admin) throw errors.adminOnly();
      if (session && meteredRead(request.method, need)) await meter(reply, session);
      request.session = session;
    },
  };
}

function checkCsrf(request: FastifyRequest, session: Session): void {
  const sent = request.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !sameToken(sent, session.csrfToken)) {
    throw new ApiError('forbidden', 'missing or invalid CSRF token');
  }
}

function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let same = false;
  try {
    same = new URL(origin).origin === new URL(`${request.protocol}://${request.headers.host ?? ''}`).origin;
  } catch {
    same = false;
  }
  if (!same) throw new ApiError('forbidden', 'cross-site request refused');
}

/** The session a `user` or `admin` route's hook established. */
export function signedIn(request: FastifyRequest): Session {
  if (!request.session) throw new ApiError('unauthorized', 'sign in first');
  return request.session;
}
