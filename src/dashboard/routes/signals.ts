import { Type } from 'typebox';
import { CLASSIFICATION_LABELS } from '../../domain/types.ts';
import { access } from '../../http/access.ts';
import { sendJson } from '../../http/json-body.ts';
import { checkDateRange, upper } from '../../http/params.ts';
import {
  DateString,
  EngineParam,
  Limit,
  Offset,
  Query,
  StringEnum,
  TickerParam,
} from '../../http/schemas/common.ts';
import type { App, Services } from '../../http/types.ts';
import { signalsJson } from '../../store/signals.ts';
import { engineChoices, sessionEngine, sessionShowsRationale } from '../tiers.ts';

export const SignalsQuery = Query({
  engine: Type.Optional(EngineParam),
  min_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  ticker: Type.Optional(TickerParam),
  classification: Type.Optional(StringEnum(CLASSIFICATION_LABELS)),
  from: Type.Optional(DateString('Award date on or after.')),
  to: Type.Optional(DateString('Award date on or before.')),
  since: Type.Optional(Type.String({ format: 'date-time' })),
  limit: Limit(200, 50),
  offset: Offset,
});

/**
 * The Explorer's signals: the API's `/api/v1/signals` list (same store query, same ranking) under the
 * signed-in user's plan tier, with the contract filters a person browses by (classification, award
 * dates). `since` (computed_at) is what the page asks after a live notification.
 */
export function registerSignals(app: App, { db }: Services): void {
  app.get(
    '/dashboard/api/signals',
    { config: access.user, schema: { querystring: SignalsQuery } },
    async (request, reply) => {
      const q = request.query;
      checkDateRange(q.from, q.to);
      const engine = sessionEngine(request, q.engine);
      const list = await signalsJson(db, {
        engine: engine.name,
        engineVersion: engine.version,
        withRationale: sessionShowsRationale(request),
        minScore: q.min_score,
        ticker: upper(q.ticker),
        classification: q.classification,
        awardFrom: q.from,
        awardTo: q.to,
        since: q.since,
        limit: q.limit,
        offset: q.offset,
      });
      const about = {
        engine: engine.name,
        version: engine.version,
        engines: engineChoices(request),
        classifications: CLASSIFICATION_LABELS,
      };
      return sendJson(
        reply,
        // Paged by offset ("Load more"): the dashboard's list takes no cursor.
        `${JSON.stringify(about).slice(0, -1)},"data":${list.json},"pagination":${JSON.stringify({ limit: q.limit, offset: q.offset, count: list.count })}}`,
      );
    },
  );
}
