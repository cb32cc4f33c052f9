import type { ServerResponse } from 'node:http';
import { access } from '../../http/access.ts';
import { errors } from '../../http/errors.ts';
import type { App, Services } from '../../http/types.ts';
import { CHANNELS } from '../../store/notifications.ts';

/** Open streams per process; past it a new one is refused with 503 (the page then polls). */
export const MAX_STREAMS = 1000;
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
 * starts one (the page polls until `resync`).
 */
export function registerSignalStream(app: App, { now }: Services): void {
  const open = new Set<ServerResponse>();
  // Streams never end by themselves: closing the server ends them first, else it would wait forever.
  app.addHook('preClose', (done) => {
    for (const res of open) res.end();
    done();
  });

  app.get('/dashboard/api/signal-stream', { config: access.user }, (_request, reply) => {
    const bus = app.caches.bus;
    if (open.size >= MAX_STREAMS) throw errors.busy();
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
    open.add(res);
    res.on('close', () => {
      open.delete(res);
      clearInterval(keepalive);
      for (const stop of unsubscribe) stop();
      // The client went away: a half-closed socket would otherwise be kept, and hold up the server's close.
      res.destroy();
    });
    send('ready', { live: bus?.healthy ?? false });
  });
}
