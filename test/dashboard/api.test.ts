import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Envelope, getJson, testApp, withKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';
import { enqueue } from '../webhooks/helpers.ts';

let db: Db;
let app: App;
before(async () => {
  db = await freshDb();
  app = await testApp(db);
});
after(() => closeApp(app, db));

const PASSWORD = 'correct horse battery';

/** A browser-like client: keeps the session cookie and sends the CSRF token on changes. */
class Browser {
  cookie = '';
  csrf = '';
  constructor(private readonly ip = '198.51.100.1') {}

  async call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
    headers: Record<string, string> = {},
  ) {
    const res = await app.inject({
      method,
      url: `/dashboard/api${url}`,
      payload,
      remoteAddress: this.ip,
      headers: {
        cookie: this.cookie,
        ...(this.csrf && method !== 'GET' ? { 'x-csrf-token': this.csrf } : {}),
        ...headers,
      },
    });
    const set = res.headers['set-cookie'];
    if (typeof set === 'string') this.cookie = set.split(';')[0] ?? '';
    if (res.statusCode < 300 && res.body) {
      const token = (res.json() as { csrf_token?: string }).csrf_token;
      if (token) this.csrf = token;
    }
    return res;
  }

  /** Signs up then in, as the page does: sign-up alone opens no session. */
  async join(email: string) {
    assert.equal((await this.call('POST', '/signup', { email, password: PASSWORD })).statusCode, 202);
    const res = await this.call('POST', '/signin', { email, password: PASSWORD });
    assert.equal(res.statusCode, 200, res.body);
    return res;
  }
}

describe('dashboard API', () => {
  test('sign-up opens no session; sign-in sets an HttpOnly SameSite cookie and returns a CSRF token', async () => {
    const browser = new Browser();
    const signup = await browser.call('POST', '/signup', {
      email: 'analyst@example.test',
      password: PASSWORD,
    });
    assert.equal(signup.statusCode, 202);
    assert.equal(signup.headers['set-cookie'], undefined);
    assert.equal((await browser.call('GET', '/me')).statusCode, 401);
    const res = await browser.call('POST', '/signin', { email: 'analyst@example.test', password: PASSWORD });
    assert.equal(res.statusCode, 200);
    assert.match(res.json<{ csrf_token: string }>().csrf_token, /^[\w-]{32}$/);
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /^mi_session=[\w-]{43}; Path=\/dashboard; HttpOnly; SameSite=Lax/);
    assert.doesNotMatch(cookie, /Secure/, 'plain http in tests');
    const me = await browser.call('GET', '/me');
    assert.equal(me.json<{ user: { email: string; plan: string } }>().user.plan, 'free');
    const stored = await db.query<{ token_hash: string }>('SELECT token_hash FROM sessions');
    assert.ok(
      stored.every((s) => !cookie.includes(s.token_hash)),
      'only a hash of the token is stored',
    );
  });

  test('state changes need the CSRF token; cross-site origins are refused', async () => {
    const browser = new Browser();
    await browser.join('csrf@example.test');
    const token = browser.csrf;
    browser.csrf = '';
    const missing = await browser.call('POST', '/keys', { name: 'x', scopes: ['read'], mode: 'test' });
    assert.equal(missing.statusCode, 403);
    assert.match(missing.json<Envelope>().error.message, /CSRF/);
    browser.csrf = token;
    const foreign = await browser.call(
      'POST',
      '/keys',
      { name: 'x', scopes: ['read'], mode: 'test' },
      { origin: 'https://evil.example' },
    );
    assert.equal(foreign.statusCode, 403);
    const ok = await browser.call(
      'POST',
      '/keys',
      { name: 'x', scopes: ['read'], mode: 'test' },
      { origin: 'http://localhost:80' },
    );
    assert.equal(ok.statusCode, 201);
  });

  test('keys: test key created once, usable, revoked → 401; live keys refused on free; maxima enforced', async () => {
    const browser = new Browser();
    await browser.join('keys@example.test');
    const created = await browser.call('POST', '/keys', { name: 'notebook', scopes: ['read'], mode: 'test' });
    const { key, secret } = created.json<{ key: { id: string }; secret: string }>();
    assert.match(secret, /^iv_test_/);
    const listed = await browser.call('GET', '/keys');
    assert.ok(!listed.body.includes(secret), 'the raw key is never listed');
    assert.equal((await getJson(withKey(app, secret), '/api/v1/events?limit=1')).status, 200);
    assert.equal((await browser.call('POST', `/keys/${key.id}/revoke`)).statusCode, 200);
    assert.equal((await getJson(withKey(app, secret), '/api/v1/events?limit=1')).status, 401);
    const live = await browser.call('POST', '/keys', { name: 'prod', scopes: ['read'], mode: 'live' });
    assert.equal(live.statusCode, 403);
    assert.match(live.json<Envelope>().error.message, /no live API access/);
    for (let i = 0; i < 5; i++)
      await browser.call('POST', '/keys', { name: `t${i}`, scopes: ['read'], mode: 'test' });
    const sixth = await browser.call('POST', '/keys', { name: 't5', scopes: ['read'], mode: 'test' });
    assert.match(sixth.json<Envelope>().error.message, /at most 5 active test keys/);
  });

  test('another user’s key cannot be revoked', async () => {
    const owner = new Browser();
    await owner.join('owner@example.test');
    const { key } = (await owner.call('POST', '/keys', { name: 'k', scopes: ['read'], mode: 'test' })).json<{
      key: { id: string };
    }>();
    const intruder = new Browser();
    await intruder.join('intruder@example.test');
    assert.equal((await intruder.call('POST', `/keys/${key.id}/revoke`)).statusCode, 404);
  });

  test('sign-in failures read the same for unknown emails and wrong passwords', async () => {
    const a = new Browser('198.51.100.77');
    const unknown = await a.call('POST', '/signin', { email: 'nobody@example.test', password: PASSWORD });
    const wrong = await a.call('POST', '/signin', {
      email: 'analyst@example.test',
      password: 'not the password',
    });
    assert.equal(unknown.statusCode, 401);
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(
      { ...unknown.json<Envelope>().error, request_id: '' },
      { ...wrong.json<Envelope>().error, request_id: '' },
    );
  });

  test('sign in, sign out; a signed-out cookie is worthless', async () => {
    const browser = new Browser('198.51.100.90');
    const signin = await browser.call('POST', '/signin', { email: 'keys@example.test', password: PASSWORD });
    assert.equal(signin.statusCode, 200);
    const cookie = browser.cookie;
    assert.equal((await browser.call('POST', '/signout')).statusCode, 204);
    browser.cookie = cookie;
    assert.equal((await browser.call('GET', '/me')).statusCode, 401);
  });

  test('sign-up answers byte for byte alike for a new and a registered email, and changes no password', async () => {
    const other = 'another long password';
    const answer = async (email: string) => {
      const res = await new Browser('198.51.100.91').call('POST', '/signup', { email, password: other });
      const { date: _date, 'x-request-id': _id, ...headers } = res.headers;
      return { status: res.statusCode, headers, body: res.rawPayload.toString('hex') };
    };
    const fresh = await answer('newcomer@example.test');
    const taken = await answer('KEYS@example.test');
    assert.deepEqual(taken, fresh);
    assert.equal(fresh.status, 202);
    assert.equal(fresh.headers['set-cookie'], undefined);
    const signIn = (email: string, password: string) =>
      new Browser('198.51.100.92').call('POST', '/signin', { email, password });
    assert.equal((await signIn('keys@example.test', PASSWORD)).statusCode, 200, 'the owner keeps theirs');
    assert.equal((await signIn('keys@example.test', other)).statusCode, 401);
    assert.equal((await signIn('newcomer@example.test', other)).statusCode, 200);
  });

  test('only admins list users and change plans', async () => {
    const user = new Browser('198.51.100.100');
    await user.join('plain@example.test');
    assert.equal((await user.call('GET', '/admin/users')).statusCode, 403);
    await db.query("UPDATE users SET is_admin = true WHERE email = 'plain@example.test'");
    const list = await user.call('GET', '/admin/users');
    const target = list
      .json<{ data: { id: string; email: string }[] }>()
      .data.find((u) => u.email === 'owner@example.test');
    assert.ok(target);
    const changed = await user.call('PATCH', `/admin/users/${target.id}`, { plan: 'developer' });
    assert.equal(changed.json<{ user: { plan: string } }>().user.plan, 'developer');
  });

  test('resend of an unfinished delivery is 409; of a finished one 202', async () => {
    const user = new Browser('198.51.100.120');
    await user.join('resender@example.test');
    await db.query("UPDATE users SET plan = 'developer' WHERE email = 'resender@example.test'");
    const created = await user.call('POST', '/webhooks', { url: 'https://93.184.216.34/hooks' });
    assert.equal(created.statusCode, 201, created.body);
    const webhookId = created.json<{ webhook: { id: string } }>().webhook.id;
    const [delivery] = await enqueue(db, webhookId, [{ event: 'signal.created', data: {}, ts: 1 }]);
    assert.ok(delivery);
    const pending = await user.call('POST', `/deliveries/${delivery.id}/resend`);
    assert.equal(pending.statusCode, 409, pending.body);
    assert.match(pending.json<Envelope>().error.message, /is pending, not finished/);
    await db.query("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = $1", [
      delivery.id,
    ]);
    const resent = await user.call('POST', `/deliveries/${delivery.id}/resend`);
    assert.equal(resent.statusCode, 200, resent.body);
    assert.equal(resent.json<{ delivery: { series: number } }>().delivery.series, 2);
  });

  test('a test event and a secret rotation from the dashboard: CSRF-checked, own webhooks only', async () => {
    const user = new Browser('198.51.100.121');
    await user.join('tools@example.test');
    await db.query("UPDATE users SET plan = 'developer' WHERE email = 'tools@example.test'");
    const created = await user.call('POST', '/webhooks', { url: 'https://93.184.216.34/hooks' });
    const { webhook, secret } = created.json<{ webhook: { id: string }; secret: string }>();

    const forged = await user.call('POST', `/webhooks/${webhook.id}/test`, undefined, {
      'x-csrf-token': 'x',
    });
    assert.equal(forged.statusCode, 403, 'no test event without the CSRF token');
    const tested = await user.call('POST', `/webhooks/${webhook.id}/test`);
    assert.equal(tested.statusCode, 202, tested.body);
    const { delivery } = tested.json<{ delivery: { id: string; event: string; status: string } }>();
    assert.deepEqual([delivery.event, delivery.status], ['webhook.test', 'pending']);
    const [stored] = await db.query<{ payload: { test: boolean; data: object } }>(
      'SELECT payload FROM webhook_deliveries WHERE id = $1',
      [delivery.id],
    );
    assert.deepEqual([stored?.payload.test, stored?.payload.data], [true, { webhook_id: webhook.id }]);

    const refused = await user.call('POST', `/webhooks/${webhook.id}/rotate-secret`, undefined, {
      'x-csrf-token': 'x',
    });
    assert.equal(refused.statusCode, 403);
    const rotated = await user.call('POST', `/webhooks/${webhook.id}/rotate-secret`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal(rotated.headers['cache-control'], 'no-store');
    const body = rotated.json<{ secret: string; webhook: { previous_secret_expires_at: string } }>();
    assert.notEqual(body.secret, secret);
    assert.ok(Date.parse(body.webhook.previous_secret_expires_at) > Date.now());
    const listed = await user.call('GET', '/webhooks');
    assert.ok(!listed.body.includes(body.secret) && !listed.body.includes(secret), 'never listed');

    const other = new Browser('198.51.100.122');
    await other.join('not-the-owner@example.test');
    for (const path of ['test', 'rotate-secret']) {
      const res = await other.call('POST', `/webhooks/${webhook.id}/${path}`);
      assert.equal(res.statusCode, 404, `${path}: ${res.body}`);
    }
    const hostile = await user.call('POST', `/webhooks/${webhook.id}/rotate-secret`, { overlap_seconds: -1 });
    assert.equal(hostile.statusCode, 400);
  });

  test('the page is served from this origin with a strict CSP', async () => {
    const page = await app.inject({ method: 'GET', url: '/dashboard' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'; script-src 'self'/);
    assert.doesNotMatch(page.body, /https?:\/\//, 'no external asset');
    const script = await app.inject({ method: 'GET', url: '/dashboard/assets/app.js' });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /javascript/);
    assert.equal((await app.inject({ method: 'GET', url: '/dashboard/assets/..%2fapp.ts' })).statusCode, 404);
  });
});

describe('dashboard sources', () => {
  test('each source’s schedule, last success and next run; the error text only for administrators', async () => {
    const { recordNextRun, recordPoll } = await import('../../src/store/announcement-pages.ts');
    await recordPoll(db, {
      at: '2026-11-25T22:05:00.000Z',
      newest: { date: '2026-11-25', url: 'http://127.0.0.1/News/Contracts/Contract/Article/9/' },
      news: true,
      error: null,
      refused: false,
    });
    await recordPoll(db, {
      at: '2026-11-25T22:10:00.000Z',
      newest: null,
      news: false,
      error: 'DoD contracts feed answered 403 (feed, http://proxy.internal/feed)',
      refused: true,
    });
    await recordNextRun(db, '2026-11-25T22:20:00.000Z');
    const live = await testApp(db, { ANNOUNCEMENTS_LIVE: 'on', INGEST_SCHEDULE: '6h' });
    try {
      const browser = new Browser('198.51.100.40');
      const call = (url: string) =>
        live.inject({ method: 'GET', url: `/dashboard/api${url}`, headers: { cookie: browser.cookie } });
      assert.equal((await call('/sources')).statusCode, 401, 'signed in only');
      await browser.join('sources@example.test');
      const res = await call('/sources');
      assert.equal(res.statusCode, 200, res.body);
      const [dod, usaspending] = res.json<{ data: Record<string, unknown>[] }>().data;
      assert.deepEqual(dod, {
        source: 'dod-feed',
        name: 'DoD contract announcements (live feed)',
        scheduled: true,
        last_success_at: '2026-11-25T22:05:00.000Z',
        next_run_at: '2026-11-25T22:20:00.000Z',
        latest: '2026-11-25',
        last_error_at: '2026-11-25T22:10:00.000Z',
        last_refused_at: '2026-11-25T22:10:00.000Z',
      });
      assert.equal(usaspending?.source, 'usaspending');
      assert.equal(usaspending?.scheduled, true);
      assert.equal((await call('/sources?x=1')).statusCode, 400);
      await db.query(`UPDATE users SET is_admin = true WHERE email = 'sources@example.test'`);
      const admin = (await call('/sources')).json<{ data: Record<string, unknown>[] }>().data[0];
      assert.match(String(admin?.last_error), /403/);
    } finally {
      await live.close();
    }
  });
});
