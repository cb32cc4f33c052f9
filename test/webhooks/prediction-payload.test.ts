/**
 * signal.created carries the event's stored prediction to a receiver whose plan reaches the
 * predictions' tier (intelligence), and never to one below it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ingestAnnouncements } from '../../src/pipeline/announcements.ts';
import { createPipelineContext } from '../../src/pipeline/context.ts';
import { createAccount } from '../../src/services/accounts.ts';
import { parseAnnouncementsCsv } from '../../src/sources/announcements.ts';
import type { Db } from '../../src/store/db.ts';
import { deliveryBody } from '../../src/webhooks/outbox.ts';
import { createWebhook } from '../../src/webhooks/service.ts';
import { getJson, keyedClient, testApp, testConfig } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { webhookContext } from './helpers.ts';

let db: Db;
before(async () => {
  db = await seededDb();
});
after(() => db.close());

const TEXT =
  'Lockheed Martin Corp., Rotary and Mission Systems, Owego, New York, is being awarded a $700,000,000 firm-fixed-price contract (N00019-19-C-7001) for MH-60R helicopters. Work is expected to be completed in 2021. This contract was not competitively procured. The Naval Air Systems Command, Patuxent River, Maryland, is the contracting activity.';

async function hookFor(plan: 'developer' | 'institutional') {
  const user = await createAccount(db, { email: `${plan}-${process.pid}-${Date.now()}@example.test`, plan });
  const config = testConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });
  const created = await createWebhook(webhookContext(db, config), {
    userId: user.id,
    url: 'https://93.184.216.34/p',
  });
  return created.webhook.id;
}

describe('signal.created and predictions', () => {
  test('the intelligence tier is sent the prediction the API serves; the developer tier is not', async () => {
    const [developer, institutional] = [await hookFor('developer'), await hookFor('institutional')];
    const ctx = await createPipelineContext(db, { signalThreshold: 0 });
    const { paragraphs } = parseAnnouncementsCsv(
      `announcement_date,section,paragraph_no,text\n2019-02-20,NAVY,1,"${TEXT}"`,
    );
    const counts = await ingestAnnouncements(ctx, paragraphs);
    assert.equal(counts.predictions, 1);
    const payloads = async (hook: string) =>
      (
        await db.query<{ id: string; payload: Record<string, unknown> }>(
          `SELECT id, payload FROM webhook_deliveries WHERE webhook_id = $1 AND payload -> 'data' -> 'contract' ->> 'id' = $2`,
          [hook, 'DOD_ANN_2019-02-20_0001_1'],
        )
      ).map((r) => JSON.parse(deliveryBody(r.payload, r.id)) as { data: Record<string, unknown> });
    const rich = await payloads(institutional);
    const plain = await payloads(developer);
    assert.ok(rich.length > 0 && plain.length > 0);
    assert.ok(plain.every((p) => !('prediction' in p.data)));
    const app = await testApp(db);
    try {
      const client = await keyedClient(app, db);
      const { body } = await getJson<{ data: unknown[] }>(
        client,
        '/api/v1/predictions?contract_id=DOD_ANN_2019-02-20_0001_1',
      );
      assert.equal(body.data.length, 1);
      for (const p of rich) {
        assert.deepEqual(Object.keys(p.data), ['signal', 'contract', 'prediction']);
        assert.deepEqual(p.data.prediction, body.data[0]);
      }
    } finally {
      await app.close();
    }
  });
});
