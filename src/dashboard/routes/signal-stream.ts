import { access } from '../../http/access.ts';
import { signedIn } from '../../http/session-auth.ts';
import type { App, Services } from '../../http/types.ts';
import { CHANNELS } from '../../store/notifications.ts';
import { readCookie, SESSION_COOKIE, sessionHash } from '../sessions.ts';
import type { EndReason, SessionStreams } from '../streams.ts';

/** A comment line this often keeps proxies from closing an idle stream and finds dead sockets. */
export const KEEPALIVE_MS = 25_000;

/**
 * Server-sent events for the Explorer's live signals: `signals` each time a transaction that wrote
 * signals commits (the `mi_data` notification of migration 015's trigger, which the response cache
 * also listens to), so the page asks `/dashboard/api/signals?since=…` for what is new. Carries no data
 * beyond the moment: what the user may see is decided by that request, under their tier.
 *
 * `ready` opens the stream (`live`: whether notifications arrive now); `resync` follows a lapse of the
 * notification connection (notifications sent meanwhile are lost, so the page re-reads), `degraded`
 * starts one (the page polls until `resync`). `end` (`reason`: `signed_out`, `expired`, `shutdown`) is
 * the last event when the server ends the stream: its session was signed out or expired (streams.ts).
 */
export function registerSignalStream(app: App, { now }: Services, streams: SessionStreams): void {
  // Streams never end by themselves: closing the server ends them first, else it would wait forever.
  app.addHook('preClose', (done) => {
    streams.endAll();
    done();
  });

  app.get('/dashboard/api/signal-stream', { config: access.user }, (request, reply) => {
    const bus = app.caches.bus;
    const session = signedIn(request);
    streams.admit(session.user.id);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
    });
    const send = (event: string, data: object) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify({ ...data, at: now().toISOString() })}\n\n`);
    const unsubscribe = bus
      ? [
          bus.subscribe(CHANNELS.data, (table) => {
            if (table === 'signals') send('signals', {});
          }),
          bus.onHealthChange((healthy) => send(healthy ? 'resync' : 'degraded', {})),
        ]
      : [];
    const keepalive = setInterval(() => res.write(':\n\n'), KEEPALIVE_MS);
    res.on('close', () => {
      clearInterval(keepalive);
      for (const stop of unsubscribe) stop();
      // The client went away: a half-closed socket would otherwise be kept, and hold up the server's close.
      res.destroy();
    });
    const end = (reason: EndReason) => {
      if (res.writableEnded) return;
      send('end', { reason });
      res.end();
    };
    const token = readCookie(request.headers.cookie, SESSION_COOKIE) ?? '';
    streams.add({ userId: session.user.id, session: sessionHash(token), res, end }, session.expiresAt);
    send('ready', { live: bus?.healthy ?? false });
  });
}
