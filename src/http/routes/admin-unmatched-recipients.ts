import { Type } from 'typebox';
import { KEYSETS } from '../../store/keyset.ts';
import { listUnmatched } from '../../store/unmatched.ts';
import { access } from '../access.ts';
import { pageStart, rowsBody } from '../paging.ts';
import { Cursor, errorResponses, Limit, Offset, Query } from '../schemas/common.ts';
import { UnmatchedList } from '../schemas/ingest.ts';
import type { App, Services } from '../types.ts';

const listSchema = {
  tags: ['admin'],
  summary: 'Recipients no ticker was found for, largest total value first (for alias curation)',
  querystring: Query({ limit: Limit(1000, 100), offset: Offset, cursor: Type.Optional(Cursor) }),
  response: { 200: UnmatchedList, ...errorResponses(400) },
};

export function registerAdminUnmatchedRecipients(app: App, { db }: Services): void {
  app.get(
    '/api/v1/admin/unmatched-recipients',
    { config: access.admin, schema: listSchema },
    async (request, reply) => {
      const { limit, offset } = request.query;
      const page = await listUnmatched(db, { limit, offset, after: pageStart(request, KEYSETS.unmatched) });
      return rowsBody(request, reply, KEYSETS.unmatched, page);
    },
  );
}
