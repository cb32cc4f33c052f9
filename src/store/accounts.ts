import { randomUUID } from 'node:crypto';
import type { NewKey } from '../domain/keys.ts';
import type { KeyMode, Plan, Scope } from '../domain/plans.ts';
import type { Queryable } from './db.ts';
import { KEYSETS, keysetRows, type PageRequest, type Position, type RowPage } from './keyset.ts';
import { Where } from './where.ts';

export interface User {
  id: string;
  email: string;
  plan: Plan;
  is_admin: boolean;
  created_at: string;
}

export interface ApiKey {
  id: string;
  user_id: string;
  name: string;
  mode: KeyMode;
  scopes: Scope[];
  display_prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A key as authentication sees it: the key, its owner's plan and admin flag. */
export interface KeyPrincipal extends ApiKey {
  hash: string;
  plan: Plan;
  is_admin: boolean;
}

const USER_COLUMNS = 'u.id, u.email, u.plan, u.is_admin, u.created_at';
/**
 * A key's last use: the usage flush writes it into the key's latest minute row (migration 034), and
 * `api_keys.last_used_at` holds the last use recorded before that migration. The latest row is one
 * probe of the primary key (key_id, minute), from its end.
 */
const KEY_LAST_USED = `GREATEST(k.last_used_at, (SELECT u.last_used_at FROM usage_minutely u
  WHERE u.key_id = k.id ORDER BY u.minute DESC LIMIT 1)) AS last_used_at`;
const KEY_COLUMNS = `k.id, k.user_id, k.name, k.mode, k.scopes, k.display_prefix, k.created_at, ${KEY_LAST_USED},
  k.revoked_at`;

export class EmailTakenError extends Error {}

export async function createUser(
  db: Queryable,
  input: { email: string; plan: Plan; isAdmin: boolean; passwordHash: string | null },
): Promise<User> {
  const taken = await db.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [input.email]);
  if (taken.length) throw new EmailTakenError(`a user with email ${input.email} exists`);
  const rows = await db.query<User>(
    `INSERT INTO users AS u (id, email, password_hash, plan, is_admin) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${USER_COLUMNS}`,
    [randomUUID(), input.email, input.passwordHash, input.plan, input.isAdmin],
  );
  const user = rows[0];
  if (!user) throw new Error('insert returned no row');
  return user;
}

/**
 * Inserts a user unless the email is taken, in one statement (no check-then-insert race), and tells
 * neither way: a sign-up must not reveal who is registered.
 */
export async function insertUserUnlessTaken(
  db: Queryable,
  input: { email: string; plan: Plan; passwordHash: string },
): Promise<void> {
  await db.query(
    `INSERT INTO users (id, email, password_hash, plan) VALUES ($1, $2, $3, $4)
     ON CONFLICT ((lower(email))) DO NOTHING`,
    [randomUUID(), input.email, input.passwordHash, input.plan],
  );
}

export async function getUser(db: Queryable, id: string): Promise<User | null> {
  const rows = await db.query<User>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<User | null> {
  const rows = await db.query<User>(`SELECT ${USER_COLUMNS} FROM users u WHERE lower(u.email) = lower($1)`, [
    email,
  ]);
  return rows[0] ?? null;
}

export async function setUserPlan(db: Queryable, id: string, plan: Plan): Promise<User | null> {
  const rows = await db.query<User>(
    `UPDATE users u SET plan = $2 WHERE u.id = $1 RETURNING ${USER_COLUMNS}`,
    [id, plan],
  );
  return rows[0] ?? null;
}

/** Locks the user row so concurrent key creations count each other. */
export async function countActiveKeys(tx: Queryable, userId: string, mode: KeyMode): Promise<number> {
  await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
  const rows = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND mode = $2 AND revoked_at IS NULL',
    [userId, mode],
  );
  return rows[0]?.n ?? 0;
}

export async function insertKey(
  tx: Queryable,
  input: { userId: string; name: string; mode: KeyMode; scopes: Scope[]; key: NewKey },
): Promise<ApiKey> {
  const rows = await tx.query<ApiKey>(
    `INSERT INTO api_keys AS k (id, user_id, name, mode, scopes, hash, display_prefix)
     VALUES ($1, $2, $3, $4, $5::text[], $6, $7) RETURNING ${KEY_COLUMNS}`,
    [
      randomUUID(),
      input.userId,
      input.name,
      input.mode,
      input.scopes,
      input.key.hash,
      input.key.displayPrefix,
    ],
  );
  const key = rows[0];
  if (!key) throw new Error('insert returned no row');
  return key;
}

/** Revokes once; revoking a revoked key returns it unchanged. */
export async function revokeKey(db: Queryable, id: string, now: Date): Promise<ApiKey | null> {
  const rows = await db.query<ApiKey>(
    `UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, $2) WHERE k.id = $1 RETURNING ${KEY_COLUMNS}`,
    [id, now.toISOString()],
  );
  return rows[0] ?? null;
}

export async function listKeys(db: Queryable, userId: string): Promise<ApiKey[]> {
  return db.query<ApiKey>(
    `SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.user_id = $1 ORDER BY k.created_at, k.id`,
    [userId],
  );
}

/**
 * A page of a user's keys, revoked ones included, oldest first: the records, never a hash (they hold
 * none) — for the admin's list of a user's keys.
 */
export async function listKeyPage(
  db: Queryable,
  userId: string,
  page: PageRequest,
): Promise<RowPage<ApiKey>> {
  const where = new Where().add((p) => `k.user_id = ${p}`, userId);
  return keysetRows(db, KEYSETS.keys, { columns: KEY_COLUMNS, from: 'api_keys k', where }, page);
}

export async function findKeyByHash(db: Queryable, hash: string): Promise<KeyPrincipal | null> {
  const rows = await db.query<KeyPrincipal>(
    `SELECT ${KEY_COLUMNS}, k.hash, u.plan, u.is_admin FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.hash = $1`,
    [hash],
  );
  return rows[0] ?? null;
}

/** Revokes a key only if it belongs to `userId`; null when there is no such key of theirs. */
export async function revokeOwnKey(
  db: Queryable,
  id: string,
  userId: string,
  now: Date,
): Promise<ApiKey | null> {
  const rows = await db.query<ApiKey>(
    `UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, $3) WHERE k.id = $1 AND k.user_id = $2
     RETURNING ${KEY_COLUMNS}`,
    [id, userId, now.toISOString()],
  );
  return rows[0] ?? null;
}

export interface UserFilter {
  /** A part of the email, matched case-insensitively and literally (`%` and `_` are not wildcards). */
  q?: string;
  plan?: Plan;
  limit: number;
  offset: number;
  /** Continue strictly after this position (newest first, then id). */
  after?: Position;
}

/** `\`, `%` and `_` escaped, so a LIKE pattern matches the text literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** Users, newest first (then by id), filtered by email part and plan. */
export async function listUsers(db: Queryable, filter: UserFilter): Promise<RowPage<User>> {
  const where = new Where()
    .add(
      (p) => `u.email ILIKE '%' || ${p} || '%' ESCAPE '\\'`,
      filter.q === undefined ? undefined : likeLiteral(filter.q),
    )
    .add((p) => `u.plan = ${p}`, filter.plan);
  return keysetRows(db, KEYSETS.users, { columns: USER_COLUMNS, from: 'users u', where }, filter);
}

export async function passwordHashOf(
  db: Queryable,
  email: string,
): Promise<{ id: string; hash: string | null } | null> {
  const rows = await db.query<{ id: string; hash: string | null }>(
    'SELECT id, password_hash AS hash FROM users WHERE lower(email) = lower($1)',
    [email],
  );
  return rows[0] ?? null;
}
