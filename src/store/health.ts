import type { Queryable } from './db.ts';

export interface HealthFacts {
  /**
   * How long the oldest claimable delivery has waited, in seconds (null when none): due, and its
   * endpoint has no attempt in flight. A backlog an endpoint works through at its allowance is not
   * lag; a due delivery that no worker takes is.
   */
  webhookLagS: number | null;
  /** When the scheduled ingest against `baseUrl` last saved progress (null: never, or not asked). */
  ingestProgressAt: string | null;
}

/**
 * One round trip for /health: it proves the database answers, and reads what the webhooks and ingest
 * components judge. The outbox and the checkpoints are shared by every process, so they tell whether
 * any worker keeps up, wherever it runs.
 */
export async function healthFacts(db: Queryable, ingestBaseUrl: string | null): Promise<HealthFacts> {
  const rows = await db.query<{ webhook_lag_s: number | null; ingest_progress_at: string | null }>(
    `SELECT
       (SELECT extract(epoch FROM now() - min(d.next_attempt_at))::float8
        FROM webhook_deliveries d
        WHERE d.status IN ('pending', 'delivering') AND d.next_attempt_at <= now()
          AND (d.locked_until IS NULL OR d.locked_until < now())
          AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries f
            WHERE f.webhook_id = d.webhook_id AND f.status = 'delivering' AND f.locked_until >= now())
       ) AS webhook_lag_s,
       (SELECT max(updated_at) FROM ingest_checkpoints
        WHERE $1::text IS NOT NULL AND base_url = $1 AND date_type = 'last_modified_date'
       ) AS ingest_progress_at`,
    [ingestBaseUrl],
  );
  return {
    webhookLagS: rows[0]?.webhook_lag_s ?? null,
    ingestProgressAt: rows[0]?.ingest_progress_at ?? null,
  };
}
