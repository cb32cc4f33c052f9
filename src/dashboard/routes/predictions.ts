import { access } from '../../http/access.ts';
import { sendJson } from '../../http/json-body.ts';
import { Query } from '../../http/schemas/common.ts';
import type { App, Services } from '../../http/types.ts';
import { predictionTrack } from '../../services/predictions.ts';
import { requireSessionTier } from '../plan-tier.ts';

/** Predictions shown on the Evidence page's track record: the newest first, at most this many. */
export const TRACK_LIMIT = 1000;

/**
 * The prediction engine's public track record for the Evidence page: the newest stored predictions with
 * their outcomes, and the model block of GET /api/v1/predictions. Intelligence tier, as on the API.
 */
export function registerPredictions(app: App, { db }: Services): void {
  app.get(
    '/dashboard/api/predictions',
    { config: access.user, schema: { querystring: Query({}) } },
    async (request, reply) => {
      requireSessionTier(request, 'intelligence', 'predictions');
      return sendJson(reply, JSON.stringify(await predictionTrack(db, TRACK_LIMIT)));
    },
  );
}
