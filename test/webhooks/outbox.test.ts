import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setUserPlan } from '../../src/store/accounts.ts';
import type { Db } from '../../src/store/db.ts';
import { deliveryBody, enqueueSignalCreated, eventIdOf } from '../../src/webhooks/outbox.ts';
import { testConfig } from '../support/app.ts';
import { lockheedAward } from '../support/awards.ts';
import { seededDb } from '../support/db.ts';
import { makeWebhook } from './helpers.ts';

let db: Db;
before(async () => {
  db = await seededDb();
});
after(() => db.close());

interface Written {
  id: string;
  contract_id: string;
  signal_score: number;
  inserted: boolean;
  engine: string;
}

async function signalOf(engine: string): Promise<Written> {
  const [row] = await db.query<Written>(
    `SELECT id, contract_id, signal_score, true AS inserted, engine_name AS engine FROM signals
     WHERE engine_name = $1 ORDER BY signal_score DESC, id LIMIT 1`,
    [engine],
  );
  assert.ok(row);
  return row;
}

const count = async (webhookId: string) =>
  (
    await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [
      webhookId,
    ])
  )[0]?.n;

describe('the signal.created outbox', () => {
  const config = testConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });

  test('only new signals at or above the threshold, only to webhooks whose plan reaches the engine tier', async () => {
    const developer = await makeWebhook(db, config, 'https://93.184.216.34/dev');
    const institutional = await makeWebhook(db, config, 'https://93.184.216.34/inst');
    await setUserPlan(db, institutional.userId, 'institutional');
    const materiality = await signalOf('materiality');
    const regimeAware = await signalOf('regime-aware');

    const written = await db.transaction((tx) =>
      enqueueSignalCreated(
        tx,
        [materiality, regimeAware, { ...materiality, id: crypto.randomUUID(), inserted: false }],
        Math.min(materiality.signal_score, regimeAware.signal_score),
      ),
    );
    assert.equal(written, 3, 'materiality to both, regime-aware (intelligence tier) to institutional only');
    assert.equal(await count(developer.webhookId), 1);
    assert.equal(await count(institutional.webhookId), 2);

    assert.equal(
      await db.transaction((tx) => enqueueSignalCreated(tx, [materiality], materiality.signal_score + 1)),
      0,
    );
    await setUserPlan(db, developer.userId, 'free');
    assert.equal(
      await db.transaction((tx) => enqueueSignalCreated(tx, [materiality], 0)),
      1,
      'a free plan gets none',
    );
  });

  test('deliveries commit or roll back with the signal transaction', async () => {
    const hook = await makeWebhook(db, config, 'https://93.184.216.34/tx');
    const signal = await signalOf('materiality');
    await assert.rejects(
      db.transaction(async (tx) => {
        await enqueueSignalCreated(tx, [signal], 0);
        throw new Error('signal write failed');
      }),
      /signal write failed/,
    );
    assert.equal(await count(hook.webhookId), 0);
  });

  test('the body is the documented payload in documented order, identical for every attempt', async () => {
    const hook = await makeWebhook(db, config, 'https://93.184.216.34/body');
    const signal = await signalOf('materiality');
    await db.transaction((tx) => enqueueSignalCreated(tx, [signal], 0, new Date(1_700_000_000_000)));
    const [row] = await db.query<{ id: string; payload: unknown }>(
      'SELECT id, payload FROM webhook_deliveries WHERE webhook_id = $1',
      [hook.webhookId],
    );
    assert.ok(row);
    const body = deliveryBody(row.payload, row.id);
    const parsed = JSON.parse(body) as {
      id: string;
      delivery_id: string;
      data: { signal: object; contract: object };
      ts: number;
    };
    assert.deepEqual(Object.keys(parsed), ['id', 'event', 'delivery_id', 'data', 'ts']);
    assert.match(parsed.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(parsed.id, row.id);
    assert.equal(parsed.delivery_id, row.id, 'the delivery id is inside the signed bytes');
    assert.deepEqual(Object.keys(parsed.data), ['signal', 'contract']);
    assert.deepEqual(Object.keys(parsed.data.signal).slice(0, 3), ['id', 'contract_id', 'engine_name']);
    assert.ok(!('rationale' in parsed.data.signal));
    assert.equal(parsed.ts, 1_700_000_000_000);
    assert.equal(deliveryBody(row.payload, row.id), body);
  });
});

describe('event ids', () => {
  const config = testConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });

  test('one id per new signal, shared by every webhook it goes to; each delivery its own delivery id', async () => {
    const hooks = [
      await makeWebhook(db, config, 'https://93.184.216.34/ids-a'),
      await makeWebhook(db, config, 'https://93.184.216.34/ids-b'),
    ];
    const signal = await signalOf('materiality');
    await db.transaction((tx) => enqueueSignalCreated(tx, [signal], 0));
    const rows = await db.query<{ id: string; payload: { id: string } }>(
      'SELECT id, payload FROM webhook_deliveries WHERE webhook_id = ANY($1::uuid[])',
      [hooks.map((h) => h.webhookId)],
    );
    assert.equal(rows.length, 2);
    assert.equal(new Set(rows.map((r) => r.payload.id)).size, 1, 'the same event id at both webhooks');
    assert.equal(new Set(rows.map((r) => r.id)).size, 2);
  });

  test('a delivery stored before events had ids is sent with its delivery id as the event id, every time', () => {
    const legacy = { event: 'signal.created', data: { signal: {}, contract: {} }, ts: 1 };
    const id = '6f1c2f52-6f0e-4a43-9b7b-2f4f3c0f6a11';
    assert.equal(eventIdOf(legacy, id), id);
    const body = JSON.parse(deliveryBody(legacy, id)) as { id: string };
    assert.equal(body.id, id);
    assert.equal(eventIdOf({ ...legacy, id: 'e1' }, id), 'e1');
  });
});

describe('the ingest pipeline', () => {
  test('writes one delivery per active webhook for each new signal at or above the threshold, none on a rerun', async () => {
    const { createPipelineContext } = await import('../../src/pipeline/context.ts');
    const { ingestAwards } = await import('../../src/pipeline/ingest.ts');
    const config = testConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });
    const hooks = [
      await makeWebhook(db, config, 'https://receiver.test:9/a'),
      await makeWebhook(db, config, 'https://receiver.test:9/b'),
    ];
    const ctx = await createPipelineContext(db, { signalThreshold: 60 });
    const award = (n: number, value: number) =>
      lockheedAward(`OUTBOX${n}`, {
        value,
        awardDate: '2024-02-15',
        description: 'F-35 LIGHTNING II AIRCRAFT PRODUCTION LOT 18',
      });
    const awards = [award(1, 9_000_000_000), award(2, 1_200_000)];
    await ingestAwards(ctx, awards);
    const [high] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM signals WHERE contract_id LIKE 'CONT_AWD_OUTBOX%'
       AND engine_name = 'materiality' AND signal_score >= 60`,
    );
    assert.ok((high?.n ?? 0) >= 1, 'the $9B award scores high');
    for (const hook of hooks) assert.equal(await count(hook.webhookId), high?.n);
    await ingestAwards(ctx, awards);
    for (const hook of hooks) assert.equal(await count(hook.webhookId), high?.n, 'recomputes send nothing');
  });
});
