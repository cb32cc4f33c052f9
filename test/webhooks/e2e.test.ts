/**
 * End to end through the app: a webhook registered over the API, a new high signal scored over the API,
 * the in-process worker delivering it signed to a real local HTTPS receiver.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { verifyWebhook } from '../../src/domain/signature.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { type Injector, makeKey, withKey } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { testResolver, waitUntil, webhookConfig } from './helpers.ts';
import { type Certificate, makeCertificate, type Receiver, startReceiver } from './receiver.ts';

let certificate: Certificate;
let receiver: Receiver;
let db: Db;
let app: App;
let config: Config;
let client: Injector;

before(async () => {
  certificate = makeCertificate();
  receiver = await startReceiver(certificate);
  db = await seededDb();
  config = webhookConfig(certificate);
  app = await buildApp({
    config,
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

/** A contract whose materiality signal scores `high` or not, with its signals removed so the next score creates one. */
async function unscoredContract(high: boolean): Promise<{ id: string; score: number }> {
  const [row] = await db.query<{ id: string; score: number }>(
    `SELECT contract_id AS id, signal_score AS score FROM signals
     WHERE engine_name = 'materiality' AND signal_score ${high ? '>=' : '<'} $1
     ORDER BY signal_score ${high ? 'DESC' : 'ASC'}, contract_id LIMIT 1`,
    [config.signalThreshold],
  );
  assert.ok(row, 'the seeded data has such a signal');
  await db.query('DELETE FROM signals WHERE contract_id = $1', [row.id]);
  return row;
}

const deliveryCount = async () =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries'))[0]?.n ?? 0;

describe('signal.created end to end', () => {
  test('a new high signal reaches the receiver signed, with the documented payload; recomputes and low signals send nothing', async () => {
    const created = await client.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: `https://receiver.test:${receiver.port}/e2e` },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { webhook, secret } = created.json<{ webhook: { id: string }; secret: string }>();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);

    const high = await unscoredContract(true);
    const started = Date.now();
    const scored = await client.inject({ method: 'POST', url: `/api/v1/contracts/${high.id}/score` });
    assert.equal(scored.statusCode, 200, scored.body);
    const signal = scored.json<{ signal: Record<string, unknown> }>().signal;
    assert.equal(signal.signal_score, high.score);

    const [got] = await receiver.waitFor(1, (r) => r.path === '/e2e');
    assert.ok(got);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'ServiceWebhook/1.0');
    assert.equal(got.headers['x-service-event'], 'signal.created');
    const verified = verifyWebhook(got.body, String(got.headers['x-service-signature']), secret);
    assert.ok(verified.ok, 'signature verifies with the secret shown at creation');

    const payload = JSON.parse(got.body) as {
      id: string;
      event: string;
      delivery_id: string;
      data: { signal: object; contract: object };
      ts: number;
    };
    assert.deepEqual(Object.keys(payload), ['id', 'event', 'delivery_id', 'data', 'ts']);
    assert.equal(payload.id, got.headers['webhook-id'], 'the event id, signed in the body and in the header');
    assert.equal(
      payload.delivery_id,
      got.headers['x-service-delivery'],
      'the signed body names the delivery',
    );
    assert.equal(payload.event, 'signal.created');
    assert.deepEqual(payload.data.signal, signal, 'the Signal as the API serves it');
    assert.ok(!('rationale' in payload.data.signal));
    const bundle = await client.inject({ url: `/api/v1/contracts/${high.id}` });
    assert.deepEqual(payload.data.contract, bundle.json<{ contract: object }>().contract);
    assert.ok(Number.isInteger(payload.ts) && payload.ts >= started - 1000 && payload.ts <= Date.now());

    const deliveries = await client.inject({ url: `/api/v1/webhooks/${webhook.id}/deliveries` });
    const list = deliveries.json<{ data: { id: string; status: string }[]; pagination: { count: number } }>();
    assert.equal(list.pagination.count, 1);
    assert.equal(list.data[0]?.id, got.headers['x-service-delivery']);
    await waitUntil('recorded', async () => (await deliveryCount()) === 1);

    const again = await client.inject({ method: 'POST', url: `/api/v1/contracts/${high.id}/score` });
    assert.equal(again.statusCode, 200);
    const low = await unscoredContract(false);
    const lowScored = await client.inject({ method: 'POST', url: `/api/v1/contracts/${low.id}/score` });
    assert.equal(lowScored.statusCode, 200);
    assert.equal(await deliveryCount(), 1, 'no delivery for a recompute or a signal under the threshold');
  });
});
