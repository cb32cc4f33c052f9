import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { openSecret } from '../../src/webhooks/secrets.ts';
import { type Envelope, type Injector, makeKey, testConfig, withKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';
import { enqueue } from './helpers.ts';

const SECRET_KEY = 'test-secret-key-for-webhooks';
const PUBLIC_URL = 'https://93.184.216.34/hooks';

let db: Db;
let app: App;
let admin: Injector;

before(async () => {
  db = await freshDb();
  app = await buildApp({
    config: testConfig({ SECRET_KEY }),
    db,
    logger: false,
    webhooks: {
      resolve: async (host) => {
        if (host === 'hooks.example.com') return [{ address: '93.184.216.34', family: 4 }];
        if (host === 'intranet.example.com') return [{ address: '10.0.0.5', family: 4 }];
        throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      },
    },
  });
  await app.ready();
  admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
});
after(async () => {
  await app.close();
  await db.close();
});

async function user(plan: 'developer' | 'free' | 'institutional' = 'developer') {
  const key = await makeKey(db, { plan, scopes: ['read', 'write'] });
  return { ...key, client: withKey(app, key.raw) };
}

const create = (client: Injector, url: string) =>
  client.inject({ method: 'POST', url: '/api/v1/webhooks', payload: { url } });

/** Ends a delivery's series as the worker would. */
const finish = (id: string, status: 'succeeded' | 'failed') =>
  db.query(
    'UPDATE webhook_deliveries SET status = $2, next_attempt_at = NULL, locked_until = NULL WHERE id = $1',
    [id, status],
  );

const seriesOf = async (id: string) =>
  (
    await db.query<{ series: number; status: string }>(
      'SELECT series, status FROM webhook_deliveries WHERE id = $1',
      [id],
    )
  )[0];

interface Created {
  webhook: { id: string; user_id: string; url: string; disabled_at: string | null };
  secret: string;
}

describe('account webhook routes', () => {
  test('creates a webhook, shows the secret once, stores it encrypted, lists and deletes it', async () => {
    const { client, userId } = await user();
    const res = await create(client, 'https://hooks.example.com/in');
    assert.equal(res.statusCode, 201, res.body);
    const { webhook, secret } = res.json<Created>();
    assert.equal(webhook.user_id, userId);
    assert.equal(webhook.url, 'https://hooks.example.com/in');

    const [row] = await db.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [
      webhook.id,
    ]);
    assert.ok(row);
    assert.match(row.secret, /^gcm1:/);
    assert.ok(!row.secret.includes(secret.slice(6)));
    assert.equal(openSecret(row.secret, webhook.id, SECRET_KEY), secret);
    assert.throws(() => openSecret(row.secret, webhook.id, 'another key'), /SECRET_KEY differs/);
    assert.throws(() => openSecret(row.secret, crypto.randomUUID(), SECRET_KEY), /cannot be decrypted/);

    const listed = await client.inject({ url: '/api/v1/webhooks' });
    assert.equal(listed.statusCode, 200);
    const list = listed.json<{ data: Record<string, unknown>[] }>();
    assert.deepEqual(
      list.data.map((w) => w.id),
      [webhook.id],
    );
    assert.ok(!JSON.stringify(list).includes(secret), 'the secret is never shown again');

    const deleted = await client.inject({ method: 'DELETE', url: `/api/v1/webhooks/${webhook.id}` });
    assert.equal(deleted.statusCode, 200);
    assert.ok(deleted.json<Created>().webhook.disabled_at);
    assert.equal(
      (await client.inject({ url: '/api/v1/webhooks' })).json<{ data: unknown[] }>().data.length,
      0,
    );
  });

  test('refuses bad targets with 400 and the reason', async () => {
    const { client } = await user();
    const cases: [string, RegExp][] = [
      ['http://hooks.example.com/', /webhook URL refused: only https URLs are accepted/],
      [
        'https://intranet.example.com/x',
        /intranet\.example\.com resolves to 10\.0\.0\.5, a private \(RFC 1918\) address/,
      ],
      ['https://192.168.0.1/', /192\.168\.0\.1, a private \(RFC 1918\) address/],
      ['https://[::1]/', /::1, a loopback address/],
      ['https://unknown.example.com/', /does not resolve/],
      ['nonsense', /not a valid URL/],
    ];
    for (const [url, reason] of cases) {
      const res = await create(client, url);
      assert.equal(res.statusCode, 400, url);
      assert.match(res.json<Envelope>().error.message, reason, url);
    }
  });

  test("enforces the plan's maximum (developer 25) and refuses plans without webhooks", async () => {
    const { client } = await user();
    for (let i = 0; i < 25; i++) assert.equal((await create(client, `${PUBLIC_URL}/${i}`)).statusCode, 201);
    const over = await create(client, `${PUBLIC_URL}/26`);
    assert.equal(over.statusCode, 403);
    assert.equal(
      over.json<Envelope>().error.message,
      'the developer plan allows at most 25 webhooks; delete one first',
    );

    const free = await makeKey(db, { plan: 'free', mode: 'test', scopes: ['read', 'write'] });
    const refused = await create(withKey(app, free.raw), PUBLIC_URL);
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json<Envelope>().error.message, /the free plan has no webhooks/);
  });

  test("a user only ever sees their own webhooks and deliveries; others' are 404", async () => {
    const owner = await user();
    const other = await user();
    const { webhook } = (await create(owner.client, PUBLIC_URL)).json<Created>();
    const [delivery] = await enqueue(db, webhook.id, [{ event: 'signal.created', data: {}, ts: 1 }]);
    assert.ok(delivery);
    for (const [method, url] of [
      ['GET', `/api/v1/webhooks/${webhook.id}/deliveries`],
      ['DELETE', `/api/v1/webhooks/${webhook.id}`],
      ['GET', `/api/v1/webhooks/deliveries/${delivery.id}/attempts`],
      ['POST', `/api/v1/webhooks/deliveries/${delivery.id}/resend`],
    ] as const) {
      const res = await other.client.inject({ method, url });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.equal(
        (await owner.client.inject({ method: 'GET', url: `/api/v1/webhooks/${webhook.id}/deliveries` }))
          .statusCode,
        200,
      );
    }
    const mine = await owner.client.inject({
      url: `/api/v1/webhooks/${webhook.id}/deliveries?status=pending`,
    });
    assert.deepEqual(
      mine.json<{ data: { id: string }[] }>().data.map((d) => d.id),
      [delivery.id],
    );
    await finish(delivery.id, 'succeeded');
    const resent = await owner.client.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${delivery.id}/resend`,
    });
    assert.equal(resent.statusCode, 202);
    assert.equal(resent.json<{ delivery: { series: number } }>().delivery.series, 2);
  });

  test('resend of a pending delivery is 409; two concurrent resends of a finished one: one 202, one 409', async () => {
    const { client } = await user();
    const { webhook } = (await create(client, PUBLIC_URL)).json<Created>();
    const [delivery] = await enqueue(db, webhook.id, [{ event: 'signal.created', data: {}, ts: 1 }]);
    assert.ok(delivery);
    const resend = () =>
      client.inject({ method: 'POST', url: `/api/v1/webhooks/deliveries/${delivery.id}/resend` });
    for (let i = 0; i < 2; i += 1) {
      const pending = await resend();
      assert.equal(pending.statusCode, 409, pending.body);
      const { error } = pending.json<Envelope>();
      assert.equal(error.code, 'conflict');
      assert.match(error.message, /is pending, not finished: resend it once it has succeeded or failed/);
    }
    assert.deepEqual(await seriesOf(delivery.id), { series: 1, status: 'pending' });

    await finish(delivery.id, 'failed');
    const answers = await Promise.all([resend(), resend(), resend()]);
    assert.deepEqual(
      answers.map((a) => a.statusCode).sort(),
      [202, 409, 409],
      answers.map((a) => a.body).join('\n'),
    );
    assert.deepEqual(await seriesOf(delivery.id), { series: 2, status: 'pending' });
    const again = await resend();
    assert.equal(again.statusCode, 409, 'the new series is pending: not resent before it ends');
  });

  test('resend is refused while an attempt is in flight and after the webhook was deleted', async () => {
    const { client } = await user();
    const { webhook } = (await create(client, PUBLIC_URL)).json<Created>();
    const [delivery] = await enqueue(db, webhook.id, [{ event: 'signal.created', data: {}, ts: 1 }]);
    assert.ok(delivery);
    await db.query(
      "UPDATE webhook_deliveries SET status = 'delivering', locked_until = now() + interval '1 minute' WHERE id = $1",
      [delivery.id],
    );
    const busy = await client.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${delivery.id}/resend`,
    });
    assert.equal(busy.statusCode, 409);
    assert.match(busy.json<Envelope>().error.message, /being attempted right now/);
    await client.inject({ method: 'DELETE', url: `/api/v1/webhooks/${webhook.id}` });
    const gone = await client.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${delivery.id}/resend`,
    });
    assert.equal(gone.statusCode, 409);
    assert.match(gone.json<Envelope>().error.message, /was deleted/);
    const history = await client.inject({ url: `/api/v1/webhooks/${webhook.id}/deliveries` });
    assert.equal(history.statusCode, 200, 'deliveries of a deleted webhook stay listed');
  });

  test('state changes need the write scope; every route needs a key', async () => {
    const reader = await makeKey(db, { plan: 'developer', scopes: ['read'] });
    const res = await create(withKey(app, reader.raw), PUBLIC_URL);
    assert.equal(res.statusCode, 403);
    assert.match(res.json<Envelope>().error.message, /insufficient scope: this endpoint needs write/);
    assert.equal((await withKey(app, reader.raw).inject({ url: '/api/v1/webhooks' })).statusCode, 200);
    const keyless = await app.inject({ url: '/api/v1/webhooks', remoteAddress: '10.9.9.9' });
    assert.equal(keyless.statusCode, 401);
  });
});

describe('admin webhook routes', () => {
  test("an unknown user's webhooks are 404 for GET as for POST; a known user without any, an empty page", async () => {
    const unknown = crypto.randomUUID();
    const listed = await admin.inject({ url: `/api/v1/admin/users/${unknown}/webhooks` });
    assert.equal(listed.statusCode, 404, listed.body);
    const { error } = listed.json<Envelope>();
    assert.equal(error.code, 'not_found');
    assert.match(error.message, new RegExp(`user not found: ${unknown}`));
    const created = await admin.inject({
      method: 'POST',
      url: `/api/v1/admin/users/${unknown}/webhooks`,
      payload: { url: PUBLIC_URL },
    });
    assert.equal(created.statusCode, 404);
    assert.equal(created.json<Envelope>().error.message, error.message);
    const { userId } = await user();
    const none = await admin.inject({ url: `/api/v1/admin/users/${userId}/webhooks?offset=10` });
    assert.equal(none.statusCode, 200);
    assert.deepEqual(none.json<{ data: unknown[] }>().data, []);
  });

  test('create for a user, list deliveries and attempts, resend, delete; non-admins are refused', async () => {
    const { userId, client } = await user('institutional');
    const res = await admin.inject({
      method: 'POST',
      url: `/api/v1/admin/users/${userId}/webhooks`,
      payload: { url: PUBLIC_URL },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { webhook, secret } = res.json<Created>();
    assert.match(secret, /^whsec_/);
    const [delivery] = await enqueue(db, webhook.id, [{ event: 'signal.created', data: {}, ts: 1 }]);
    assert.ok(delivery);

    const deliveries = await admin.inject({ url: `/api/v1/admin/webhooks/${webhook.id}/deliveries` });
    assert.equal(deliveries.statusCode, 200);
    assert.deepEqual(deliveries.json<{ data: { id: string }[]; pagination: object }>().pagination, {
      limit: 50,
      offset: 0,
      count: 1,
      next_cursor: null,
    });
    const attempts = await admin.inject({ url: `/api/v1/admin/deliveries/${delivery.id}/attempts` });
    assert.deepEqual(attempts.json(), {
      data: [],
      pagination: { limit: 1000, offset: 0, count: 0, next_cursor: null },
    });
    const early = await admin.inject({
      method: 'POST',
      url: `/api/v1/admin/deliveries/${delivery.id}/resend`,
    });
    assert.equal(early.statusCode, 409, 'a pending delivery is not resent');
    assert.equal(early.json<Envelope>().error.code, 'conflict');
    await finish(delivery.id, 'failed');
    const resent = await admin.inject({
      method: 'POST',
      url: `/api/v1/admin/deliveries/${delivery.id}/resend`,
    });
    assert.equal(resent.statusCode, 202);
    const listed = await admin.inject({ url: `/api/v1/admin/users/${userId}/webhooks` });
    assert.equal(listed.json<{ data: unknown[] }>().data.length, 1);
    const deleted = await admin.inject({ method: 'DELETE', url: `/api/v1/admin/webhooks/${webhook.id}` });
    assert.equal(deleted.statusCode, 200);
    const [row] = await db.query<{ status: string; last_error: string }>(
      'SELECT status, last_error FROM webhook_deliveries WHERE id = $1',
      [delivery.id],
    );
    assert.deepEqual(row, { status: 'failed', last_error: 'webhook deleted' });

    assert.equal(
      (await admin.inject({ method: 'DELETE', url: `/api/v1/admin/webhooks/${crypto.randomUUID()}` }))
        .statusCode,
      404,
    );
    const missingUser = await admin.inject({
      method: 'POST',
      url: `/api/v1/admin/users/${crypto.randomUUID()}/webhooks`,
      payload: { url: PUBLIC_URL },
    });
    assert.equal(missingUser.statusCode, 404);
    const notAdmin = await client.inject({ url: `/api/v1/admin/webhooks/${webhook.id}/deliveries` });
    assert.equal(notAdmin.statusCode, 403);
  });
});
