import { awardIngest } from '../../services/ingest.ts';
import { access, idempotent } from '../access.ts';
import { errorResponses, IdempotencyHeaders, Query } from '../schemas/common.ts';
import { IngestBody, IngestCounts, MAX_AWARDS_PER_CALL } from '../schemas/ingest.ts';
import type { App, Services } from '../types.ts';

const ingestSchema = {
  tags: ['admin'],
  summary: `Ingest up to ${MAX_AWARDS_PER_CALL} award records through the pipeline`,
  description:
    'Upserts by award id (a changed record updates its contract and rescoring updates its signal rows), ' +
    'resolves, classifies, places in the regime and scores with every engine. Bad records are skipped ' +
    'and listed in `rejected` with their index; a repeated id keeps the record modified last.',
  querystring: Query({}),
  headers: IdempotencyHeaders,
  body: IngestBody,
  response: { 200: IngestCounts, ...errorResponses(400, 413, 415) },
};

/** Awards through the pipeline in this process, each call under one shared pipeline context. */
export function registerAdminIngest(app: App, { db, config, now, metrics }: Services): void {
  const ingest = awardIngest({ db, signalThreshold: config.signalThreshold, now });
  app.post(
    '/api/v1/admin/ingest',
    { config: idempotent(access.admin), bodyLimit: 32 * 1024 * 1024, schema: ingestSchema },
    async (request) => {
      const counts = await ingest(request.body.awards);
      metrics.ingested('admin', { ...counts, rejected: counts.rejected.length });
      return counts;
    },
  );
}
