import { listUnmatched } from '../../store/unmatched.ts';
import { access } from '../access.ts';
import { errorResponses, Limit, Offset, Query } from '../schemas/common.ts';
import { UnmatchedList } from '../schemas/ingest.ts';
import type { App, Services } from '../types.ts';

const listSchema = {
  tags: ['admin'],
  summary: 'Recipients no ticker was found for, largest total value first (for alias curation)',
  querystring: Query({ limit: Limit(1000, 100), offset: Offset }),
  response: { 200: UnmatchedList, ...errorResponses(400) },
};

export function registerAdminUnmatchedRecipients(app: App, { db }: Services): void {
  app.get(
    '/api/v1/admin/unmatched-recipients',
    { config: access.admin, schema: listSchema },
    async (request) => {
      const { limit, offset } = request.query;
      const data = await listUnmatched(db, { limit, offset });
      return { data, pagination: { limit, offset, count: data.length } };
    },
  );
}
