import { access } from '../../http/access.ts';
import type { App, Services } from '../../http/types.ts';
import { closeSession, readCookie, SESSION_COOKIE, sessionCookie, sessionHash } from '../sessions.ts';
import type { SessionStreams } from '../streams.ts';

/** Ends the session: its row, its cookie, and its event streams in this process (others re-check). */
export function registerSignout(app: App, { db }: Services, streams: SessionStreams): void {
  app.post('/dashboard/api/signout', { config: access.anySession }, async (request, reply) => {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (token) {
      await closeSession(db, token);
      streams.endSession(sessionHash(token));
    }
    reply.header('set-cookie', sessionCookie('', request.protocol === 'https', 0));
    return reply.code(204).send();
  });
}
