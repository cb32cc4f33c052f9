/**
 * The key and response caches against PostgreSQL: two app instances on one database, each with a pool
 * of its own. Writes through one instance's API, or by any other writer (plain SQL here, as psql or the
 * CLI would), reach the other's caches only as notifications of migration 015's triggers; a lost
 * listener bypasses the caches, and reconnecting empties them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { workerConfig } from '../../src/cluster.ts';
import { loadConfig } from '../../src/config.ts';
import type { App } from '../../src/http/types.ts';
import { revokeKey } from '../../src/store/accounts.ts';
import { type Db, openDb } from '../../src/store/db.ts';
import { NotificationBus } from '../../src/store/notifications.ts';
import { type Envelope, makeKey, testApp } from '../support/app.ts';
import { seededDb } from '../support/db.ts';

interface EventPage {
  data: { contract: { id: string; recipient_name: string } }[];
}
interface SignalPage {
  data: { signal: { rationale?: unknown } }[];
}

/** Polls until `ok` holds, failing after `ms`. */
async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const get = (app: App, raw: string, url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers: { 'x-api-key': raw, ...headers } });

describe('caches across instances', () => {
  let db: Db;
  let dbB: Db;
  let a: App;
  let b: App;
  /** Both instances' bus: they run in one process, as a server's app and worker do. */
  let bus: NotificationBus;

  before(async () => {
    db = await seededDb();
    dbB = await openDb({ databaseUrl: db.url, dataDir: '' });
    a = await testApp(db);
    b = await testApp(dbB);
    bus = b.caches.bus as NotificationBus;
    assert.ok(bus.healthy, 'the bus is listening once the app is ready');
    assert.notEqual(a.caches.responses, b.caches.responses);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await dbB?.close();
    await db?.close();
  });

  /** Requests `url` twice on `app` and checks the second was authenticated from the key cache. */
  async function cached(app: App, raw: string, url: string, status = 200): Promise<void> {
    assert.equal((await get(app, raw, url)).statusCode, status);
    const hits = app.caches.keys.hits;
    assert.equal((await get(app, raw, url)).statusCode, status);
    assert.equal(app.caches.keys.hits, hits + 1, 'the second request found the key in the cache');
  }

  const adminKey = () => makeKey(db, { admin: true, scopes: ['admin'] });

  test('a key revoked through one instance is refused by the other at once', async () => {
    const admin = await adminKey();
    const target = await makeKey(db);
    await cached(b, target.raw, '/api/v1/predictions');
    const revoked = await a.inject({
      method: 'DELETE',
      url: `/api/v1/admin/keys/${target.keyId}`,
      headers: { 'x-api-key': admin.raw },
    });
    assert.equal(revoked.statusCode, 200);
    const refused = await get(b, target.raw, '/api/v1/predictions');
    assert.equal(refused.statusCode, 401);
    assert.match(refused.json<Envelope>().error.message, /revoked/);
    const fresh = await makeKey(db);
    assert.equal((await get(b, fresh.raw, '/api/v1/predictions')).statusCode, 200, 'a new key works at once');
  });

  test('a plan downgraded through one instance loses its tier on the other at once', async () => {
    const admin = await adminKey();
    const target = await makeKey(db, { plan: 'institutional' });
    await cached(b, target.raw, '/api/v1/regimes?limit=1');
    const withRationale = (await get(b, target.raw, '/api/v1/signals?limit=3')).json<SignalPage>();
    assert.ok(withRationale.data.every((d) => d.signal.rationale !== undefined));
    const patched = await a.inject({
      method: 'PATCH',
      url: `/api/v1/admin/users/${target.userId}`,
      headers: { 'x-api-key': admin.raw },
      payload: { plan: 'developer' },
    });
    assert.equal(patched.statusCode, 200);
    const refused = await get(b, target.raw, '/api/v1/regimes?limit=1');
    assert.equal(refused.statusCode, 403);
    assert.match(
      refused.json<Envelope>().error.message,
      /requires the intelligence tier; your plan is developer/,
    );
    const page = (await get(b, target.raw, '/api/v1/signals?limit=3')).json<SignalPage>();
    assert.ok(page.data.length > 0);
    assert.ok(
      page.data.every((d) => d.signal.rationale === undefined),
      'no rationale below intelligence',
    );
  });

  // Writers outside the instances (psql, the CLI): the request that follows their notification's arrival.
  test('scope removal, admin flag removal and user deletion by plain SQL reach the cache', async () => {
    const writer = await makeKey(db, { scopes: ['read', 'write'] });
    const admin = await adminKey();
    const deleted = await makeKey(db);
    const [contract] = await db.query<{ id: string }>(
      'SELECT id FROM contracts WHERE ticker IS NOT NULL ORDER BY id LIMIT 1',
    );
    assert.ok(contract);
    const score = `/api/v1/contracts/${contract.id}/score`;
    const noKey = '/api/v1/admin/keys/00000000-0000-4000-8000-000000000000';
    await cached(b, writer.raw, '/api/v1/predictions');
    await cached(b, admin.raw, '/api/v1/predictions');
    await cached(b, deleted.raw, '/api/v1/predictions');
    assert.equal(
      (await b.inject({ method: 'DELETE', url: noKey, headers: { 'x-api-key': admin.raw } })).statusCode,
      404,
    );

    await db.query("UPDATE api_keys SET scopes = '{read}' WHERE id = $1", [writer.keyId]);
    await db.query('UPDATE users SET is_admin = false WHERE id = $1', [admin.userId]);
    await db.query('DELETE FROM users WHERE id = $1', [deleted.userId]);
    assert.ok(await bus.sync());

    const post = await b.inject({ method: 'POST', url: score, headers: { 'x-api-key': writer.raw } });
    assert.equal(post.statusCode, 403);
    assert.match(post.json<Envelope>().error.message, /scope/);
    const notAdmin = await b.inject({ method: 'DELETE', url: noKey, headers: { 'x-api-key': admin.raw } });
    assert.equal(notAdmin.statusCode, 403);
    const gone = await get(b, deleted.raw, '/api/v1/predictions');
    assert.equal(gone.statusCode, 401);
    assert.match(gone.json<Envelope>().error.message, /invalid API key/);
  });

  test('a cached candle page keeps its Link to the next page', async () => {
    const key = await makeKey(db);
    const url = '/api/v1/benchmarks?ticker=SPY&from=2024-03-01&limit=2';
    const first = await get(b, key.raw, url);
    assert.equal(first.statusCode, 200);
    assert.match(
      String(first.headers.link),
      /^<\/api\/v1\/benchmarks\?ticker=SPY&from=2024-03-05&limit=2>; rel="next"$/,
    );
    const hits = b.caches.responses?.hits ?? 0;
    const again = await get(b, key.raw, url);
    assert.equal(b.caches.responses?.hits, hits + 1, 'served from the cache');
    assert.equal(again.body, first.body);
    assert.equal(again.headers.link, first.headers.link);
  });

  test('a contract changed by SQL shows in the next GET on both instances; ETags answer 304 until then', async () => {
    const key = await makeKey(db);
    const url = '/api/v1/events?limit=3';
    const first = await get(a, key.raw, url);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]{27}"$/);

    const onB = await get(b, key.raw, url);
    const hits = b.caches.responses?.hits ?? 0;
    const respelled = await get(b, key.raw, '/api/v1/events?offset=0&limit=3');
    assert.equal(b.caches.responses?.hits, hits + 1, 'the same query spelled otherwise is a hit');
    assert.equal(respelled.body, onB.body);
    assert.equal(onB.headers.etag, etag, 'the same bytes have the same ETag on every instance');

    const notModified = await get(b, key.raw, url, { 'if-none-match': `W/${etag}, "other"` });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    assert.equal(notModified.headers.etag, etag);
    assert.equal(
      Number(notModified.headers['x-ratelimit-remaining']),
      Number(respelled.headers['x-ratelimit-remaining']) - 1,
      'a 304 is counted',
    );

    const id = first.json<EventPage>().data[0]?.contract.id;
    await db.query("UPDATE contracts SET recipient_name = 'Renamed Contractor Inc' WHERE id = $1", [id]);
    assert.ok(await bus.sync());
    for (const app of [a, b]) {
      const changed = await get(app, key.raw, url, { 'if-none-match': etag });
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.equal(changed.json<EventPage>().data[0]?.contract.recipient_name, 'Renamed Contractor Inc');
    }
  });

  test('a rescore that changes nothing empties no cache; one that changes the signal empties both', async () => {
    const writer = await makeKey(db, { plan: 'developer' });
    const reader = await makeKey(db, { plan: 'developer' });
    const [row] = await db.query<{ id: string }>(
      "SELECT contract_id AS id FROM signals WHERE engine_name = 'materiality' ORDER BY contract_id LIMIT 1",
    );
    const id = row?.id ?? assert.fail('the seeded database has signals');
    const rescore = () =>
      a.inject({
        method: 'POST',
        url: `/api/v1/contracts/${id}/score`,
        headers: { 'x-api-key': writer.raw },
      });
    const notified: string[] = [];
    const off = bus.subscribe('mi_data', (table) => notified.push(table));
    try {
      const first = await rescore();
      assert.equal(first.statusCode, 200, first.body);
      assert.ok(await bus.sync());
      const url = '/api/v1/benchmarks?ticker=SPY&limit=3';
      const signals = '/api/v1/signals?limit=3';
      for (const app of [a, b]) {
        for (const read of [url, signals]) assert.equal((await get(app, reader.raw, read)).statusCode, 200);
      }
      notified.length = 0;
      const hits = [a, b].map((app) => app.caches.responses?.hits ?? 0);
      for (let i = 0; i < 3; i++) {
        const again = await rescore();
        assert.equal(again.statusCode, 200);
        assert.deepEqual(again.json(), first.json(), 'the same signal, computed_at included');
      }
      assert.ok(await bus.sync());
      assert.deepEqual(notified, [], 'nothing changed, nothing was notified');
      for (const [i, app] of [a, b].entries()) {
        for (const read of [url, signals]) assert.equal((await get(app, reader.raw, read)).statusCode, 200);
        assert.equal(
          app.caches.responses?.hits,
          (hits[i] ?? 0) + 2,
          'both reads still served from the cache',
        );
      }

      // A signal that differs from what scoring gives (as after new awards) is rewritten: caches empty.
      await db.query(
        "UPDATE signals SET signal_score = (signal_score + 1) % 100 WHERE contract_id = $1 AND engine_name = 'materiality'",
        [id],
      );
      assert.ok(await bus.sync());
      for (const app of [a, b]) await get(app, reader.raw, signals);
      notified.length = 0;
      const fixed = await rescore();
      const values = (res: { json<T>(): T }) => {
        const { computed_at: _at, ...rest } = res.json<{ signal: Record<string, unknown> }>().signal;
        return rest;
      };
      assert.deepEqual(values(fixed), values(first), 'scoring restored the computed values');
      assert.ok(await bus.sync());
      assert.deepEqual(notified, ['signals'], 'the rewrite notified its table once');
      const missesB = b.caches.responses?.misses ?? 0;
      await get(b, reader.raw, signals);
      assert.equal(b.caches.responses?.misses, missesB + 1, 'the other process recomputed the list');
    } finally {
      off();
    }
  });

  test('a tier never sees another tier’s body, and a tier error is never served from the cache', async () => {
    const developer = await makeKey(db, { plan: 'developer' });
    const intelligence = await makeKey(db, { plan: 'institutional' });
    const signals = '/api/v1/signals?limit=3';
    const rationale = (res: { json<T>(): T }) =>
      res.json<SignalPage>().data.map((d) => d.signal.rationale !== undefined);
    for (const order of [
      [intelligence, developer],
      [developer, intelligence],
    ]) {
      for (const key of [...order, ...order]) {
        const res = await get(a, key.raw, signals);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(
          rationale(res),
          [true, true, true].map(() => key === intelligence),
        );
      }
    }
    const engine = '/api/v1/events?limit=2&engine=regime-aware';
    for (const key of [developer, intelligence, intelligence, developer]) {
      const res = await get(a, key.raw, engine);
      assert.equal(res.statusCode, key === intelligence ? 200 : 403);
    }
  });
});

describe('when notifications stop', () => {
  let db: Db;
  let app: App;
  /** A bus of its own, slow to reconnect, so the test can act while it is down. */
  let bus: NotificationBus;

  before(async () => {
    db = await seededDb();
    bus = new NotificationBus({ url: db.url, retryMs: 1_500 });
    app = await testApp(db, {}, { notifications: bus });
  });
  after(async () => {
    await app?.close();
    await bus?.close();
    await db?.close();
  });

  test('writes made while the listener is lost are seen at once, and the caches resume emptied', async () => {
    const seen = await makeKey(db);
    const unseen = await makeKey(db);
    const reader = await makeKey(db);
    const url = '/api/v1/events?limit=1';
    for (const key of [seen, unseen, reader]) {
      await get(app, key.raw, '/api/v1/predictions');
      assert.equal((await get(app, key.raw, '/api/v1/predictions')).statusCode, 200);
    }
    const page = await get(app, reader.raw, url);
    assert.equal((await get(app, reader.raw, url)).body, page.body);
    assert.ok(app.caches.keys.size >= 3);
    const changes: boolean[] = [];
    bus.onHealthChange((healthy) => changes.push(healthy));

    await db.query('SELECT pg_terminate_backend($1)', [bus.pid]);
    await until(() => !bus.healthy);
    // Nobody listens for this instance now: these notifications are lost to it.
    await revokeKey(db, seen.keyId, new Date());
    await revokeKey(db, unseen.keyId, new Date());
    const refused = await get(app, seen.raw, '/api/v1/predictions');
    assert.equal(refused.statusCode, 401, 'the key cache is bypassed');
    const unchanged = await get(app, reader.raw, url, { 'if-none-match': String(page.headers.etag) });
    assert.equal(unchanged.statusCode, 304, 'ETags work without the cache');
    const id = page.json<EventPage>().data[0]?.contract.id;
    await db.query("UPDATE contracts SET recipient_name = 'Amended While Deaf' WHERE id = $1", [id]);
    const amended = await get(app, reader.raw, url);
    assert.equal(amended.json<EventPage>().data[0]?.contract.recipient_name, 'Amended While Deaf');
    assert.equal(bus.healthy, false, 'all of the above ran while the bus was down');

    await until(() => bus.healthy);
    assert.deepEqual(changes, [false, true]);
    const stale = await get(app, unseen.raw, '/api/v1/predictions');
    assert.equal(stale.statusCode, 401, 'the entry from before the gap was dropped');

    const keyHits = app.caches.keys.hits;
    const pageHits = app.caches.responses?.hits ?? 0;
    for (let i = 0; i < 2; i++) {
      const res = await get(app, reader.raw, url);
      assert.equal(res.json<EventPage>().data[0]?.contract.recipient_name, 'Amended While Deaf');
    }
    assert.equal(app.caches.keys.hits, keyHits + 1, 'keys come from the cache again');
    assert.equal(app.caches.responses?.hits, pageHits + 1, 'and so do responses');
  });
});

describe('RESPONSE_CACHE_MB', () => {
  test('bounds the response cache; 0 turns it off and reads still answer', async () => {
    const db = await seededDb();
    const small = await testApp(db, { RESPONSE_CACHE_MB: '3' });
    const off = await testApp(db, { RESPONSE_CACHE_MB: '0' });
    try {
      assert.equal(small.caches.responses?.maxBytes, 3 * 1024 * 1024);
      assert.equal(off.caches.responses, null);
      const reader = await makeKey(db);
      for (const app of [small, off]) {
        const res = await get(app, reader.raw, '/api/v1/events?limit=2');
        assert.equal(res.statusCode, 200);
        assert.ok(res.headers.etag, 'ETags do not need the cache');
      }
    } finally {
      await small.close();
      await off.close();
      await db.close();
    }
  });

  test('hostile values are refused at start, naming the variable', () => {
    for (const value of ['-1', '1.5', 'lots', '16385', '1e3']) {
      assert.throws(() => loadConfig({ RESPONSE_CACHE_MB: value }), /invalid RESPONSE_CACHE_MB/);
    }
  });

  test('a cluster splits the budget among its workers', () => {
    const config = loadConfig({ RESPONSE_CACHE_MB: '64' });
    assert.equal(workerConfig(config, 'postgres://x/y', 2).responseCacheBytes, 32 * 1024 * 1024);
    assert.equal(
      workerConfig(config, 'postgres://x/y', 3).responseCacheBytes,
      Math.floor((64 * 1024 * 1024) / 3),
    );
    assert.equal(workerConfig(config, 'postgres://x/y', 1).databaseUrl, 'postgres://x/y');
  });
});
