import { ENGINES } from '../domain/engines/index.ts';
import type { RateLimiter } from '../infra/limiter.ts';
import { lastExpectedRelease } from '../pipeline/announcement-schedule.ts';
import { type Db, isDatabaseUnavailable } from '../store/db.ts';
import { type HealthFacts, healthFacts, type StudyVerdict } from '../store/health.ts';

/** /health answers within this even while a dependency hangs. */
export const HEALTH_DEADLINE_MS = 800;

/** A due webhook delivery waiting longer than this means no worker keeps up: `webhooks` fails. */
export const WEBHOOK_LAG_LIMIT_S = 60;

/** The scheduled ingest is overdue when it has saved no progress for this many intervals. */
export const INGEST_OVERDUE_INTERVALS = 2;

interface DatabaseCheck {
  ok: boolean;
  detail?: string;
  facts?: HealthFacts;
}

/** The database answers within HEALTH_DEADLINE_MS (with the webhook and ingest facts, in one query). */
async function databaseCheck(db: Db, ingestBaseUrl: string | null): Promise<DatabaseCheck> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<DatabaseCheck>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer within ${HEALTH_DEADLINE_MS} ms` }),
      HEALTH_DEADLINE_MS,
    );
  });
  const answer = healthFacts(db, ingestBaseUrl).then(
    (facts): DatabaseCheck => ({ ok: true, facts }),
    (error: unknown): DatabaseCheck => ({
      ok: false,
      detail: isDatabaseUnavailable(error) ? 'unreachable or not accepting queries' : 'query failed',
    }),
  );
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function webhooksCheck(database: DatabaseCheck): { ok: boolean; detail?: string } {
  if (!database.ok) return { ok: false, detail: 'unknown while the database is unavailable' };
  const lag = database.facts?.webhookLagS ?? 0;
  if (lag <= WEBHOOK_LAG_LIMIT_S) return { ok: true };
  return {
    ok: false,
    detail: `the oldest due delivery has waited ${Math.round(lag)} s (limit ${WEBHOOK_LAG_LIMIT_S} s): is a worker running?`,
  };
}

/**
 * With INGEST_SCHEDULE set, the scheduled ingest must save progress (a page fetched) at least every
 * INGEST_OVERDUE_INTERVALS intervals; before its first, the clock starts when this process did.
 */
function ingestCheck(
  database: DatabaseCheck,
  intervalMs: number | null,
  startedAt: Date,
  now: Date,
): { ok: boolean; scheduled: boolean; last_progress_at: string | null; detail?: string } {
  const last = database.facts?.ingestProgressAt ?? null;
  if (intervalMs === null) return { ok: true, scheduled: false, last_progress_at: last };
  if (!database.ok)
    return {
      ok: false,
      scheduled: true,
      last_progress_at: null,
      detail: 'unknown while the database is unavailable',
    };
  const since = last ? new Date(last) : startedAt;
  const waitedMs = now.getTime() - since.getTime();
  if (waitedMs <= INGEST_OVERDUE_INTERVALS * intervalMs)
    return { ok: true, scheduled: true, last_progress_at: last };
  const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;
  return {
    ok: false,
    scheduled: true,
    last_progress_at: last,
    detail:
      `the scheduled ingest has saved no progress for ${minutes(waitedMs)} (schedule: every ${minutes(intervalMs)}): ` +
      'is a worker running, and does USASpending answer? See the worker log.',
  };
}

/**
 * What the version's stored study (the Evidence page's) says: its top − bottom contrast beside the
 * shifted-date placebos, and the verdict in words; null before the version was studied (the Evidence
 * page's first view or `market-intel evaluate` studies it).
 */
function engineEvidence(name: string, study: StudyVerdict | undefined) {
  const p = study?.placebo;
  if (!study || !p) return null;
  return {
    verdict: p.verdict,
    evidence: p.evidence,
    benchmark: p.benchmark,
    horizon_days: p.horizon,
    top_minus_bottom: p.real.diff,
    t: p.real.t,
    contracts: p.real.n,
    dates: p.real.dates,
    placebo_percentile: p.percentile,
    within_company: { top_minus_bottom: p.demeaned.diff, t: p.demeaned.t },
    computed_at: new Date(study.computed_at).toISOString(),
    page: `/dashboard/#/evidence?engine=${encodeURIComponent(name)}`,
  };
}

/**
 * With ANNOUNCEMENTS_LIVE on, the live poll must have seen the release of the last business day that
 * has passed (its evening window closed). Reported, not judged: a failing outside site must not take
 * the API out of a load balancer, so this never makes /health 503 — alert on `announcements.ok`.
 */
function announcementsCheck(database: DatabaseCheck, live: boolean, now: Date) {
  const state = database.facts?.announcements ?? null;
  const report = {
    live,
    last_page_date: state?.lastPageDate ?? null,
    last_page_url: state?.lastPageUrl ?? null,
    last_poll_at: state?.lastPollAt ?? null,
    last_success_at: state?.lastSuccessAt ?? null,
    last_error: state?.lastError ?? null,
    last_error_at: state?.lastErrorAt ?? null,
    last_refused_at: state?.lastRefusedAt ?? null,
    next_run_at: state?.nextRunAt ?? null,
  };
  if (!live) return { ok: true, ...report };
  if (!database.ok) return { ok: false, ...report, detail: 'unknown while the database is unavailable' };
  if (!state?.lastPollAt) return { ok: true, ...report, detail: 'no poll yet' };
  const expected = lastExpectedRelease(now);
  if (state.lastPageDate && state.lastPageDate >= expected) return { ok: true, ...report };
  const refused = state.lastRefusedAt !== null && state.lastRefusedAt === state.lastErrorAt;
  return {
    ok: false,
    ...report,
    detail:
      `no release for ${expected} seen (newest: ${state.lastPageDate ?? 'none'})` +
      (refused
        ? ': the site refuses this service (403); send the requests through a proxy (HTTPS_PROXY or DOD_CONTRACTS_PROXY), see docs/OPERATIONS.md'
        : state.lastError
          ? `; last error: ${state.lastError}`
          : ': is a poller running (serve or worker with ANNOUNCEMENTS_LIVE=on)?'),
  };
}

export interface HealthSources {
  db: Db;
  limiter: RateLimiter;
  /** The USASpending base URL whose scheduled ingest is watched; null when no ingest is scheduled. */
  ingestBaseUrl: string | null;
  /** The ingest schedule's interval; null when none is set. */
  ingestIntervalMs: number | null;
  /** Whether ANNOUNCEMENTS_LIVE polls DoD's feed (somewhere in the cluster). */
  announcementsLive: boolean;
  /** When this process started: the scheduled ingest's clock before its first progress. */
  startedAt: Date;
  now: () => Date;
}

/** Whether this instance can serve, component by component; `failing` names those that are not ok. */
export async function checkHealth(sources: HealthSources) {
  const { db, limiter, now } = sources;
  const database = await databaseCheck(db, sources.ingestBaseUrl);
  const webhooks = webhooksCheck(database);
  const ingest = ingestCheck(database, sources.ingestIntervalMs, sources.startedAt, now());
  const announcements = announcementsCheck(database, sources.announcementsLive, now());
  const limits = limiter.state?.() ?? { ok: true, store: 'memory' };
  const failing = [
    ...(database.ok ? [] : ['db' as const]),
    ...(limits.ok ? [] : ['limiter' as const]),
    // Only when the database answered: otherwise `db` already says what is wrong.
    ...(database.ok && !webhooks.ok ? ['webhooks' as const] : []),
    ...(database.ok && !ingest.ok ? ['ingest' as const] : []),
  ];
  const studies = database.facts?.studies ?? [];
  const engines = ENGINES.map(({ name, version, tier }) => ({
    name,
    version,
    tier,
    evidence: engineEvidence(
      name,
      studies.find((s) => s.engine === name && s.version === version),
    ),
  }));
  return {
    ok: failing.length === 0,
    failing,
    db: database.ok ? { ok: true } : { ok: false, detail: database.detail },
    limiter: limits,
    webhooks,
    ingest,
    announcements,
    engines,
    now: now().toISOString(),
  };
}
