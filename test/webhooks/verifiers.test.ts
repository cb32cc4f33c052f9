/**
 * Real deliveries (the test event, over the API, through the outbox and the worker to a local HTTPS
 * receiver) checked side by side by four verifiers used unchanged: ours, Stripe's, `standardwebhooks`
 * and `svix` — with the secret as shown, before, during and after a rotation's overlap window.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { buildApp } from '../../src/app.ts';
import { verifyWebhook } from '../../src/domain/signature.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { type Injector, makeKey, withKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';
import { testResolver, waitUntil, webhookConfig } from './helpers.ts';
import {
  type Certificate,
  makeCertificate,
  type Received,
  type Receiver,
  startReceiver,
} from './receiver.ts';

const stripe = new Stripe('sk_test_unused');
let certificate: Certificate;
let receiver: Receiver;
let db: Db;
let app: App;
let client: Injector;

before(async () => {
  certificate = makeCertificate();
  receiver = await startReceiver(certificate);
  db = await freshDb();
  app = await buildApp({
    config: webhookConfig(certificate, { SECRET_KEY: 'verifiers-test-secret-key' }),
    db,
    logger: false,
    webhooks: { worker: true, resolve: testResolver, pollMs: 50 },
  });
  await app.ready();
  client = withKey(app, (await makeKey(db, { plan: 'developer', scopes: ['read', 'write'] })).raw);
});
after(async () => {
  await app.close();
  await receiver.close();
  await db.close();
  certificate.cleanup();
});

const text = (headers: Received['headers']): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

/** Which of the four verifiers accept `got` with `secret` (each used exactly as its docs say). */
function acceptedBy(got: Received, secret: string): string[] {
  const headers = text(got.headers);
  const verdicts: [string, () => unknown][] = [
    ['ours', () => assert.ok(verifyWebhook(got.body, headers['x-service-signature'], secret).ok)],
    ['stripe', () => stripe.webhooks.constructEvent(got.body, headers['x-service-signature'] ?? '', secret)],
    ['standardwebhooks', () => new StandardWebhook(secret).verify(got.body, headers)],
    ['svix', () => new SvixWebhook(secret).verify(got.body, headers)],
  ];
  return verdicts.flatMap(([name, verify]) => {
    try {
      verify();
      return [name];
    } catch {
      return [];
    }
  });
}
const ALL = ['ours', 'stripe', 'standardwebhooks', 'svix'];

interface Delivery {
  id: string;
  event: string;
  status: string;
}

async function sendTest(webhookId: string, path: string): Promise<{ delivery: Delivery; got: Received }> {
  const response = await client.inject({ method: 'POST', url: `/api/v1/webhooks/${webhookId}/test` });
  assert.equal(response.statusCode, 202, response.body);
  const { delivery } = response.json<{ delivery: Delivery }>();
  const [got] = await receiver.waitFor(1, (r) => r.headers['x-service-delivery'] === delivery.id, 60_000);
  assert.ok(got, path);
  return { delivery, got };
}

async function rotate(webhookId: string, payload?: object) {
  const response = await client.inject({
    method: 'POST',
    url: `/api/v1/webhooks/${webhookId}/rotate-secret`,
    ...(payload ? { payload } : {}),
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.headers['cache-control'], 'no-store');
  return response.json<{ webhook: { previous_secret_expires_at: string | null }; secret: string }>();
}

describe('three verifiers on the same real deliveries', () => {
  test('the test event: signed, marked, with a stable id in the body and the headers; all four verifiers accept it', async () => {
    const created = await client.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: `https://receiver.test:${receiver.port}/verifiers` },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { webhook, secret } = created.json<{ webhook: { id: string }; secret: string }>();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'whsec_ and standard base64 of 32 bytes');

    const { delivery, got } = await sendTest(webhook.id, '/verifiers');
    assert.equal(delivery.event, 'webhook.test');
    const body = JSON.parse(got.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['id', 'event', 'delivery_id', 'data', 'ts', 'test']);
    assert.equal(body.event, 'webhook.test');
    assert.equal(body.test, true);
    assert.deepEqual(body.data, { webhook_id: webhook.id });
    assert.equal(body.delivery_id, delivery.id);
    assert.notEqual(body.id, body.delivery_id, 'the event id is not the delivery id');
    assert.equal(got.headers['webhook-id'], body.id);
    assert.equal(got.headers['x-service-event'], 'webhook.test');
    const [t] = /\d+/.exec(String(got.headers['x-service-signature'])) ?? [];
    assert.equal(got.headers['webhook-timestamp'], t, 'one timestamp for both schemes');
    assert.deepEqual(acceptedBy(got, secret), ALL);
    assert.deepEqual(
      acceptedBy({ ...got, body: got.body.replace('"test":true', '"test":false') }, secret),
      [],
    );
    // Another key: its first base64 digit changed (the last one before '=' carries 4 bits and can
    // already be the digit put in its place, 1 time in 16).
    const first = secret.charAt('whsec_'.length);
    const other = `whsec_${first === 'A' ? 'B' : 'A'}${secret.slice('whsec_'.length + 1)}`;
    assert.notEqual(other, secret);
    assert.deepEqual(acceptedBy(got, other), []);
  });

  test('rotation: both secrets sign during the overlap (two v1 in each scheme), a resend keeps the event id, then only the new one', async () => {
    const created = await client.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: `https://receiver.test:${receiver.port}/rotation` },
    });
    const { webhook, secret: old } = created.json<{ webhook: { id: string }; secret: string }>();
    const first = await sendTest(webhook.id, '/rotation');
    await waitUntil('succeeded', async () => (await statusOf(first.delivery.id)) === 'succeeded');

    const before = Date.now();
    const rotated = await rotate(webhook.id);
    assert.notEqual(rotated.secret, old);
    const expires = Date.parse(rotated.webhook.previous_secret_expires_at ?? '');
    assert.ok(Math.abs(expires - before - 86_400_000) < 60_000, 'the default overlap is 24 h');

    const during = await sendTest(webhook.id, '/rotation');
    assert.equal(String(during.got.headers['x-service-signature']).match(/,v1=/g)?.length, 2);
    assert.equal(String(during.got.headers['webhook-signature']).split(' ').length, 2);
    assert.deepEqual(acceptedBy(during.got, rotated.secret), ALL);
    assert.deepEqual(acceptedBy(during.got, old), ALL);

    // A resend of the delivery made before the rotation: same bytes and id, signed with both secrets.
    const resent = await client.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${first.delivery.id}/resend`,
    });
    assert.equal(resent.statusCode, 202, resent.body);
    const [, again] = await receiver.waitFor(2, (r) => r.headers['x-service-delivery'] === first.delivery.id);
    assert.ok(again);
    assert.equal(again.body, first.got.body);
    assert.equal(again.headers['webhook-id'], first.got.headers['webhook-id']);
    assert.deepEqual(acceptedBy(again, rotated.secret), ALL);

    // The window ends: the old secret no longer signs.
    await db.query(
      `UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
      [webhook.id],
    );
    const listed = await client.inject({ url: '/api/v1/webhooks' });
    const mine = listed.json<{ data: { id: string; previous_secret_expires_at: string | null }[] }>().data;
    assert.equal(mine.find((w) => w.id === webhook.id)?.previous_secret_expires_at, null);
    const afterWindow = await sendTest(webhook.id, '/rotation');
    assert.deepEqual(acceptedBy(afterWindow.got, rotated.secret), ALL);
    assert.deepEqual(acceptedBy(afterWindow.got, old), []);
  });

  test('a rotation with overlap_seconds 0 drops the old secret at once', async () => {
    const created = await client.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: `https://receiver.test:${receiver.port}/immediate` },
    });
    const { webhook, secret: old } = created.json<{ webhook: { id: string }; secret: string }>();
    const rotated = await rotate(webhook.id, { overlap_seconds: 0 });
    assert.equal(rotated.webhook.previous_secret_expires_at, null);
    const { got } = await sendTest(webhook.id, '/immediate');
    assert.match(String(got.headers['x-service-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.deepEqual(acceptedBy(got, rotated.secret), ALL);
    assert.deepEqual(acceptedBy(got, old), []);
  });
});

const statusOf = async (id: string) =>
  (await db.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = $1', [id]))[0]
    ?.status;
