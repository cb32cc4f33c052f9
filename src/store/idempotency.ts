import type { Queryable } from './db.ts';

/** SQL of Idempotency-Key (migration 018): one row per (API key, header value). */

export interface IdempotencyScope {
  keyId: string;
  idempotencyKey: string;
}

/** What a request that finds a row it does not hold meets. */
export type StoredAttempt =
  | { state: 'running'; fingerprint: Buffer }
  | { state: 'done'; fingerprint: Buffer; status: number; headers: Record<string, string>; body: Buffer };

/** Expired rows removed by each claim, so the sweep's work is bounded and paid by writers only. */
const SWEEP_BATCH = 100;

/**
 * Takes the row for a new request: inserted, or taken over when it expired, or when its holder has
 * not answered since `staleBefore` (a process that died mid-request) and the request is the same.
 * True when this caller now holds it (under `lockToken`); false when another request owns the row.
 * Sweeps a batch of expired rows first.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  scope: IdempotencyScope,
  claim: { fingerprint: Buffer; lockToken: string; now: Date; expiresAt: Date; staleBefore: Date },
): Promise<boolean> {
  await db.query(
    `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH}))`,
    [claim.now],
  );
  const rows = await db.query(
    `INSERT INTO idempotency_keys AS i
       (key_id, idempotency_key, fingerprint, lock_token, locked_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (key_id, idempotency_key) DO UPDATE
       SET fingerprint = excluded.fingerprint, lock_token = excluded.lock_token,
           locked_at = excluded.locked_at, expires_at = excluded.expires_at,
           status = NULL, headers = NULL, body = NULL
       WHERE i.expires_at <= excluded.locked_at
          OR (i.status IS NULL AND i.locked_at <= $7 AND i.fingerprint = excluded.fingerprint)
     RETURNING 1`,
    [
      scope.keyId,
      scope.idempotencyKey,
      claim.fingerprint,
      claim.lockToken,
      claim.now,
      claim.expiresAt,
      claim.staleBefore,
    ],
  );
  return rows.length === 1;
}

/** The live row of `scope`, as another request sees it; null when there is none (or it expired). */
export async function storedAttempt(
  db: Queryable,
  scope: IdempotencyScope,
  now: Date,
): Promise<StoredAttempt | null> {
  const rows = await db.query<{
    fingerprint: Buffer;
    status: number | null;
    headers: Record<string, string> | null;
    body: Buffer | null;
  }>(
    `SELECT fingerprint, status, headers, body FROM idempotency_keys
     WHERE key_id = $1 AND idempotency_key = $2 AND expires_at > $3`,
    [scope.keyId, scope.idempotencyKey, now],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.status === null || row.body === null) return { state: 'running', fingerprint: row.fingerprint };
  return {
    state: 'done',
    fingerprint: row.fingerprint,
    status: row.status,
    headers: row.headers ?? {},
    body: row.body,
  };
}

/** Records the answer of the request holding the row; false when it no longer holds it. */
export async function storeIdempotentResponse(
  db: Queryable,
  scope: IdempotencyScope,
  lockToken: string,
  response: { status: number; headers: Record<string, string>; body: Buffer },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE idempotency_keys SET status = $4, headers = $5, body = $6, lock_token = NULL
     WHERE key_id = $1 AND idempotency_key = $2 AND lock_token = $3 RETURNING 1`,
    [scope.keyId, scope.idempotencyKey, lockToken, response.status, response.headers, response.body],
  );
  return rows.length === 1;
}

/** Gives the row up (the request failed on the server's side): a retry runs the operation afresh. */
export async function releaseIdempotencyKey(
  db: Queryable,
  scope: IdempotencyScope,
  lockToken: string,
): Promise<void> {
  await db.query(
    'DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND lock_token = $3',
    [scope.keyId, scope.idempotencyKey, lockToken],
  );
}
