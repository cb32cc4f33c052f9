import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, getJson, type Injector, makeKey, testApp, withKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
let app: App;
let admin: Injector;
before(async () => {
  db = await freshDb();
  app = await testApp(db);
  admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
});
after(async () => {
  await app.close();
  await db.close();
});

const post = (client: Injector, url: string, payload: object) =>
  client.inject({ method: 'POST', url, payload });

interface NewKey {
  key: { id: string; mode: string; scopes: string[]; display_prefix: string; revoked_at: string | null };
  secret: string;
}

describe('admin API', () => {
  test('creates a user, changes the plan, issues a key once, revokes it', async () => {
    const created = await post(admin, '/api/v1/admin/users', { email: 'Quant@Example.test', plan: 'free' });
    assert.equal(created.statusCode, 201);
    const user = created.json<{ user: { id: string; plan: string; email: string } }>().user;
    assert.equal(user.plan, 'free');

    const dupe = await post(admin, '/api/v1/admin/users', { email: 'quant@example.test' });
    assert.equal(dupe.statusCode, 409);

    const refused = await post(admin, `/api/v1/admin/users/${user.id}/keys`, {
      name: 'prod',
      scopes: ['read'],
      mode: 'live',
    });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json<Envelope>().error.message, /no live API access/);

    const upgraded = await admin.inject({
      method: 'PATCH',
      url: `/api/v1/admin/users/${user.id}`,
      payload: { plan: 'developer' },
    });
    assert.equal(upgraded.json<{ user: { plan: string } }>().user.plan, 'developer');

    const issued = await post(admin, `/api/v1/admin/users/${user.id}/keys`, {
      name: 'prod',
      scopes: ['read'],
      mode: 'live',
    });
    assert.equal(issued.statusCode, 201);
    const { key, secret } = issued.json<NewKey>();
    assert.match(secret, /^iv_live_[0-9A-Za-z]{43}$/);
    assert.equal(key.display_prefix, secret.slice(0, 12));
    const stored = await db.query<{ hash: string }>('SELECT hash FROM api_keys WHERE id = $1', [key.id]);
    assert.equal(stored[0]?.hash.length, 64);
    assert.ok(
      !JSON.stringify(await db.query('SELECT * FROM api_keys WHERE id = $1', [key.id])).includes(secret),
    );

    assert.equal((await getJson(withKey(app, secret), '/api/v1/events?limit=1')).status, 200);
    const revoked = await admin.inject({ method: 'DELETE', url: `/api/v1/admin/keys/${key.id}` });
    assert.equal(revoked.statusCode, 200);
    assert.equal((await getJson(withKey(app, secret), '/api/v1/events?limit=1')).status, 401);
  });

  test('enforces key maxima, test-key limits and the admin-only scope', async () => {
    const user = (
      await post(admin, '/api/v1/admin/users', { email: 'dev@example.test', plan: 'developer' })
    ).json<{
      user: { id: string };
    }>().user;
    const url = `/api/v1/admin/users/${user.id}/keys`;
    for (let i = 0; i < 10; i++) {
      assert.equal(
        (await post(admin, url, { name: `k${i}`, scopes: ['read'], mode: 'live' })).statusCode,
        201,
      );
    }
    const eleventh = await post(admin, url, { name: 'k10', scopes: ['read'], mode: 'live' });
    assert.equal(eleventh.statusCode, 403);
    assert.match(eleventh.json<Envelope>().error.message, /at most 10 live keys/);
    for (let i = 0; i < 5; i++) {
      assert.equal(
        (await post(admin, url, { name: `t${i}`, scopes: ['read'], mode: 'test' })).statusCode,
        201,
      );
    }
    assert.match(
      (await post(admin, url, { name: 't5', scopes: ['read'], mode: 'test' })).json<Envelope>().error.message,
      /at most 5/,
    );
    const adminScope = await post(admin, url, { name: 'a', scopes: ['admin'], mode: 'test' });
    assert.equal(adminScope.statusCode, 403);
    assert.match(adminScope.json<Envelope>().error.message, /only for admin users/);
  });

  test('rejects bad bodies with 400 and unknown ids with 404', async () => {
    const cases: [string, string, object | string, number][] = [
      ['POST', '/api/v1/admin/users', { email: 'not-an-email' }, 400],
      ['POST', '/api/v1/admin/users', { email: 'x@example.test', plan: 'gold' }, 400],
      ['POST', '/api/v1/admin/users', { email: 'x@example.test', extra: 1 }, 400],
      ['POST', '/api/v1/admin/users', '{broken', 400],
      ['PATCH', '/api/v1/admin/users/not-a-uuid', { plan: 'free' }, 400],
      ['PATCH', '/api/v1/admin/users/00000000-0000-4000-8000-000000000000', { plan: 'free' }, 404],
      [
        'POST',
        '/api/v1/admin/users/00000000-0000-4000-8000-000000000000/keys',
        { name: 'n', scopes: ['read'], mode: 'test' },
        404,
      ],
      ['DELETE', '/api/v1/admin/keys/00000000-0000-4000-8000-000000000000', '', 404],
    ];
    for (const [method, url, payload, status] of cases) {
      const res = await admin.inject({
        method: method as 'POST',
        url,
        payload,
        headers: typeof payload === 'string' && payload ? { 'content-type': 'application/json' } : {},
      });
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
      assert.equal(res.json<Envelope>().error.status, status);
    }
  });
});
