import type { User } from './accounts.ts';
import type { Queryable } from './db.ts';

/** SQL of dashboard sessions: rows hold a token's hash, never the token. */

export async function insertSession(
  db: Queryable,
  row: { tokenHash: string; userId: string; csrfToken: string; expiresAt: string; now: string },
): Promise<void> {
  await db.query('DELETE FROM sessions WHERE expires_at < $1', [row.now]);
  await db.query(
    'INSERT INTO sessions (token_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)',
    [row.tokenHash, row.userId, row.csrfToken, row.expiresAt],
  );
}

/** The live session of a token hash, with its user. */
export async function findSessionRow(
  db: Queryable,
  tokenHash: string,
  now: string,
): Promise<(User & { csrf_token: string; expires_at: string }) | null> {
  const rows = await db.query<User & { csrf_token: string; expires_at: string }>(
    `SELECT u.id, u.email, u.plan, u.is_admin, u.created_at, s.csrf_token, s.expires_at
     FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1 AND s.expires_at > $2`,
    [tokenHash, now],
  );
  return rows[0] ?? null;
}

export async function deleteSession(db: Queryable, tokenHash: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
}

/** Which of the token hashes are sessions still live at `now`. */
export async function liveSessionHashes(
  db: Queryable,
  tokenHashes: string[],
  now: string,
): Promise<Set<string>> {
  const rows = await db.query<{ token_hash: string }>(
    'SELECT token_hash FROM sessions WHERE token_hash = ANY($1::text[]) AND expires_at > $2',
    [tokenHashes, now],
  );
  return new Set(rows.map((row) => row.token_hash));
}
