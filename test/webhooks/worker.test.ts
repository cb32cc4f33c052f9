import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { verifyWebhook } from '../../src/domain/signature.ts';
import type { Db } from '../../src/store/db.ts';
import { listAttempts } from '../../src/store/webhooks.ts';
import { Sender } from '../../src/webhooks/delivery.ts';
import { resendDelivery } from '../../src/webhooks/service.ts';
import { type HostResolver, TargetPolicy } from '../../src/webhooks/target.ts';
import { DeliveryWorker } from '../../src/webhooks/worker.ts';
import { freshDb } from '../support/db.ts';
import {
  enqueue,
  makeWebhook,
  statusOf,
  testResolver,
  waitUntil,
  webhookConfig,
  webhookContext,
} from './helpers.ts';
import { type Certificate, makeCertificate, type Receiver, startReceiver } from './receiver.ts';

let certificate: Certificate;
let receiver: Receiver;
let db: Db;
let config: Config;

before(async () => {
  certificate = makeCertificate();
  receiver = await startReceiver(certificate);
  db = await freshDb();
  config = webhookConfig(certificate);
});
after(async () => {
  await receiver.close();
  await db.close();
  certificate.cleanup();
});

/** Runs `workers` delivery workers while fn runs. */
async function withWorkers<T>(
  workers: number,
  fn: () => Promise<T>,
  resolve: HostResolver = testResolver,
): Promise<T> {
  const running = Array.from(
    { length: workers },
    () => new DeliveryWorker({ db, config, resolve, pollMs: 100 }),
  );
  await Promise.all(running.map((w) => w.start()));
  try {
    return await fn();
  } finally {
    await Promise.all(running.map((w) => w.stop()));
  }
}

const sender = (resolve: HostResolver) =>
  new Sender({
    policy: new TargetPolicy(config.webhookAllowCidrs),
    resolve,
    timeoutMs: config.webhookTimeoutMs,
    caFile: config.webhookCaFile,
  });

describe('sending one attempt', () => {
  test('POSTs exactly the documented headers, signed, to the vetted address with the host name as SNI', async () => {
    const s = sender(testResolver);
    const body = '{"event":"signal.created","data":{},"ts":1}';
    const result = await s.send({
      url: `https://receiver.test:${receiver.port}/hooks/sni`,
      event: 'signal.created',
      deliveryId: '6f1c2f52-6f0e-4a43-9b7b-2f4f3c0f6a11',
      eventId: '0b8e5f0c-3c55-4c43-a7b6-0f4a1f7de001',
      secrets: ['whsec_x'],
      body,
    });
    await s.close();
    assert.equal(result.ok, true, result.error ?? '');
    const got = receiver.received.find((r) => r.path === '/hooks/sni');
    assert.ok(got);
    assert.equal(got.servername, 'receiver.test');
    assert.equal(got.headers.host, `receiver.test:${receiver.port}`);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'ServiceWebhook/1.0');
    assert.equal(got.headers['x-service-event'], 'signal.created');
    assert.equal(got.headers['x-service-delivery'], '6f1c2f52-6f0e-4a43-9b7b-2f4f3c0f6a11');
    assert.equal(got.body, body);
    assert.equal(verifyWebhook(got.body, String(got.headers['x-service-signature']), 'whsec_x').ok, true);
  });

  test('DNS rebinding: refused at connection when the name now resolves to a private address', async () => {
    const rebound: HostResolver = async () => [{ address: '10.0.0.5', family: 4 }];
    const s = sender(rebound);
    const before = receiver.received.length;
    const result = await s.send({
      url: 'https://rebind.test/hook',
      event: 'e',
      deliveryId: 'd',
      eventId: 'e',
      secrets: ['s'],
      body: '{}',
    });
    await s.close();
    assert.equal(result.ok, false);
    assert.equal(result.error, 'refused: rebind.test resolves to 10.0.0.5, a private (RFC 1918) address');
    assert.equal(receiver.received.length, before);
  });

  test('refuses a literal private address at send time too, unless allowed', async () => {
    const s = sender(testResolver);
    const result = await s.send({
      url: 'https://10.1.2.3/x',
      event: 'e',
      deliveryId: 'd',
      eventId: 'e',
      secrets: ['s'],
      body: '{}',
    });
    await s.close();
    assert.equal(result.error, 'refused: target address is 10.1.2.3, a private (RFC 1918) address');
  });

  test('a redirect is not followed and a slow receiver times out', async () => {
    receiver.respond = (r) =>
      r.path === '/redirect'
        ? { status: 302 }
        : r.path === '/slow'
          ? { status: 200, delayMs: 2_500 }
          : { status: 200 };
    const s = sender(testResolver);
    const common = { event: 'e', deliveryId: 'd', eventId: 'e', secrets: ['s'], body: '{}' };
    const redirected = await s.send({ url: `${receiver.url}/redirect`, ...common });
    const slow = await s.send({ url: `${receiver.url}/slow`, ...common });
    await s.close();
    receiver.respond = () => ({ status: 200 });
    assert.deepEqual([redirected.statusCode, redirected.error], [302, 'redirect (HTTP 302) not followed']);
    assert.equal(slow.error, 'timeout after 1500 ms');
    assert.ok(slow.durationMs < 2_400);
  });
});

describe('the delivery worker', () => {
  test('retries after the configured schedule: 500, 500, 500, then 200 is four attempts, spaced ≥ schedule', async () => {
    const { webhookId, secret } = await makeWebhook(db, config, `${receiver.url}/flaky`);
    receiver.respond = (r, seen) =>
      r.path === '/flaky' ? { status: seen <= 3 ? 500 : 200 } : { status: 200 };
    const [delivery] = await enqueue(db, webhookId, [{ event: 'signal.created', data: {}, ts: 1 }]);
    assert.ok(delivery);
    const got = await withWorkers(1, async () => {
      const got = await receiver.waitFor(4, (r) => r.path === '/flaky');
      await waitUntil('succeeded', async () => (await statusOf(db, delivery.id))?.status === 'succeeded');
      return got;
    });
    assert.deepEqual(
      got.map((r) => r.status),
      [500, 500, 500, 200],
    );
    const schedule = config.webhookRetryScheduleMs;
    for (let i = 1; i < got.length; i++) {
      const gap = (got[i]?.at ?? 0) - (got[i - 1]?.at ?? 0);
      assert.ok(gap >= (schedule[i - 1] ?? 0), `gap ${i}: ${gap} ms ≥ ${schedule[i - 1]} ms`);
    }
    const ids = new Set(got.map((r) => r.headers['x-service-delivery']));
    assert.deepEqual([...ids], [delivery.id]);
    for (const [i, r] of got.entries()) {
      // Signed at sending time: t is the second the attempt left — after the attempt before it arrived,
      // by its arrival — not the first attempt's. (Bounded by arrivals, not by a tolerance around one: on
      // a loaded machine an attempt can take over a second from its signature to the receiver.)
      const verified = verifyWebhook(r.body, String(r.headers['x-service-signature']), secret, {
        toleranceSec: 60,
        now: r.at,
      });
      const previous = got[i - 1]?.at;
      assert.ok(
        verified.ok &&
          verified.timestamp <= r.at / 1000 &&
          (previous === undefined || verified.timestamp >= Math.floor(previous / 1000)),
        'fresh signature per attempt',
      );
    }
    assert.equal(new Set(got.map((r) => r.body)).size, 1, 'same body bytes every attempt');
    const attempts = await listAttempts(db, delivery.id);
    assert.deepEqual(
      attempts.map((a) => [a.series, a.attempt_no, a.status_code, a.error]),
      [
        [1, 1, 500, 'HTTP 500'],
        [1, 2, 500, 'HTTP 500'],
        [1, 3, 500, 'HTTP 500'],
        [1, 4, 200, null],
      ],
    );
    assert.ok(attempts.every((a) => a.duration_ms !== null && a.duration_ms >= 0));
    assert.deepEqual(await statusOf(db, delivery.id), { status: 'succeeded', attempts: 4 });
  });

  test('a receiver that always fails ends failed after 6 attempts, and a resend starts a new series', async () => {
    const { webhookId } = await makeWebhook(db, config, `${receiver.url}/down`);
    let up = false;
    receiver.respond = (r) => (r.path === '/down' ? { status: up ? 204 : 503 } : { status: 200 });
    const [delivery] = await enqueue(db, webhookId, [{ event: 'signal.created', data: {}, ts: 2 }]);
    assert.ok(delivery);
    await withWorkers(1, () =>
      waitUntil('failed', async () => (await statusOf(db, delivery.id))?.status === 'failed', 15_000),
    );
    assert.deepEqual(await statusOf(db, delivery.id), { status: 'failed', attempts: 6 });
    assert.equal(receiver.received.filter((r) => r.path === '/down').length, 6);
    const [row] = await db.query<{ last_status: number; last_error: string; next_attempt_at: string | null }>(
      'SELECT last_status, last_error, next_attempt_at FROM webhook_deliveries WHERE id = $1',
      [delivery.id],
    );
    assert.deepEqual(row, { last_status: 503, last_error: 'HTTP 503', next_attempt_at: null });

    up = true;
    const resent = await resendDelivery(webhookContext(db, config), delivery.id, null);
    assert.deepEqual(
      [resent.id, resent.status, resent.series, resent.attempts],
      [delivery.id, 'pending', 2, 0],
    );
    await withWorkers(1, () =>
      waitUntil('resent', async () => (await statusOf(db, delivery.id))?.status === 'succeeded'),
    );
    const attempts = await listAttempts(db, delivery.id);
    assert.deepEqual(
      attempts.map((a) => `${a.series}.${a.attempt_no}:${a.status_code}`),
      ['1.1:503', '1.2:503', '1.3:503', '1.4:503', '1.5:503', '1.6:503', '2.1:204'],
    );
    const ids = receiver.received
      .filter((r) => r.path === '/down')
      .map((r) => r.headers['x-service-delivery']);
    assert.deepEqual(new Set(ids), new Set([delivery.id]), 'a resend keeps the delivery id');
  });

  test('many workers share the outbox: every delivery sent, each send its own claim, never two at once', async () => {
    const { webhookId } = await makeWebhook(db, config, `${receiver.url}/crowd`);
    receiver.respond = () => ({ status: 200, delayMs: 5 });
    const deliveries = await enqueue(
      db,
      webhookId,
      Array.from({ length: 120 }, (_, i) => ({ event: 'signal.created', data: { i }, ts: i })),
    );
    await withWorkers(4, () =>
      waitUntil('all succeeded', async () => {
        const [row] = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
          [webhookId],
        );
        return row?.n === 120;
      }),
    );
    const seen = receiver.received
      .filter((r) => r.path === '/crowd')
      .map((r) => String(r.headers['x-service-delivery']));
    assert.deepEqual(new Set(seen), new Set(deliveries.map((d) => d.id)));
    // Normally each is sent once. On a starved machine an attempt can time out after the receiver
    // answered and be retried (at least once); even then every send is a recorded attempt of its own
    // claim, and one delivery's attempts never overlap.
    for (const delivery of deliveries) {
      const attempts = await listAttempts(db, delivery.id);
      assert.ok(seen.filter((id) => id === delivery.id).length <= attempts.length, 'no send outside a claim');
      for (let i = 1; i < attempts.length; i++) {
        const previous = attempts[i - 1];
        const current = attempts[i];
        assert.ok(previous && current && previous.duration_ms !== null);
        const previousEnd = Date.parse(previous.started_at) + previous.duration_ms;
        assert.ok(
          Date.parse(current.started_at) >= previousEnd - 5,
          'attempts of one delivery never overlap',
        );
      }
    }
    if (seen.length > 120)
      process.stderr.write(`note: ${seen.length - 120} retried sends (timeouts under load)\n`);
  });
});

describe('waking', () => {
  test('a worker that polls once a minute is woken by the commit of a new delivery (LISTEN/NOTIFY, embedded too)', async () => {
    const { webhookId } = await makeWebhook(db, config, `${receiver.url}/woken`);
    receiver.respond = () => ({ status: 200 });
    const worker = new DeliveryWorker({ db, config, resolve: testResolver, pollMs: 60_000 });
    await worker.start();
    try {
      // Its poll at start found nothing; the next one is a minute away.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const committed = Date.now();
      await enqueue(db, webhookId, [{ event: 'signal.created', data: {}, ts: 1 }]);
      const [got] = await receiver.waitFor(1, (r) => r.path === '/woken', 10_000);
      assert.ok(
        got && got.at - committed < 5_000,
        `received ${got ? got.at - committed : '∞'} ms after commit`,
      );
    } finally {
      await worker.stop();
    }
  });
});
