import { Type } from 'typebox';
import { PLAN_LIMITS } from '../../domain/plans.ts';
import { access } from '../../http/access.ts';
import { UsageWindow } from '../../http/schemas/accounts.ts';
import { signedIn } from '../../http/session-auth.ts';
import type { App, Services } from '../../http/types.ts';
import { listKeys } from '../../store/accounts.ts';
import { type UsageSeries, usageSeries } from '../../store/usage.ts';

const UsageQuery = Type.Object({ window: { ...UsageWindow, default: '24h' } as typeof UsageWindow });

/**
 * Each of the user's keys with its requests and errors over the window, and the user's own dashboard
 * reads (src/dashboard/meter.ts) with their allowance per minute.
 */
export function registerUsage(app: App, { db, now, usage }: Services): void {
  app.get(
    '/dashboard/api/usage',
    { config: access.user, schema: { querystring: UsageQuery } },
    async (request) => {
      const { user } = signedIn(request);
      const keys = await listKeys(db, user.id);
      await usage.flush();
      const [mine, ...series] = await Promise.all(
        [user.id, ...keys.map((key) => key.id)].map((id) => usageSeries(db, id, request.query.window, now())),
      );
      const { key_id: _user, ...dashboard } = mine as UsageSeries;
      return {
        window: request.query.window,
        data: keys.map((key, i) => ({ key, usage: series[i] })),
        dashboard: { per_minute: PLAN_LIMITS[user.plan].dashboardRpm, usage: dashboard },
      };
    },
  );
}
