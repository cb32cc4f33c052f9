import { Type } from 'typebox';
import { access } from '../../http/access.ts';
import { sendJson } from '../../http/json-body.ts';
import { EngineParam, Query } from '../../http/schemas/common.ts';
import type { App, Services } from '../../http/types.ts';
import { eventStudy } from '../../services/evidence.ts';
import { engineChoices, sessionEngine } from '../tiers.ts';

export const EvidenceQuery = Query({ engine: Type.Optional(EngineParam) });

/**
 * The event study of an engine's current version (docs/EVALUATION.md §4), as stored by `evaluate` or
 * by the first request for the version. An engine above the user's tier is a 403, as on the API.
 */
export function registerEvidence(app: App, { db, now }: Services): void {
  app.get(
    '/dashboard/api/evidence',
    { config: access.user, schema: { querystring: EvidenceQuery } },
    async (request, reply) => {
      const engine = sessionEngine(request, request.query.engine);
      const { study, contractsNow } = await eventStudy(db, engine.name, engine.version, now);
      const about = {
        engine: engine.name,
        version: engine.version,
        engines: engineChoices(request),
        computed_at: study.computedAt,
        contracts: study.contracts,
        contracts_now: contractsNow,
      };
      // The summary is stored as JSON text and sent as it is.
      return sendJson(reply, `${JSON.stringify(about).slice(0, -1)},"study":${study.summary}}`);
    },
  );
}
