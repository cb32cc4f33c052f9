import { usageSeries } from '../../store/usage.ts';
import { access } from '../access.ts';
import { Usage, UsageWindow } from '../schemas/accounts.ts';
import { errorResponses, Query } from '../schemas/common.ts';
import type { App, Handler, Services } from '../types.ts';

const usageSchema = {
  tags: ['account'],
  summary: 'Requests and errors (status >= 400) of the calling key over a window',
  querystring: Query({ window: { ...UsageWindow, default: '24h' } as typeof UsageWindow }),
  response: { 200: Usage, ...errorResponses(400) },
};

export function registerUsage(app: App, services: Services): void {
  app.get('/api/v1/usage', { config: access.read, schema: usageSchema }, showUsage(services));
}

function showUsage({ db, now, usage }: Services): Handler<typeof usageSchema> {
  return async (request) => {
    const principal = request.principal;
    if (!principal) throw new Error('keyed route reached without a principal');
    // Counts still in memory are written first, so the answer includes the requests just made.
    await usage.flush();
    return usageSeries(db, principal.id, request.query.window, now());
  };
}
