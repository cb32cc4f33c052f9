import { access } from '../../http/access.ts';
import type { App, Services } from '../../http/types.ts';
import { closeSession, readCookie, SESSION_COOKIE, sessionCookie } from '../sessions.ts';

export function registerSignout(app: App, { db }: Services): void {
  app.post('/dashboard/api/signout', { config: access.anySession }, async (request, reply) => {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (token) await closeSession(db, token);
    reply.header('set-cookie', sessionCookie('', request.protocol === 'https', 0));
    return reply.code(204).send();
  });
}
