/**
 * The SDK's webhook receiver helpers on a real delivery: a webhook registered and a signal scored
 * through the SDK over HTTP, the service's worker delivering it signed to a local HTTPS receiver, and
 * verifyWebhook / constructEvent judging the bytes and headers that arrived.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  constructEvent,
  MarketIntel,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEventPayload,
  WebhookVerificationError,
} from '../../sdk/src/index.ts';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { makeKey } from '../support/app.ts';
import { testResolver, webhookConfig } from '../webhooks/helpers.ts';
import {
  type Certificate,
  makeCertificate,
  type Received,
  type Receiver,
  startReceiver,
} from '../webhooks/receiver.ts';
import { type LiveServer, startLiveServer } from './server.ts';

let certificate: Certificate;
let receiver: Receiver;
let config: Config;
let server: LiveServer;
let delivery: Received;
let secret: string;
let scoredSignalId: string;

before(async () => {
  certificate = makeCertificate();
  receiver = await startReceiver(certificate);
  config = webhookConfig(certificate);
  server = await startLiveServer((db) =>
    buildApp({ config, db, logger: false, webhooks: { worker: true, resolve: testResolver, pollMs: 50 } }),
  );
  const apiKey = (await makeKey(server.db, { plan: 'developer' })).raw;
  const client = new MarketIntel({ apiKey, baseUrl: server.baseUrl });
  const created = await client.webhooks.create({ url: `https://receiver.test:${receiver.port}/sdk` });
  secret = created.secret;

  // A contract with a high signal, its signals removed so that scoring it creates one (and a delivery).
  const [row] = await server.db.query<{ id: string }>(
    `SELECT contract_id AS id FROM signals WHERE engine_name = 'materiality' AND signal_score >= $1
     ORDER BY signal_score DESC, contract_id LIMIT 1`,
    [config.signalThreshold],
  );
  assert.ok(row);
  await server.db.query('DELETE FROM signals WHERE contract_id = $1', [row.id]);
  scoredSignalId = (await client.contracts.score(row.id)).signal.id;
  const [got] = await receiver.waitFor(1, (r) => r.path === '/sdk');
  assert.ok(got);
  delivery = got;
});
after(async () => {
  await server?.close();
  await receiver?.close();
  certificate?.cleanup();
});

describe('verifying a real delivery', () => {
  test('a genuine delivery verifies, and constructEvent returns its typed signal.created event', () => {
    const result = verifyWebhook(delivery.body, delivery.headers, secret);
    assert.ok(result.ok, JSON.stringify(result));
    assert.ok(Math.abs(result.timestamp - Date.now() / 1000) < 60);
    const event: WebhookEventPayload = constructEvent(Buffer.from(delivery.body), delivery.headers, secret);
    assert.equal(event.event, 'signal.created');
    assert.equal(event.data.signal.id, scoredSignalId);
    assert.equal(event.data.contract.id, event.data.signal.contract_id);
    assert.ok(Number.isInteger(event.ts));
  });

  test('accepts a fetch Headers object and the bare header value too', () => {
    const header = String(delivery.headers['x-service-signature']);
    assert.ok(verifyWebhook(delivery.body, new Headers({ 'X-Service-Signature': header }), secret).ok);
    assert.ok(verifyWebhook(delivery.body, header, secret).ok);
  });

  test('a tampered body is a signature mismatch', () => {
    const tampered = delivery.body.replace('"signal.created"', '"signal.createD"');
    assert.notEqual(tampered, delivery.body);
    const result = verifyWebhook(tampered, delivery.headers, secret);
    assert.deepEqual(result.ok ? null : result.reason, 'signature_mismatch');
    assert.throws(
      () => constructEvent(`${delivery.body} `, delivery.headers, secret),
      (e: unknown) => e instanceof WebhookVerificationError && e.reason === 'signature_mismatch',
    );
  });

  test('the wrong secret is a signature mismatch', () => {
    const result = verifyWebhook(delivery.body, delivery.headers, `${secret.slice(0, -1)}x`);
    assert.deepEqual(result.ok ? null : result.reason, 'signature_mismatch');
  });

  test('a stale delivery is refused past the tolerance, accepted within a wider toleranceSec', () => {
    const inTenMinutes = Date.now() + 10 * 60_000;
    const stale = verifyWebhook(delivery.body, delivery.headers, secret, { now: inTenMinutes });
    assert.deepEqual(stale.ok ? null : stale.reason, 'timestamp_out_of_tolerance');
    const within = (options: VerifyWebhookOptions) =>
      verifyWebhook(delivery.body, delivery.headers, secret, { now: inTenMinutes, ...options }).ok;
    assert.ok(within({ toleranceSec: 900 }), 'the documented name');
    assert.ok(within({ tolerance: 900 }), 'the deprecated 0.1.0 name still works');
    assert.equal(within({ toleranceSec: 60, tolerance: 900 }), false, 'toleranceSec wins');
  });

  test('a missing or malformed header is refused before any HMAC', () => {
    const missing = verifyWebhook(delivery.body, { 'content-type': 'application/json' }, secret);
    assert.deepEqual(missing.ok ? null : missing.reason, 'missing_header');
    const header = String(delivery.headers['x-service-signature']);
    const malformed = verifyWebhook(delivery.body, header.toUpperCase(), secret);
    assert.deepEqual(malformed.ok ? null : malformed.reason, 'malformed_header');
  });

  test('the delivery id is signed: a replay under a fresh X-Service-Delivery is refused, a rewritten body id fails the HMAC', () => {
    const headerId = String(delivery.headers['x-service-delivery']);
    const event = constructEvent(delivery.body, delivery.headers, secret);
    assert.equal(event.delivery_id, headerId, 'the body names the delivery the header names');
    const freshId = '11111111-1111-4111-8111-111111111111';
    for (const replayed of [
      { ...delivery.headers, 'x-service-delivery': freshId },
      { ...delivery.headers, 'x-service-delivery': [headerId, freshId] },
      new Headers({
        'X-Service-Signature': String(delivery.headers['x-service-signature']),
        'X-Service-Delivery': freshId,
      }),
    ]) {
      assert.ok(verifyWebhook(delivery.body, replayed, secret).ok, 'the signature alone still verifies');
      assert.throws(
        () => constructEvent(delivery.body, replayed, secret),
        (e: unknown) => e instanceof WebhookVerificationError && e.reason === 'delivery_mismatch',
      );
    }
    const rewritten = delivery.body.replace(headerId, freshId);
    assert.notEqual(rewritten, delivery.body);
    const result = verifyWebhook(rewritten, { ...delivery.headers, 'x-service-delivery': freshId }, secret);
    assert.deepEqual(result.ok ? null : result.reason, 'signature_mismatch');
  });
});
