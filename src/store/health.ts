import { DOD_FEED_SOURCE, POLL_STATE_COLUMNS, type PollState } from './announcement-pages.ts';
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
  /** Each stored engine study's placebo verdict (src/evaluation/placebo.ts), without the placebo list. */
  studies: StudyVerdict[];
  /** The live announcement poll's state (null before its first poll). */
  announcements: PollState | null;
}

export interface StudyVerdict {
  engine: string;
  version: string;
  computed_at: string;
  placebo: {
    verdict: string;
    evidence: boolean;
    real: { diff: number | null; t: number | null; n: number; dates: number };
    demeaned: { diff: number | null; t: number | null };
    percentile: number | null;
    benchmark: string;
    horizon: number;
  } | null;
}

/** The stored studies' verdicts: a few small rows, the summaries' placebo blocks cut out in the server. */
const STUDIES = `(SELECT coalesce(json_agg(json_build_object('engine', engine_name, 'version', engine_version,
    'computed_at', computed_at, 'placebo', (summary::jsonb -> 'placebo') - 'placebos')), '[]')
  FROM event_studies)`;

/** Seconds the oldest claimable delivery has waited (see HealthFacts.webhookLagS), as a subquery. */
const WEBHOOK_LAG = `(SELECT extract(epoch FROM now() - min(d.next_attempt_at))::float8
  FROM webhook_deliveries d
  WHERE d.status IN ('pending', 'delivering') AND d.next_attempt_at <= now()
    AND (d.locked_until IS NULL OR d.locked_until < now())
    AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries f
      WHERE f.webhook_id = d.webhook_id AND f.status = 'delivering' AND f.locked_until >= now()))`;

/**
 * One round trip for /health: it proves the database answers, and reads what the webhooks and ingest
 * components judge. The outbox and the checkpoints are shared by every process, so they tell whether
 * any worker keeps up, wherever it runs.
 */
export async function healthFacts(db: Queryable, ingestBaseUrl: string | null): Promise<HealthFacts> {
  const rows = await db.query<
    {
      webhook_lag_s: number | null;
      ingest_progress_at: string | null;
      studies: StudyVerdict[];
      polled: boolean;
    } & PollState
  >(
    `SELECT
       ${WEBHOOK_LAG} AS webhook_lag_s, ${STUDIES} AS studies,
       (SELECT max(updated_at) FROM ingest_checkpoints
        WHERE $1::text IS NOT NULL AND base_url = $1 AND date_type = 'last_modified_date'
       ) AS ingest_progress_at,
       p.source IS NOT NULL AS polled, ${POLL_STATE_COLUMNS}
     FROM (SELECT 1) AS one LEFT JOIN announcement_polls p ON p.source = $2`,
    [ingestBaseUrl, DOD_FEED_SOURCE],
  );
  const row = rows[0];
  const { webhook_lag_s, ingest_progress_at, studies, polled, ...state } =
    row ?? ({} as Partial<(typeof rows)[0]>);
  return {
    webhookLagS: webhook_lag_s ?? null,
    ingestProgressAt: ingest_progress_at ?? null,
    studies: studies ?? [],
    announcements: polled ? (state as PollState) : null,
  };
}

export interface MetricFacts {
  webhookLagS: number | null;
  deliveriesDue: number;
  /** Webhooks not deleted, by status. */
  webhooks: Partial<Record<'active' | 'failing' | 'suspended', number>>;
  /** The newest checkpoint of a scheduled (last-modified-date) ingest, any server. */
  ingestProgressAt: string | null;
}

/** What /metrics reads from the database, in one round trip. */
export async function metricFacts(db: Queryable): Promise<MetricFacts> {
  const rows = await db.query<{
    webhook_lag_s: number | null;
    deliveries_due: number;
    active: number;
    failing: number;
    suspended: number;
    ingest_progress_at: string | null;
  }>(
    `SELECT
       ${WEBHOOK_LAG} AS webhook_lag_s,
       (SELECT count(*)::int FROM webhook_deliveries
        WHERE status IN ('pending', 'delivering') AND next_attempt_at <= now()
          AND (locked_until IS NULL OR locked_until < now())) AS deliveries_due,
       count(*) FILTER (WHERE suspended_at IS NULL AND failure_streak = 0)::int AS active,
       count(*) FILTER (WHERE suspended_at IS NULL AND failure_streak > 0)::int AS failing,
       count(*) FILTER (WHERE suspended_at IS NOT NULL)::int AS suspended,
       (SELECT max(updated_at) FROM ingest_checkpoints WHERE date_type = 'last_modified_date') AS ingest_progress_at
     FROM webhooks WHERE disabled_at IS NULL`,
  );
  const row = rows[0];
  return {
    webhookLagS: row?.webhook_lag_s ?? null,
    deliveriesDue: row?.deliveries_due ?? 0,
    webhooks: { active: row?.active ?? 0, failing: row?.failing ?? 0, suspended: row?.suspended ?? 0 },
    ingestProgressAt: row?.ingest_progress_at ?? null,
  };
}
