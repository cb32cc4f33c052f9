/** The caches' bounds and invalidation rules, on a bus the test drives. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify, { type FastifyContextConfig } from 'fastify';
import { Type } from 'typebox';
import { access, cached } from '../../src/http/access.ts';
import { cacheKey, cacheKeyFromEntries, ifNoneMatch, installCaching } from '../../src/http/caching.ts';
import { Query } from '../../src/http/schemas/common.ts';
import type { App, Services } from '../../src/http/types.ts';
import { KeyCache } from '../../src/infra/key-cache.ts';
import { Lru } from '../../src/infra/lru.ts';
import { type CachedResponse, ResponseCache } from '../../src/infra/response-cache.ts';
import type { KeyPrincipal } from '../../src/store/accounts.ts';
import { CHANNELS, type NotificationBus } from '../../src/store/notifications.ts';

class FakeBus {
  healthy = true;
  private readonly handlers = new Map<string, ((payload: string) => void)[]>();
  private readonly watchers: ((healthy: boolean) => void)[] = [];
  subscribe(channel: string, handler: (payload: string) => void) {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
    return () => undefined;
  }
  onHealthChange(watcher: (healthy: boolean) => void) {
    this.watchers.push(watcher);
    return () => undefined;
  }
  notify(channel: string, payload = '') {
    for (const handler of this.handlers.get(channel) ?? []) handler(payload);
  }
  setHealthy(healthy: boolean) {
    this.healthy = healthy;
    for (const watcher of this.watchers) watcher(healthy);
  }
  get bus() {
    return this as unknown as NotificationBus;
  }
}

const body = (bytes: number, tag = 'x'): CachedResponse => ({
  body: Buffer.alloc(bytes, tag),
  etag: `"${tag}"`,
  contentType: 'application/json',
});

describe('Lru', () => {
  test('holds at most maxSize by the size of its values, dropping the least recently used', () => {
    const lru = new Lru<string, string>(10, (value) => value.length);
    lru.set('a', 'aaaa');
    lru.set('b', 'bbbb');
    assert.equal(lru.get('a'), 'aaaa', 'a is now more recent than b');
    lru.set('c', 'cccc');
    assert.equal(lru.get('b'), undefined, 'b was the least recently used');
    assert.deepEqual([lru.get('a'), lru.get('c'), lru.size, lru.count], ['aaaa', 'cccc', 8, 2]);
    lru.set('a', 'a');
    assert.equal(lru.size, 5, 'replacing a value replaces its size');
    lru.set('huge', 'x'.repeat(11));
    assert.equal(lru.get('huge'), undefined, 'a value larger than the bound is not kept');
    assert.equal(lru.count, 2, 'and evicts nothing');
    lru.deleteWhere((value) => value === 'a');
    assert.deepEqual([lru.count, lru.size], [1, 4]);
  });

  test('a hit promotes an entry of the older half; one of the younger half keeps its place', () => {
    const lru = new Lru<string, number>(4);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) lru.set(key, i);
    lru.get('a'); // oldest: promoted, the order is now b c d a
    lru.get('d'); // one move behind the newest of four: stays, b c d a
    lru.set('e', 4);
    lru.set('f', 5);
    assert.deepEqual(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((key) => lru.get(key) !== undefined),
      [true, false, false, true, true, true],
      'b and c went first; a, promoted, outlived them',
    );
    // The checks above promoted each in turn: a d e f, e one move behind the newest.
    for (let i = 0; i < 1000; i += 1) lru.get('e');
    lru.set('g', 6);
    lru.set('h', 7);
    lru.set('i', 8);
    assert.equal(lru.get('e'), undefined, 'hits in the younger half do not move it: it aged as others came');
    assert.equal(lru.get('f'), 5, 'exact LRU would have dropped f instead');
  });

  test('keeps and drops exactly what the Map-ordered LRU it replaced did, over random work', () => {
    /** The implementation before the linked list: recency is the Map's insertion order. */
    class MapOrdered {
      readonly map = new Map<string, { value: number; size: number; tick: number }>();
      total = 0;
      tick = 0;
      constructor(readonly maxSize: number) {}
      get(key: string) {
        const entry = this.map.get(key);
        if (!entry) return undefined;
        if ((this.tick - entry.tick) * 2 >= this.map.size) {
          this.map.delete(key);
          entry.tick = ++this.tick;
          this.map.set(key, entry);
        }
        return entry.value;
      }
      set(key: string, value: number) {
        this.delete(key);
        const size = 1 + (value % 3);
        if (size > this.maxSize) return;
        this.map.set(key, { value, size, tick: ++this.tick });
        this.total += size;
        for (const [oldest, entry] of this.map) {
          if (this.total <= this.maxSize) break;
          this.map.delete(oldest);
          this.total -= entry.size;
        }
      }
      delete(key: string) {
        const entry = this.map.get(key);
        if (!entry) return;
        this.map.delete(key);
        this.total -= entry.size;
      }
    }
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const lru = new Lru<string, number>(40, (value) => 1 + (value % 3));
    const model = new MapOrdered(40);
    for (let i = 0; i < 20_000; i += 1) {
      // Keys built anew at each call, as a request's key hash is.
      const key = `k${random(60)}`;
      const op = random(20);
      if (op < 12) assert.equal(lru.get(`${key}`), model.get(key), `get ${key} at step ${i}`);
      else if (op < 19) {
        lru.set(key, i);
        model.set(key, i);
      } else if (op === 19 && random(10) === 0) {
        lru.deleteWhere((value) => value % 2 === 0);
        for (const [k, entry] of model.map) if (entry.value % 2 === 0) model.delete(k);
      } else {
        lru.delete(key);
        model.delete(key);
      }
      assert.deepEqual([lru.count, lru.size], [model.map.size, model.total], `sizes at step ${i}`);
    }
  });
});

describe('ResponseCache', () => {
  test('is bounded by bytes (bodies and keys) and evicts the least recently used', () => {
    const fake = new FakeBus();
    const cache = new ResponseCache({ bus: fake.bus, maxBytes: 3 * (1000 + 1 + 3 + 200) });
    for (const key of ['a', 'b', 'c']) cache.put(key, 0, body(1000, key));
    assert.equal(cache.bytes, 3 * 1204);
    assert.ok(cache.get('a'));
    cache.put('d', 0, body(1000, 'd'));
    assert.equal(cache.get('b'), undefined, 'b was the least recently used');
    assert.ok(cache.get('a') && cache.get('c') && cache.get('d'));
    cache.put('big', 0, body(5000));
    assert.equal(cache.get('big'), undefined);
    assert.ok(cache.bytes <= 3 * 1204);
  });

  test('a data notification starts a new version: older entries and bodies computed before it are misses', () => {
    const fake = new FakeBus();
    const cache = new ResponseCache({ bus: fake.bus });
    const version = cache.begin();
    assert.equal(version, 0);
    cache.put('a', version ?? -1, body(10));
    const inFlight = cache.begin() ?? -1;
    fake.notify(CHANNELS.data, 'contracts');
    assert.equal(cache.get('a'), undefined);
    cache.put('b', inFlight, body(10));
    assert.equal(cache.get('b'), undefined, 'computed from the old version');
    cache.put('b', cache.begin() ?? -1, body(10));
    assert.ok(cache.get('b'));
  });

  test('nothing is served or kept while the bus is unhealthy, and a health change empties it', () => {
    const fake = new FakeBus();
    const cache = new ResponseCache({ bus: fake.bus });
    cache.put('a', 0, body(10));
    fake.healthy = false;
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.begin(), null);
    fake.setHealthy(false);
    fake.setHealthy(true);
    assert.equal(cache.get('a'), undefined, 'emptied');
    assert.equal(cache.bytes, 0);
  });
});

describe('KeyCache', () => {
  const principal = (id: string, userId: string): KeyPrincipal => ({
    id,
    user_id: userId,
    name: 'k',
    mode: 'live',
    scopes: ['read'],
    display_prefix: 'iv_live_abcd',
    created_at: '2026-01-01T00:00:00.000Z',
    last_used_at: null,
    revoked_at: null,
    hash: `h-${id}`,
    plan: 'developer',
    is_admin: false,
  });

  test('keeps found keys up to the TTL, never misses, and drops by key, by user or all', async () => {
    const fake = new FakeBus();
    let now = 0;
    const cache = new KeyCache({ bus: fake.bus, ttlMs: 60_000, clock: () => now });
    let loads = 0;
    const find = (hash: string, found: KeyPrincipal | null) =>
      cache.find(hash, async () => {
        loads += 1;
        return found;
      });
    await find('h1', principal('k1', 'u1'));
    await find('h1', principal('k1', 'u1'));
    assert.equal(loads, 1);
    await find('nope', null);
    await find('nope', null);
    assert.equal(loads, 3, 'a lookup that found nothing is not kept');
    now = 60_001;
    await find('h1', principal('k1', 'u1'));
    assert.equal(loads, 4, 'expired');

    await find('h2', principal('k2', 'u1'));
    await find('h3', principal('k3', 'u2'));
    fake.notify(CHANNELS.keys, 'key:k3');
    assert.equal(cache.size, 2);
    fake.notify(CHANNELS.keys, 'user:u1');
    assert.equal(cache.size, 0);
    await find('h1', principal('k1', 'u1'));
    fake.notify(CHANNELS.keys, 'all');
    assert.equal(cache.size, 0);
  });

  test('entries expire between three quarters of the TTL and the TTL, spread out', async () => {
    const fake = new FakeBus();
    let now = 0;
    const cache = new KeyCache({ bus: fake.bus, ttlMs: 60_000, clock: () => now });
    const hashes = Array.from({ length: 200 }, (_, i) => `h${i}`);
    for (const hash of hashes) await cache.find(hash, async () => principal(hash, 'u1'));
    const cachedAt = (t: number) => {
      now = t;
      return hashes.filter((hash) => cache.peek(hash) !== undefined).length;
    };
    assert.equal(cachedAt(44_999), 200, 'none before 45 s');
    const atFiftyTwo = cachedAt(52_500);
    assert.ok(atFiftyTwo > 40 && atFiftyTwo < 160, `about half left at 52.5 s, got ${atFiftyTwo}`);
    assert.equal(cachedAt(60_000), 0, 'none at 60 s');
  });

  test('concurrent lookups of one key share a read, unless a notification came in between', async () => {
    const fake = new FakeBus();
    const cache = new KeyCache({ bus: fake.bus });
    let loads = 0;
    const gates: (() => void)[] = [];
    const slowLoad = (found: KeyPrincipal) => () =>
      new Promise<KeyPrincipal | null>((resolve) => {
        loads += 1;
        gates.push(() => resolve(found));
      });
    const live = principal('k1', 'u1');
    const revoked = { ...live, revoked_at: '2026-01-02T00:00:00.000Z' };
    const first = cache.find('h1', slowLoad(live));
    const second = cache.find('h1', slowLoad(live));
    assert.equal(loads, 1, 'the second waits for the first read');
    // A revocation is committed and notified while that read is in flight: a lookup after it must not
    // get the read that began before it.
    fake.notify(CHANNELS.keys, 'key:k1');
    const third = cache.find('h1', slowLoad(revoked));
    assert.equal(loads, 2);
    for (const open of gates) open();
    assert.equal((await first)?.revoked_at, null);
    assert.equal(await second, await first);
    assert.equal((await third)?.revoked_at, revoked.revoked_at);
  });

  test('a lookup overtaken by a notification is not kept', async () => {
    const fake = new FakeBus();
    const cache = new KeyCache({ bus: fake.bus });
    await cache.find('h1', async () => {
      fake.notify(CHANNELS.keys, 'key:k1');
      return principal('k1', 'u1');
    });
    assert.equal(cache.size, 0);
  });

  test('reads the database while the bus is unhealthy, and empties on each health change', async () => {
    const fake = new FakeBus();
    const cache = new KeyCache({ bus: fake.bus });
    await cache.find('h1', async () => principal('k1', 'u1'));
    assert.equal(cache.size, 1);
    fake.healthy = false;
    const revoked = { ...principal('k1', 'u1'), revoked_at: '2026-01-02T00:00:00.000Z' };
    assert.equal((await cache.find('h1', async () => revoked))?.revoked_at, revoked.revoked_at);
    fake.setHealthy(false);
    assert.equal(cache.size, 0);
    await cache.find('h2', async () => principal('k2', 'u2'));
    assert.equal(cache.size, 0, 'nothing kept while unhealthy');
  });
});

describe('route config', () => {
  test('a secret route or a write may not be cached', () => {
    const refused: ['GET' | 'POST', FastifyContextConfig][] = [
      ['GET', { ...cached(access.read), secret: true }],
      ['POST', cached(access.write)],
    ];
    for (const [method, config] of refused) {
      const app = Fastify() as unknown as App;
      installCaching(app, { now: () => new Date() } as Services, { responses: null, bus: null });
      assert.throws(() => app.route({ method, url: '/x', config, handler: async () => ({}) }), /cache/);
    }
  });

  test('cache keys from the route’s names equal keys from the validated entries, for any spelling', async () => {
    const app = Fastify({
      ajv: { customOptions: { removeAdditional: false, coerceTypes: true, useDefaults: true } },
    }) as unknown as App;
    const keys = (request: Parameters<typeof cacheKey>[0]) => {
      const now = new Date('2026-03-01T12:00:00Z');
      return { fast: cacheKey(request, now), entries: cacheKeyFromEntries(request, now) };
    };
    app.get(
      '/t/:ticker/:b',
      {
        schema: {
          params: Type.Object({ ticker: Type.String(), b: Type.Integer() }),
          querystring: Query({
            limit: Type.Integer({ default: 50 }),
            zeta: Type.Optional(Type.String()),
            alpha: Type.Optional(Type.Boolean()),
            'a-b': Type.Optional(Type.String()),
          }),
        },
      },
      async (request) => keys(request),
    );
    // A query schema that admits undeclared names: the entries are sorted at each request.
    app.get(
      '/open',
      { schema: { querystring: Type.Object({ x: Type.Optional(Type.String()) }) } },
      async (request) => keys(request),
    );
    const urls = [
      '/t/LMT/1',
      '/t/LMT/01?limit=50',
      '/t/LMT/1?zeta=%22%5D,%5B&alpha=true',
      '/t/LMT/1?alpha=true&zeta=%22%5D,%5B',
      '/t/a%2Fb/2?a-b=%E2%9C%93&limit=7',
      '/open',
      '/open?y=2&x=1',
      '/open?x=1&y=2',
    ];
    const seen = new Map<string, string>();
    for (const url of urls) {
      const answer = await app.inject({ method: 'GET', url });
      assert.equal(answer.statusCode, 200, url);
      const { fast, entries } = answer.json() as { fast: string; entries: string };
      assert.equal(fast, entries, url);
      seen.set(url, fast);
    }
    assert.equal(seen.get('/t/LMT/1'), seen.get('/t/LMT/01?limit=50'), 'one entry for two spellings');
    assert.equal(
      seen.get('/t/LMT/1?zeta=%22%5D,%5B&alpha=true'),
      seen.get('/t/LMT/1?alpha=true&zeta=%22%5D,%5B'),
    );
    assert.equal(seen.get('/open?y=2&x=1'), seen.get('/open?x=1&y=2'));
    assert.equal(new Set(seen.values()).size, 5, 'different input, different keys');
    await app.close();
  });

  test('If-None-Match: lists, weak prefixes and *', () => {
    assert.ok(ifNoneMatch('"a", W/"b"', '"b"'));
    assert.ok(ifNoneMatch('*', '"b"'));
    assert.ok(!ifNoneMatch('"a"', '"b"'));
    assert.ok(!ifNoneMatch(undefined, '"b"'));
  });
});
