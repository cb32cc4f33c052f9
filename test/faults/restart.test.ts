/**
 * A real PostgreSQL restart under load: an embedded server of its own is stopped and started again
 * (fast shutdown: every session terminated, then crash-free start) while the app serves reads and its
 * webhook worker delivers. Requests during the restart get 503, never 500; the process stays up; the
 * pool and the worker resume by themselves; every delivery ends succeeded (at least once: a send
 * whose outcome could not be recorded is sent again with the same id).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import { type Db, openDb } from '../../src/store/db.ts';
import { type EmbeddedServer, startEmbedded } from '../../src/store/embedded-postgres.ts';
import { migrate } from '../../src/store/migrate.ts';
import { makeKey } from '../support/app.ts';
import { enqueue, makeWebhook, testResolver, webhookConfig } from '../webhooks/helpers.ts';
import { type Certificate, makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.ts';

const DELIVERIES = 150;

describe('PostgreSQL restarted under load', () => {
  let dir: string;
  let server: EmbeddedServer;
  let db: Db;
  let app: App;
  let certificate: Certificate;
  let receiver: Receiver;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mi-restart-'));
    server = await startEmbedded(dir, { noSync: true });
    db = await openDb({ databaseUrl: server.url, dataDir: '' });
    await migrate(db);
    certificate = makeCertificate();
    // Each answer takes a little while, so deliveries are still flowing when the server restarts.
    receiver = await startReceiver(certificate, () => ({ status: 200, delayMs: 20 }));
    app = await buildApp({
      config: webhookConfig(certificate, { WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms' }),
      db,
      logger: false,
      webhooks: { worker: true, resolve: testResolver, pollMs: 50 },
    });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await db?.close();
    await server?.stop();
    await receiver?.close();
    certificate?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test('503 during the restart, then reads and deliveries resume; every delivery succeeds', async (t) => {
    const key = (await makeKey(db, { plan: 'institutional' })).raw;
    const read = async () => {
      const res = await app.inject({ url: '/api/v1/events?limit=1', headers: { 'x-api-key': key } });
      return res.statusCode;
    };
    assert.equal(await read(), 200);
    const hook = await makeWebhook(db, webhookConfig(certificate), `${receiver.url}/restart`);
    const rows = await enqueue(
      db,
      hook.webhookId,
      Array.from({ length: DELIVERIES }, (_, i) => ({ i })),
    );
    await receiver.waitFor(20, (r) => r.path === '/restart', 20_000);

    // Requests keep coming while the server goes down and comes back.
    const statuses: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        statuses.push(await read());
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const stopped = performance.now();
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    server = await startEmbedded(dir, { noSync: true });
    const started = performance.now();
    let backMs = 0;
    while ((await read()) !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (performance.now() - started > 15_000) throw new Error('reads did not recover within 15 s');
    }
    backMs = performance.now() - started;
    reading = false;
    await reader;
    t.diagnostic(
      `restart: down ${Math.round(started - stopped)} ms; reads 200 again ${Math.round(backMs)} ms after the server was up; statuses seen: ${[...new Set(statuses)].join(', ')}`,
    );
    assert.ok(statuses.includes(503), 'the outage was seen as 503');
    assert.ok(
      statuses.every((s) => s === 200 || s === 503),
      `only 200 or 503: ${statuses.join(',')}`,
    );

    const deadline = Date.now() + 30_000;
    for (;;) {
      const [counts] = await db.query<{ succeeded: number; other: number }>(
        `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
                count(*) FILTER (WHERE status <> 'succeeded')::int AS other
         FROM webhook_deliveries WHERE webhook_id = $1`,
        [hook.webhookId],
      );
      if (counts?.succeeded === rows.length) break;
      if (Date.now() > deadline) throw new Error(`deliveries: ${JSON.stringify(counts)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ids = receiver.received
      .filter((r) => r.path === '/restart')
      .map((r) => String(r.headers['x-service-delivery']));
    const distinct = new Set(ids);
    assert.equal(distinct.size, rows.length, 'every delivery arrived');
    t.diagnostic(
      `deliveries: ${rows.length} succeeded; ${ids.length - distinct.size} sent again after the restart`,
    );
  });
});
