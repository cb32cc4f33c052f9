/**
 * The SDK's webhook tools over HTTP against the real app: `webhooks.test` queues a test event that the
 * worker delivers signed; `webhooks.rotateSecret` returns a new secret, and the SDK's verifier accepts
 * the overlap window's deliveries with either secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { constructEvent, MarketIntel, verifyWebhook } from '../../sdk/src/index.ts';
import { buildApp } from '../../src/app.ts';
import { makeKey } from '../support/app.ts';
import { testResolver, webhookConfig } from '../webhooks/helpers.ts';
import { type Certificate, makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { type LiveServer, startLiveServer } from './server.ts';

let certificate: Certificate;
let receiver: Receiver;
let server: LiveServer;
let client: MarketIntel;

before(async () => {
  certificate = makeCertificate();
  receiver = await startReceiver(certificate);
  const config = webhookConfig(certificate);
  server = await startLiveServer((db) =>
    buildApp({ config, db, logger: false, webhooks: { worker: true, resolve: testResolver, pollMs: 50 } }),
  );
  client = new MarketIntel({
    apiKey: (await makeKey(server.db, { plan: 'developer' })).raw,
    baseUrl: server.baseUrl,
  });
});
after(async () => {
  await server?.close();
  await receiver?.close();
  certificate?.cleanup();
});

describe('SDK webhook tools', () => {
  test('test event and rotation: the overlap delivery verifies with the old and the new secret', async () => {
    const { webhook, secret } = await client.webhooks.create({
      url: `https://receiver.test:${receiver.port}/tools`,
    });
    const { delivery } = await client.webhooks.test(webhook.id);
    assert.equal(delivery.event, 'webhook.test');
    const [first] = await receiver.waitFor(1, (r) => r.headers['x-service-delivery'] === delivery.id, 60_000);
    assert.ok(first);
    const event = constructEvent(first.body, first.headers, secret);
    assert.equal(event.event, 'webhook.test');
    assert.ok(
      event.event === 'webhook.test' && event.test === true && event.id === first.headers['webhook-id'],
    );

    const rotated = await client.webhooks.rotateSecret(webhook.id, { overlap_seconds: 3600 });
    assert.notEqual(rotated.secret, secret);
    assert.ok(rotated.webhook.previous_secret_expires_at);
    const overlap = await client.webhooks.test(webhook.id);
    const [got] = await receiver.waitFor(
      1,
      (r) => r.headers['x-service-delivery'] === overlap.delivery.id,
      60_000,
    );
    assert.ok(got);
    assert.equal(String(got.headers['x-service-signature']).split(',v1=').length, 3, 'two signatures');
    for (const key of [rotated.secret, secret]) assert.ok(verifyWebhook(got.body, got.headers, key).ok);
    assert.equal(verifyWebhook(got.body, got.headers, 'whsec_other').ok, false);
  });
});
