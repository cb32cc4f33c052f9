import type { Queryable } from './db.ts';

/**
 * One round trip for /health: it proves the database answers, and returns how long the oldest due
 * webhook delivery has waited, in seconds (null when none is due). The outbox is shared by every
 * worker, so this tells whether any of them keeps up.
 */
export async function webhookLagSeconds(db: Queryable): Promise<number | null> {
  const rows = await db.query<{ webhook_lag_s: number | null }>(
    `SELECT (SELECT extract(epoch FROM now() - min(next_attempt_at))::float8
       FROM webhook_deliveries
       WHERE status IN ('pending', 'delivering') AND next_attempt_at <= now()) AS webhook_lag_s`,
  );
  return rows[0]?.webhook_lag_s ?? null;
}
