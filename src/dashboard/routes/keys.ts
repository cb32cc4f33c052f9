import { access, secret } from '../../http/access.ts';
import { errors } from '../../http/errors.ts';
import { NewKeyBody } from '../../http/schemas/accounts.ts';
import { signedIn } from '../../http/session-auth.ts';
import type { App, Services } from '../../http/types.ts';
import { issueKey } from '../../services/accounts.ts';
import { listKeys, revokeOwnKey } from '../../store/accounts.ts';
import { Id } from '../schemas.ts';

export function registerKeys(app: App, { db, now }: Services): void {
  app.get('/dashboard/api/keys', { config: access.user }, async (request) => ({
    data: await listKeys(db, signedIn(request).user.id),
  }));
  app.post(
    '/dashboard/api/keys',
    { config: secret(access.user), schema: { body: NewKeyBody } },
    async (request, reply) => {
      const issued = await issueKey(db, { userId: signedIn(request).user.id, ...request.body });
      return reply.code(201).send(issued);
    },
  );
  app.post(
    '/dashboard/api/keys/:id/revoke',
    { config: access.user, schema: { params: Id } },
    async (request) => {
      const key = await revokeOwnKey(db, request.params.id, signedIn(request).user.id, now());
      if (!key) throw errors.keyNotFound(request.params.id);
      return { key };
    },
  );
}
