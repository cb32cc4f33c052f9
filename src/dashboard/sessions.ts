import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { User } from '../store/accounts.ts';
import type { Queryable } from '../store/db.ts';
import { deleteSession, findSessionRow, insertSession } from '../store/sessions.ts';

export const SESSION_COOKIE = 'mi_session';
export const SESSION_TTL_MS = 7 * 24 * 3_600_000;

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/** The session's key in the sessions table (the token's hash): what names it among open streams. */
export const sessionHash = digest;

export interface Session {
  user: User;
  csrfToken: string;
  expiresAt: string;
}

/** Creates a session; the returned token goes into the cookie and is never stored. */
export async function openSession(
  db: Queryable,
  userId: string,
  now: Date,
): Promise<{ token: string; csrfToken: string }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  await insertSession(db, {
    tokenHash: digest(token),
    userId,
    csrfToken,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    now: now.toISOString(),
  });
  return { token, csrfToken };
}

export async function findSession(db: Queryable, token: string, now: Date): Promise<Session | null> {
  const row = await findSessionRow(db, digest(token), now.toISOString());
  if (!row) return null;
  const { csrf_token, expires_at, ...user } = row;
  return { user, csrfToken: csrf_token, expiresAt: expires_at };
}

export async function closeSession(db: Queryable, token: string): Promise<void> {
  await deleteSession(db, digest(token));
}

export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Reads one cookie from a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=') || null;
  }
  return null;
}

export function sessionCookie(token: string, secure: boolean, maxAgeMs = SESSION_TTL_MS): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'Path=/dashboard',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
