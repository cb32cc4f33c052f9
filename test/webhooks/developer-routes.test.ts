/**
 * POST /api/v1/webhooks/{id}/test and /rotate-secret: who may call them, what they refuse, what they
 * store (the rotated-out secret sealed like the current one) and how hostile input is answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import { ServiceError } from '../../src/services/errors.ts';
import type { Db } from '../../src/store/db.ts';
import { sendTestEvent } from '../../src/webhooks/developer.ts';
import { openSecret } from '../../src/webhooks/secrets.ts';
import { type Envelope, type Injector, makeKey, testConfig, withKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';
import { webhookContext } from './helpers.ts';

const SECRET_KEY = 'test-secret-key-for-developer-tools';

let db: Db;
let app: App;

before(async () => {
  db = await freshDb();
  app = await buildApp({
    config: testConfig({ SECRET_KEY, WEBHOOK_SECRET_OVERLAP: '2h' }),
    db,
    logger: false,
    webhooks: { resolve: async () => [{ address: '93.184.216.34', family: 4 }] },
  });
  await app.ready();
});
after(async () => {
  await app.close();
  await db.close();
});

async function owner(
  plan: 'developer' | 'free' = 'developer',
  scopes: ('read' | 'write')[] = ['read', 'write'],
) {
  const key = await makeKey(db, { plan, scopes });
  return { ...key, client: withKey(app, key.raw) };
}

async function webhookOf(client: Injector): Promise<{ id: string; secret: string }> {
  const res = await client.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    payload: { url: 'https://hooks.example.com/dev' },
  });
  assert.equal(res.statusCode, 201, res.body);
  const { webhook, secret } = res.json<{ webhook: { id: string }; secret: string }>();
  return { id: webhook.id, secret };
}

const post = (client: Injector, url: string, payload?: unknown) =>
  client.inject({ method: 'POST', url, ...(payload === undefined ? {} : { payload: payload as object }) });

const sealedRow = async (id: string) =>
  (
    await db.query<{
      secret: string;
      previous_secret: string | null;
      previous_secret_expires_at: Date | null;
    }>('SELECT secret, previous_secret, previous_secret_expires_at FROM webhooks WHERE id = $1', [id])
  )[0];

describe('webhook developer tools', () => {
  test('a rotation keeps the old secret sealed for the configured overlap; a second one replaces it', async () => {
    const { client } = await owner();
    const hook = await webhookOf(client);
    const started = Date.now();
    const res = await post(client, `/api/v1/webhooks/${hook.id}/rotate-secret`);
    assert.equal(res.statusCode, 200, res.body);
    const { secret, webhook } = res.json<{
      secret: string;
      webhook: { previous_secret_expires_at: string };
    }>();
    assert.ok(Math.abs(Date.parse(webhook.previous_secret_expires_at) - started - 2 * 3_600_000) < 60_000);
    const row = await sealedRow(hook.id);
    assert.ok(row?.previous_secret);
    for (const [sealed, plain] of [
      [row.secret, secret],
      [row.previous_secret, hook.secret],
    ] as const) {
      assert.match(sealed, /^gcm1:/, 'encrypted at rest');
      assert.ok(!sealed.includes(plain.slice(6)));
      assert.equal(openSecret(sealed, hook.id, SECRET_KEY), plain);
    }

    const second = await post(client, `/api/v1/webhooks/${hook.id}/rotate-secret`, { overlap_seconds: 60 });
    const latest = second.json<{ secret: string }>().secret;
    const after = await sealedRow(hook.id);
    assert.ok(after?.previous_secret);
    assert.equal(openSecret(after.previous_secret, hook.id, SECRET_KEY), secret, 'one overlap at a time');
    assert.equal(openSecret(after.secret, hook.id, SECRET_KEY), latest);
  });

  test("only the owner's: another user's webhook and unknown ids are 404; a read-only key is 403", async () => {
    const a = await owner();
    const b = await owner();
    const reader = await owner('developer', ['read']);
    const hook = await webhookOf(a.client);
    for (const path of ['test', 'rotate-secret']) {
      const res = await post(b.client, `/api/v1/webhooks/${hook.id}/${path}`);
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json<Envelope>().error.code, 'not_found');
      const unknown = await post(a.client, `/api/v1/webhooks/00000000-0000-4000-8000-000000000000/${path}`);
      assert.equal(unknown.statusCode, 404);
      assert.equal((await post(reader.client, `/api/v1/webhooks/${hook.id}/${path}`)).statusCode, 403);
      const keyless = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/${path}` });
      assert.equal(keyless.statusCode, 401);
    }
    const row = await sealedRow(hook.id);
    assert.equal(
      openSecret(row?.secret ?? '', hook.id, SECRET_KEY),
      hook.secret,
      'not rotated by anyone else',
    );
    assert.equal(
      (await db.query('SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1', [hook.id])).length,
      0,
    );
  });

  test('a deleted webhook refuses both (409); a suspended one refuses the test but rotates; a plan without webhooks is refused', async () => {
    const { client, userId } = await owner();
    const deleted = await webhookOf(client);
    await client.inject({ method: 'DELETE', url: `/api/v1/webhooks/${deleted.id}` });
    for (const path of ['test', 'rotate-secret']) {
      const res = await post(client, `/api/v1/webhooks/${deleted.id}/${path}`);
      assert.equal(res.statusCode, 409, res.body);
      assert.match(res.json<Envelope>().error.message, /was deleted/);
    }
    const suspended = await webhookOf(client);
    await db.query('UPDATE webhooks SET suspended_at = now() WHERE id = $1', [suspended.id]);
    const refused = await post(client, `/api/v1/webhooks/${suspended.id}/test`);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json<Envelope>().error.message, /suspended.*re-enable it, then send a test event/);
    assert.equal((await post(client, `/api/v1/webhooks/${suspended.id}/rotate-secret`)).statusCode, 200);

    // The plan rule, at the service (an API key of a free plan is refused before it, on live keys).
    const active = await webhookOf(client);
    await db.query("UPDATE users SET plan = 'free' WHERE id = $1", [userId]);
    await assert.rejects(
      sendTestEvent(webhookContext(db, testConfig({ SECRET_KEY })), active.id, userId),
      (error: Error) =>
        error instanceof ServiceError && error.kind === 'forbidden' && /has no webhooks/.test(error.message),
    );
  });

  test('hostile ids and bodies are 400 with the error envelope, never a 500', async () => {
    const { client } = await owner();
    const hook = await webhookOf(client);
    const ids = ['not-a-uuid', '%00', `${'1'.repeat(5000)}`, "'; DROP TABLE webhooks; --", '..%2f..%2fetc'];
    for (const id of ids) {
      for (const path of ['test', 'rotate-secret']) {
        const res = await post(client, `/api/v1/webhooks/${id}/${path}`);
        assert.ok([400, 404].includes(res.statusCode), `${path} ${id.slice(0, 20)}: ${res.statusCode}`);
        assert.equal(typeof res.json<Envelope>().error.message, 'string');
      }
    }
    const bodies: unknown[] = [
      { overlap_seconds: -1 },
      { overlap_seconds: 604_801 },
      { overlap_seconds: 1.5 },
      { overlap_seconds: null },
      { overlap_seconds: '3600' },
      { overlap_seconds: false },
      { overlap_seconds: 1e308 },
      { secret: 'whsec_chosen' },
      [],
      'text',
    ];
    for (const payload of bodies) {
      const res = await client.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hook.id}/rotate-secret`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json<Envelope>().error.status, 400);
    }
    const row = await sealedRow(hook.id);
    assert.equal(
      openSecret(row?.secret ?? '', hook.id, SECRET_KEY),
      hook.secret,
      'no hostile body rotated it',
    );
    assert.equal(row?.previous_secret, null);
  });
});
