import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { User } from '../store/accounts.ts';
import type { Queryable } from '../store/db.ts';

export const SESSION_COOKIE = 'mi_session';
export const SESSION_TTL_MS = 7 * 24 * 3_600_000;

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

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
  await db.query('DELETE FROM sessions WHERE expires_at < $1', [now.toISOString()]);
  await db.query(
    'INSERT INTO sessions (token_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)',
    [digest(token), userId, csrfToken, new Date(now.getTime() + SESSION_TTL_MS).toISOString()],
  );
  return { token, csrfToken };
}

export async function findSession(db: Queryable, token: string, now: Date): Promise<Session | null> {
  const rows = await db.query<User & { csrf_token: string; expires_at: string }>(
    `SELECT u.id, u.email, u.plan, u.is_admin, u.created_at, s.csrf_token, s.expires_at
     FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1 AND s.expires_at > $2`,
    [digest(token), now.toISOString()],
  );
  const row = rows[0];
  if (!row) return null;
  const { csrf_token, expires_at, ...user } = row;
  return { user, csrfToken: csrf_token, expiresAt: expires_at };
}

export async function closeSession(db: Queryable, token: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE token_hash = $1', [digest(token)]);
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

/**
 * Failed sign-ins per address and per email: after `limit` failures within `windowMs` further attempts
 * are refused until the oldest failure ages out. Kept in memory: per instance in cluster mode.
 */
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit = 5,
    private readonly windowMs = 15 * 60_000,
  ) {}

  /** Milliseconds until another attempt is allowed for any of the keys, 0 when allowed now. */
  waitMs(keys: string[], now: number): number {
    let wait = 0;
    for (const key of keys) {
      const recent = this.recent(key, now);
      const oldest = recent[0];
      if (recent.length >= this.limit && oldest !== undefined)
        wait = Math.max(wait, oldest + this.windowMs - now);
    }
    return wait;
  }

  fail(keys: string[], now: number): void {
    for (const key of keys) this.failures.set(key, [...this.recent(key, now), now]);
  }

  clear(keys: string[]): void {
    for (const key of keys) this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - this.windowMs);
  }
}
