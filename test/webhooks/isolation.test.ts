/**
 * One receiver's trouble stays its own: a hanging receiver holds a few attempts and then only slots of
 * the slow lane; a failing one goes one attempt at a time and is backed off; one that fails without a
 * break for WEBHOOK_SUSPEND_AFTER is suspended until its owner re-enables it (API and dashboard).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { SUSPENDED_ERROR, type Webhook } from '../../src/store/webhooks.ts';
import { DeliveryWorker } from '../../src/webhooks/worker.ts';
import { makeKey, withKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';
import { enqueue, makeWebhook, testResolver, waitUntil, webhookConfig } from './helpers.ts';
import { type Certificate, makeCertificate, type Receiver, startReceiver } from './receiver.ts';

let certificate: Certificate;
let receiver: Receiver;
let db: Db;
/** Per path: requests open right now, and the most ever open at once. */
const open = new Map<string, number>();
const peak = new Map<string, number>();
/** Status per path prefix; a `hang` path is held far past the timeout. */
const answers = new Map<string, number>();

before(async () => {
  certificate = makeCertificate();
  receiver = await startReceiver(certificate, (request) => {
    const path = request.path;
    const now = (open.get(path) ?? 0) + 1;
    open.set(path, now);
    peak.set(path, Math.max(peak.get(path) ?? 0, now));
    if (path.startsWith('/hang')) return { status: 200, delayMs: 60_000 };
    // Answered at once: no longer open once the response is written (the delay is 0).
    setImmediate(() => open.set(path, (open.get(path) ?? 1) - 1));
    return { status: answers.get(path) ?? 200 };
  });
  db = await freshDb();
});
after(async () => {
  await receiver.close();
  await db.close();
  certificate.cleanup();
});

async function withWorker<T>(config: Config, concurrency: number, fn: () => Promise<T>): Promise<T> {
  const worker = new DeliveryWorker({ db, config, resolve: testResolver, pollMs: 50, concurrency });
  await worker.start();
  try {
    return await fn();
  } finally {
    await worker.stop();
  }
}

const webhookRow = async (id: string) =>
  (await db.query<Webhook>('SELECT * FROM webhooks WHERE id = $1', [id]))[0];

describe('a hanging receiver', () => {
  test('holds at most its allowance of attempts, and healthy receivers are served meanwhile', async () => {
    const config = webhookConfig(certificate, { WEBHOOK_TIMEOUT_MS: '5000' });
    const hanging = await makeWebhook(db, config, `${receiver.url}/hang/a`);
    const healthy = await makeWebhook(db, config, `${receiver.url}/fine/a`);
    // The hanging receiver's deliveries come first in the outbox.
    await enqueue(
      db,
      hanging.webhookId,
      Array.from({ length: 10 }, (_, i) => ({ i })),
    );
    await enqueue(
      db,
      healthy.webhookId,
      Array.from({ length: 20 }, (_, i) => ({ i })),
    );
    const started = Date.now();
    await withWorker(config, 2, async () => {
      await receiver.waitFor(20, (r) => r.path === '/fine/a', 4_900);
      const tookMs = Date.now() - started;
      // Two slots, both first taken by hanging attempts: they give the slots back after a second in
      // the slow lane, long before their 8 s timeout.
      assert.ok(
        tookMs < 6_000,
        `healthy deliveries done in ${tookMs} ms, before the hanging attempts' timeout`,
      );
      assert.equal(peak.get('/hang/a'), 4, 'at most 4 attempts at once to one endpoint');
    });
  });
});

describe('a failing receiver', () => {
  test('goes one attempt at a time, is backed off from the third failure, and recovers on a success', async () => {
    const config = webhookConfig(certificate, { WEBHOOK_RETRY_SCHEDULE: '300ms,600ms,600ms,600ms,600ms' });
    const failing = await makeWebhook(db, config, `${receiver.url}/fail/b`);
    answers.set('/fail/b', 500);
    const deliveries = await enqueue(
      db,
      failing.webhookId,
      Array.from({ length: 8 }, (_, i) => ({ i })),
    );
    await withWorker(config, 8, async () => {
      await waitUntil(
        'three failures in a row',
        async () => ((await webhookRow(failing.webhookId))?.failure_streak ?? 0) >= 3,
      );
      const row = await webhookRow(failing.webhookId);
      assert.ok(row?.failing_since, 'the streak has a start');
      assert.ok(row?.retry_at, 'backed off from the third failure');
      const waiting = await db.query<{ next_attempt_at: string }>(
        "SELECT next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'",
        [failing.webhookId],
      );
      assert.ok(waiting.length >= 5);
      for (const d of waiting)
        assert.ok(
          Date.parse(d.next_attempt_at) >= Date.parse(row.retry_at ?? ''),
          'every waiting delivery waits for the endpoint',
        );
      answers.set('/fail/b', 200);
      await waitUntil(
        'every delivery succeeded',
        async () =>
          (
            await db.query(
              "SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
              [failing.webhookId],
            )
          ).length === deliveries.length,
        20_000,
      );
    });
    // The first attempts may overlap (the endpoint was healthy); failing, it got one at a time.
    const attempts = await db.query<{ started_at: string; duration_ms: number; status_code: number }>(
      `SELECT a.started_at, a.duration_ms, a.status_code FROM webhook_attempts a
       JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1 ORDER BY a.started_at`,
      [failing.webhookId],
    );
    const firstFailureEnd = attempts
      .filter((a) => a.status_code === 500)
      .map((a) => Date.parse(a.started_at) + a.duration_ms)
      .sort((a, b) => a - b)[0];
    assert.ok(firstFailureEnd);
    const later = attempts.filter((a) => Date.parse(a.started_at) > firstFailureEnd + 50);
    assert.ok(later.length >= 3);
    for (let i = 1; i < later.length; i++) {
      const previous = later[i - 1];
      const current = later[i];
      if (!previous || !current || previous.status_code === 200) continue;
      assert.ok(
        Date.parse(current.started_at) >= Date.parse(previous.started_at) + previous.duration_ms - 5,
        'while failing, an attempt starts only once the previous one ended',
      );
    }
    const healed = await webhookRow(failing.webhookId);
    assert.equal(healed?.failure_streak, 0);
    assert.equal(healed?.failing_since, null);
    assert.equal(healed?.retry_at, null);
  });
});

describe('a receiver failing without a break', () => {
  let app: App;
  const config = () =>
    webhookConfig(certificate, {
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms',
      WEBHOOK_SUSPEND_AFTER: '1s',
    });
  before(async () => {
    app = await buildApp({ config: config(), db, logger: false, webhooks: { resolve: testResolver } });
    await app.ready();
  });
  after(() => app.close());

  test('is suspended: waiting deliveries fail, resends are refused, its owner sees it and re-enables it', async () => {
    const key = await makeKey(db, { plan: 'developer', scopes: ['read', 'write'] });
    const client = withKey(app, key.raw);
    const created = await client.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: `https://receiver.test:${receiver.port}/fail/c` },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ webhook: { id: string } }>().webhook.id;
    answers.set('/fail/c', 503);
    const deliveries = await enqueue(
      db,
      id,
      Array.from({ length: 30 }, (_, i) => ({ i })),
    );

    await withWorker(config(), 4, () =>
      waitUntil('suspension', async () => (await webhookRow(id))?.suspended_at != null, 20_000),
    );
    const listed = await client.inject({ url: '/api/v1/webhooks' });
    const [shown] = listed.json<{ data: (Webhook & { status: string })[] }>().data;
    assert.equal(shown?.status, 'suspended');
    assert.ok(shown?.failing_since && shown.suspended_at && shown.failure_streak > 0);
    const states = await db.query<{ status: string; last_error: string }>(
      'SELECT status, last_error FROM webhook_deliveries WHERE webhook_id = $1',
      [id],
    );
    assert.equal(states.length, deliveries.length);
    assert.ok(
      states.every((d) => d.status === 'failed'),
      'nothing waits for a suspended endpoint',
    );
    assert.ok(states.some((d) => d.last_error === SUSPENDED_ERROR));

    const adminKey = (await makeKey(db, { admin: true, scopes: ['admin'] })).raw;
    const scrape = await app.inject({ url: '/metrics', headers: { 'x-api-key': adminKey } });
    assert.equal(scrape.statusCode, 200, scrape.body);
    const suspendedSeries = scrape.body
      .split('\n')
      .find((l) => l.startsWith('market_intel_webhooks{status="suspended"}'));
    assert.ok(Number(suspendedSeries?.split(' ')[1]) >= 1, 'operators see it in /metrics');

    const first = deliveries[0]?.id;
    const refused = await client.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${first}/resend`,
    });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json<{ error: { message: string } }>().error.message, /suspended.*re-enable/);

    // The dashboard tells its owner on every page and offers the way back.
    const session = await openSession(db, key.userId, new Date());
    const cookie = `${SESSION_COOKIE}=${session.token}`;
    const me = await app.inject({ url: '/dashboard/api/me', headers: { cookie } });
    assert.equal(me.json<{ suspended_webhooks: number }>().suspended_webhooks, 1);
    const enabled = await app.inject({
      method: 'POST',
      url: `/dashboard/api/webhooks/${id}/enable`,
      headers: { cookie, 'x-csrf-token': session.csrfToken },
    });
    assert.equal(enabled.statusCode, 200, enabled.body);
    assert.equal(enabled.json<{ webhook: { status: string } }>().webhook.status, 'active');
    const after = await app.inject({ url: '/dashboard/api/me', headers: { cookie } });
    assert.equal(after.json<{ suspended_webhooks: number }>().suspended_webhooks, 0);

    answers.set('/fail/c', 200);
    const resent = await client.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${first}/resend`,
    });
    assert.equal(resent.statusCode, 202, resent.body);
    await withWorker(config(), 4, () =>
      waitUntil(
        'the resend succeeded',
        async () =>
          (await db.query("SELECT 1 FROM webhook_deliveries WHERE id = $1 AND status = 'succeeded'", [first]))
            .length === 1,
      ),
    );
  });

  test('enable: 404 for an unknown or foreign webhook, 409 for a deleted one, and the write scope', async () => {
    const owner = await makeKey(db, { plan: 'developer', scopes: ['read', 'write'] });
    const other = withKey(app, (await makeKey(db, { plan: 'developer', scopes: ['read', 'write'] })).raw);
    const readOnly = withKey(app, (await makeKey(db, { plan: 'developer', scopes: ['read'] })).raw);
    const created = await withKey(app, owner.raw).inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: `https://receiver.test:${receiver.port}/fine/d` },
    });
    const id = created.json<{ webhook: { id: string } }>().webhook.id;
    const enable = (client: typeof other, what = id) =>
      client.inject({ method: 'POST', url: `/api/v1/webhooks/${what}/enable` });
    assert.equal((await enable(other)).statusCode, 404, "another user's webhook is not found");
    assert.equal((await enable(other, crypto.randomUUID())).statusCode, 404);
    assert.equal((await enable(other, 'not-a-uuid')).statusCode, 400);
    assert.equal((await enable(readOnly)).statusCode, 403);
    const mine = withKey(app, owner.raw);
    const fine = await enable(mine);
    assert.equal(fine.statusCode, 200, 'enabling a healthy webhook is harmless');
    assert.equal(fine.json<{ webhook: { status: string } }>().webhook.status, 'active');
    assert.equal((await mine.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}` })).statusCode, 200);
    assert.equal((await enable(mine)).statusCode, 409);
  });
});
