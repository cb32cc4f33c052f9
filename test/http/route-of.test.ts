import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, makeKey, testConfig } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

/**
 * Fastify's `request.routeOptions` builds a new object at every read; a request reads it once
 * (http/route-of.ts) however many of the app's hooks need the route's config, pattern or schema.
 */
let db: Db;
let app: App;
/** Reads of `routeOptions` counted, after the app's own onRequest hooks, while counting is on. */
let counting = false;
let reads = 0;

before(async () => {
  db = await freshDb();
  app = await buildApp({ config: testConfig(), db, logger: false });
  // Added after the app's hooks: runs after its onRequest hooks (access reads the route first), and
  // counts every later read of this request's routeOptions (strict input, caching, metrics…).
  app.addHook('onRequest', (request, _reply, done) => {
    if (!counting) return done();
    let owner: object | null = request;
    while (owner && !Object.hasOwn(owner, 'routeOptions')) owner = Object.getPrototypeOf(owner);
    const get = (owner && Object.getOwnPropertyDescriptor(owner, 'routeOptions')?.get) as () => unknown;
    assert.equal(typeof get, 'function', "Fastify's requests have a routeOptions getter");
    Object.defineProperty(request, 'routeOptions', {
      get(this: FastifyRequest) {
        reads += 1;
        return get.call(this);
      },
    });
    done();
  });
  await app.ready();
});
after(() => closeApp(app, db));

/** Reads of routeOptions after the onRequest hooks while `fn` runs. */
async function routeOptionsReads(fn: () => Promise<unknown>): Promise<number> {
  reads = 0;
  counting = true;
  try {
    await fn();
  } finally {
    counting = false;
  }
  return reads;
}

test('a cached read, miss and hit, reads its route options from Fastify once per request, in its first hooks', async () => {
  const { raw } = await makeKey(db, { plan: 'developer' });
  const get = () => app.inject({ url: '/api/v1/events?limit=5', headers: { 'x-api-key': raw } });
  let miss: Awaited<ReturnType<typeof get>> | undefined;
  assert.equal(await routeOptionsReads(async () => (miss = await get())), 0);
  let hit: Awaited<ReturnType<typeof get>> | undefined;
  assert.equal(await routeOptionsReads(async () => (hit = await get())), 0);
  // The same answer either way: the route's config still decides caching (ETag, Cache-Control).
  assert.equal(miss?.statusCode, 200);
  assert.equal(hit?.statusCode, 200);
  assert.equal(hit?.headers.etag, miss?.headers.etag);
  assert.equal(hit?.headers['cache-control'], 'private, no-cache');
  assert.equal(hit?.body, miss?.body);
});

test('requests to different routes each get their own route options', async () => {
  const { raw } = await makeKey(db, { plan: 'developer' });
  const events = await app.inject({ url: '/api/v1/events?limit=1', headers: { 'x-api-key': raw } });
  const usage = await app.inject({ url: '/api/v1/usage', headers: { 'x-api-key': raw } });
  assert.equal(events.headers['cache-control'], 'private, no-cache');
  assert.equal(usage.statusCode, 200, usage.body);
  assert.equal(usage.headers['cache-control'], 'private, no-store');
});
