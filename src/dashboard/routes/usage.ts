import { Type } from 'typebox';
import { access } from '../../http/access.ts';
import { UsageWindow } from '../../http/schemas/accounts.ts';
import { signedIn } from '../../http/session-auth.ts';
import type { App, Services } from '../../http/types.ts';
import { listKeys } from '../../store/accounts.ts';
import { usageSeries } from '../../store/usage.ts';

const UsageQuery = Type.Object({ window: { ...UsageWindow, default: '24h' } as typeof UsageWindow });

/** Each of the user's keys with its requests and errors over the window. */
export function registerUsage(app: App, { db, now, usage }: Services): void {
  app.get(
    '/dashboard/api/usage',
    { config: access.user, schema: { querystring: UsageQuery } },
    async (request) => {
      const keys = await listKeys(db, signedIn(request).user.id);
      await usage.flush();
      const series = await Promise.all(
        keys.map((key) => usageSeries(db, key.id, request.query.window, now())),
      );
      return { window: request.query.window, data: keys.map((key, i) => ({ key, usage: series[i] })) };
    },
  );
}
