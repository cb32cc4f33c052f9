import { Type } from 'typebox';
import { access } from '../../http/access.ts';
import { signedIn } from '../../http/session-auth.ts';
import type { App, Services } from '../../http/types.ts';
import { pollState } from '../../store/announcement-pages.ts';
import { healthFacts } from '../../store/health.ts';

/**
 * Each data source's freshness for the dashboard's Sources page: whether it runs on a schedule, its
 * last success and its next run. The DoD feed's state is the cluster's (announcement_polls); the
 * USASpending schedule's next run is estimated from its last progress and interval. The last error
 * text names addresses of the deployment's configuration, so only administrators see it.
 */
export function registerSources(app: App, { db, config }: Services): void {
  app.get(
    '/dashboard/api/sources',
    { config: access.user, schema: { querystring: Type.Object({}, { additionalProperties: false }) } },
    async (request) => {
      const admin = signedIn(request).user.is_admin;
      const scheduled = config.ingestSchedule;
      const [dod, facts] = await Promise.all([
        pollState(db),
        healthFacts(db, scheduled === null ? null : config.usaspendingBaseUrl),
      ]);
      const progress = facts.ingestProgressAt;
      return {
        data: [
          {
            source: 'dod-feed',
            name: 'DoD contract announcements (live feed)',
            scheduled: config.announcementsLive,
            last_success_at: dod?.lastSuccessAt ?? null,
            next_run_at: config.announcementsLive ? (dod?.nextRunAt ?? null) : null,
            latest: dod?.lastPageDate ?? null,
            last_error_at: dod?.lastErrorAt ?? null,
            last_refused_at: dod?.lastRefusedAt ?? null,
            ...(admin ? { last_error: dod?.lastError ?? null } : {}),
          },
          {
            source: 'usaspending',
            name: 'USASpending awards (scheduled ingest)',
            scheduled: scheduled !== null,
            last_success_at: progress,
            next_run_at:
              scheduled !== null && progress
                ? new Date(Date.parse(progress) + scheduled).toISOString()
                : null,
            latest: null,
            last_error_at: null,
            last_refused_at: null,
          },
        ],
      };
    },
  );
}
