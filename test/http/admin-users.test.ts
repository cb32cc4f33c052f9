/**
 * GET /api/v1/admin/users: admins list and search users; the search text is matched literally.
 * GET /api/v1/admin/users/{id}/keys: a user's keys, paged, never their secrets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import { createAccount } from '../../src/services/accounts.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, getJson, type Injector, makeKey, testApp, withKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

interface UserList {
  data: { id: string; email: string; plan: string; is_admin: boolean; created_at: string }[];
  pagination: { limit: number; offset: number; count: number; next_cursor: string | null };
}

let db: Db;
let app: App;
let admin: Injector;
/** The users made below, oldest first. */
const made: { id: string; email: string }[] = [];

before(async () => {
  db = await freshDb();
  app = await testApp(db);
  admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
  const emails = [
    ['a_b@search.test', 'developer'],
    ['axb@search.test', 'free'],
    ['Ann.100%@Search.test', 'developer'],
    ['ann.1000@search.test', 'institutional'],
    ['back\\slash@search.test', 'free'],
  ] as const;
  for (const [i, [email, plan]] of emails.entries()) {
    const user = await createAccount(db, { email, plan, isAdmin: false });
    // Distinct, known creation times: the list's order is by them.
    await db.query('UPDATE users SET created_at = $2 WHERE id = $1', [
      user.id,
      new Date(Date.UTC(2030, 0, 1 + i)).toISOString(),
    ]);
    made.push({ id: user.id, email });
  }
});
after(async () => {
  await app.close();
  await db.close();
});

const list = (query: string) => getJson<UserList>(admin, `/api/v1/admin/users${query}`);
const emailsOf = (body: UserList) => body.data.map((u) => u.email);

describe('GET /api/v1/admin/users', () => {
  test('lists users newest first, paged, as the user resource with no secrets', async () => {
    const all = await list('?q=search.test');
    assert.equal(all.status, 200);
    assert.deepEqual(
      emailsOf(all.body),
      [...made].reverse().map((u) => u.email),
    );
    for (const user of all.body.data) {
      assert.deepEqual(Object.keys(user).sort(), ['created_at', 'email', 'id', 'is_admin', 'plan']);
    }
    const page = await list('?q=search.test&limit=2&offset=1');
    const { next_cursor: nextCursor, ...pagination } = page.body.pagination;
    assert.deepEqual(pagination, { limit: 2, offset: 1, count: 2 });
    assert.equal(typeof nextCursor, 'string', 'more users follow');
    assert.deepEqual(emailsOf(page.body), [made[3]?.email, made[2]?.email]);
    const everyone = await list('');
    assert.equal(everyone.body.pagination.limit, 50);
    assert.equal(everyone.body.data.length, made.length + 1, 'the admin too');
  });

  test('q is a case-insensitive part of the email; %, _ and \\ match only themselves', async () => {
    assert.deepEqual(emailsOf((await list('?q=ANN.100')).body), [
      'ann.1000@search.test',
      'Ann.100%@Search.test',
    ]);
    assert.deepEqual(emailsOf((await list('?q=%25')).body), ['Ann.100%@Search.test']);
    assert.deepEqual(emailsOf((await list('?q=a_b')).body), ['a_b@search.test']);
    assert.deepEqual(emailsOf((await list('?q=_')).body), ['a_b@search.test']);
    assert.deepEqual(emailsOf((await list('?q=%5C')).body), ['back\\slash@search.test']);
    assert.deepEqual(emailsOf((await list('?q=nobody')).body), []);
  });

  test('plan filters, and combines with q', async () => {
    assert.deepEqual(emailsOf((await list('?plan=developer')).body), [
      'Ann.100%@Search.test',
      'a_b@search.test',
    ]);
    assert.deepEqual(emailsOf((await list('?plan=developer&q=ann')).body), ['Ann.100%@Search.test']);
  });

  test('hostile values are 400 in the envelope naming the parameter', async () => {
    for (const [query, name] of [
      ['?q=a%00b', 'q'],
      ['?q=', 'q'],
      [`?q=${'x'.repeat(255)}`, 'q'],
      ['?q=%0A', 'q'],
      ['?plan=gold', 'plan'],
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?offset=-1', 'offset'],
      ['?q=a&q=b', 'q'],
      ['?email=a', 'email'],
    ] as const) {
      const res = await list(query);
      assert.equal(res.status, 400, query);
      const { error } = res.body as unknown as Envelope & { error: { param?: string } };
      assert.equal(error.code, 'invalid_parameter', query);
      assert.ok(error.message.includes(`"${name}"`), `${query}: ${error.message}`);
      assert.equal(error.param, name, `${query}: the machine-readable name`);
    }
  });

  test('only admin-scope keys of admin users may list', async () => {
    const developer = await makeKey(db, { plan: 'institutional', scopes: ['read', 'write'] });
    const adminsReadKey = await makeKey(db, { admin: true, scopes: ['read', 'write'] });
    assert.equal((await getJson(withKey(app, developer.raw), '/api/v1/admin/users')).status, 403);
    assert.equal((await getJson(withKey(app, adminsReadKey.raw), '/api/v1/admin/users')).status, 403);
    assert.equal((await getJson(app, '/api/v1/admin/users')).status, 401);
  });
});

interface KeyList {
  data: Record<string, unknown>[];
  pagination: { limit: number; offset: number; count: number; next_cursor: string | null };
}

describe('GET /api/v1/admin/users/{id}/keys', () => {
  const keysOf = (userId: string, query = '') =>
    getJson<KeyList>(admin, `/api/v1/admin/users/${userId}/keys${query}`);

  test("lists a user's keys oldest first, revoked ones included, never a secret or its hash", async () => {
    const owner = await createAccount(db, {
      email: 'keys-owner@search.test',
      plan: 'developer',
      isAdmin: false,
    });
    const raws: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const res = await admin.inject({
        method: 'POST',
        url: `/api/v1/admin/users/${owner.id}/keys`,
        payload: { name, scopes: ['read'], mode: 'live' },
      });
      assert.equal(res.statusCode, 201, res.body);
      raws.push(res.json<{ secret: string }>().secret);
    }
    const [first] = (await keysOf(owner.id)).body.data;
    await admin.inject({ method: 'DELETE', url: `/api/v1/admin/keys/${String(first?.id)}` });

    const all = await keysOf(owner.id);
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.data.map((k) => k.name),
      ['one', 'two', 'three'],
    );
    assert.equal(typeof all.body.data[0]?.revoked_at, 'string', 'the revoked key is listed as revoked');
    assert.equal(all.body.data[1]?.revoked_at, null);
    for (const key of all.body.data) {
      assert.deepEqual(Object.keys(key).sort(), [
        'created_at',
        'display_prefix',
        'id',
        'last_used_at',
        'mode',
        'name',
        'revoked_at',
        'scopes',
        'user_id',
      ]);
    }
    const text = JSON.stringify(all.body);
    for (const raw of raws) assert.ok(!text.includes(raw.slice(12)), 'no secret, not even in part');

    // Cursor paging, with the same Link as the other lists.
    const firstPage = await keysOf(owner.id, '?limit=2');
    assert.deepEqual(
      firstPage.body.data.map((k) => k.name),
      ['one', 'two'],
    );
    const cursor = firstPage.body.pagination.next_cursor;
    assert.equal(typeof cursor, 'string');
    assert.match(String(firstPage.headers.link), /; rel="next"$/);
    const next = await keysOf(owner.id, `?limit=2&cursor=${encodeURIComponent(String(cursor))}`);
    assert.deepEqual(
      next.body.data.map((k) => k.name),
      ['three'],
    );
    assert.equal(next.body.pagination.next_cursor, null);
    // Another user's cursor position is no use here, nor another list's.
    const users = await getJson<{ pagination: { next_cursor: string } }>(
      admin,
      '/api/v1/admin/users?limit=1',
    );
    const foreign = await keysOf(
      owner.id,
      `?cursor=${encodeURIComponent(users.body.pagination.next_cursor)}`,
    );
    assert.equal(foreign.status, 400);
  });

  test('an unknown user is a 404; a user without keys an empty page', async () => {
    const missing = await keysOf('00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal((missing.body as unknown as Envelope).error.code, 'not_found');
    const keyless = await createAccount(db, { email: 'no-keys@search.test', plan: 'free', isAdmin: false });
    const empty = await keysOf(keyless.id);
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data, []);
  });

  test('hostile values are 400 naming the parameter; only admin keys of admin users may list', async () => {
    const user = made[0]?.id ?? '';
    for (const [path, query, name] of [
      ['not-a-uuid', '', 'id'],
      ['%00', '', 'id'],
      [user, '?limit=0', 'limit'],
      [user, '?limit=201', 'limit'],
      [user, '?offset=-1', 'offset'],
      [user, '?cursor=%00', 'cursor'],
      [user, '?cursor=abc', 'cursor'],
      [user, '?secret=1', 'secret'],
    ] as const) {
      const res = await keysOf(path, query);
      assert.equal(res.status, 400, `${path}${query}`);
      const { error } = res.body as unknown as Envelope & { error: { param?: string } };
      assert.equal(error.param, name, `${path}${query}: ${error.message}`);
    }
    const developer = await makeKey(db, { plan: 'institutional', scopes: ['read', 'write'] });
    const url = `/api/v1/admin/users/${user}/keys`;
    assert.equal((await getJson(withKey(app, developer.raw), url)).status, 403);
    assert.equal((await getJson(app, url)).status, 401);
  });
});
