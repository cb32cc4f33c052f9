import { revokeKey } from '../../store/accounts.ts';
import { access } from '../access.ts';
import { errors } from '../errors.ts';
import { KeyResponse } from '../schemas/accounts.ts';
import { errorResponses, IdParams, Query } from '../schemas/common.ts';
import type { App, Handler, Services } from '../types.ts';

const revokeSchema = {
  tags: ['admin'],
  summary: 'Revoke a key; requests with it get 401 at once',
  params: IdParams('Key'),
  querystring: Query({}),
  response: { 200: KeyResponse, ...errorResponses(400, 404) },
};

export function registerAdminKeys(app: App, services: Services): void {
  app.delete('/api/v1/admin/keys/:id', { config: access.admin, schema: revokeSchema }, revoke(services));
}

function revoke({ db, now }: Services): Handler<typeof revokeSchema> {
  return async (request) => {
    const key = await revokeKey(db, request.params.id, now());
    if (!key) throw errors.keyNotFound(request.params.id);
    return { key };
  };
}
