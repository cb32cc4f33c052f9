/**
 * Answers are built from the matched route, never from the request's spelling (docs/SECURITY.md,
 * "Answers are built from the route"). Every cacheable route — taken from the app's own route table —
 * is requested by one caller over a raw socket under hostile spellings of its target (absolute form
 * naming another host, `#`, `;`, `//`, percent-encoded path and query, a trailing slash) right after the
 * response cache was emptied, as a write would; then a second caller on the same tier reads it. The
 * second caller's `Link`, body and headers must be the canonical ones, and no answer may carry the
 * first caller's host or spelling.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { RouteAccess } from '../../src/http/access.ts';
import { access, cached } from '../../src/http/access.ts';
import { canonicalPath, canonicalUrl } from '../../src/http/canonical.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { makeKey, testApp, testConfig } from '../support/app.ts';
import { freshDb, seededDb } from '../support/db.ts';
import { type RawAnswer, rawGet } from '../support/raw-http.ts';

const ATTACKER_HOST = 'attacker.example';

let db: Db;
let app: App;
let port: number;
let attacker: string;
let victim: string;
const samples: Record<string, string> = { ticker: 'LMT' };

before(async () => {
  db = await seededDb();
  app = await testApp(db);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  port = address.port;
  // Two accounts on one plan: the same tier, so they share cached answers.
  attacker = (await makeKey(db, { plan: 'institutional' })).raw;
  victim = (await makeKey(db, { plan: 'institutional' })).raw;
  const scored = await db.query<{ id: string }>('SELECT contract_id AS id FROM signals ORDER BY 1 LIMIT 1');
  samples.id = scored[0]?.id ?? assert.fail('the seeded database has no signals');
  assert.ok(app.caches.responses, 'the response cache is on');
});
after(async () => {
  await app?.close();
  await db?.close();
});

const cacheable = (): RouteAccess[] => app.routeAccess.filter((r) => r.cache && r.method === 'GET');

/** The route's path with sample parameters, written as the server writes it. */
const pathOf = (route: RouteAccess) =>
  route.url.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(samples[name] ?? assert.fail(`no sample for :${name} of ${route.url}`)),
  );

/** A sample read of the route: `limit=1` where it takes one, so that lists have a next page. */
interface Sample {
  route: RouteAccess;
  path: string;
  query: string;
  /** The answer to the canonical spelling, as the victim reads it with nothing cached. */
  baseline: RawAnswer;
}

const read = (target: string, key: string) => rawGet(port, target, { 'x-api-key': key });
const emptyCaches = () => app.caches.responses?.invalidate();
const targetOf = (path: string, query: string) => (query ? `${path}?${query}` : path);

async function sampleOf(route: RouteAccess): Promise<Sample> {
  const path = pathOf(route);
  // A route that requires a query parameter (benchmarks: `ticker`) refuses the shorter ones with 400.
  for (const query of ['limit=1', 'ticker=SPY&limit=1', '']) {
    emptyCaches();
    const baseline = await read(targetOf(path, query), victim);
    if (baseline.status === 200) return { route, path, query, baseline };
  }
  return assert.fail(`${route.url}: no sample answered 200`);
}

/** The `Link` target, or null. */
const linkTarget = (answer: RawAnswer) =>
  /^<([^>]*)>; rel="next"$/.exec(answer.headers.link ?? '')?.[1] ?? null;

/** A `Link` the service may write for `sample`: origin-relative, the route's own path, no fragment. */
function assertCanonicalLink(sample: Sample, answer: RawAnswer, label: string) {
  const link = answer.headers.link;
  if (link === undefined) return;
  const target = linkTarget(answer);
  assert.ok(target, `${label}: Link is one rel="next" target: ${link}`);
  assert.ok(target.startsWith(`${sample.path}?`), `${label}: Link is on the route's path: ${target}`);
  assert.ok(!target.includes('#') && !target.startsWith('//'), `${label}: ${target}`);
  const resolved = new URL(target, 'http://service.test');
  assert.equal(resolved.origin, 'http://service.test', label);
  assert.equal(resolved.pathname, sample.path, label);
}

/** Nothing of the attacker's spelling in any header or the body. */
function assertUntainted(answer: RawAnswer, label: string) {
  const text = `${JSON.stringify(answer.headers)}\n${answer.body}`;
  assert.ok(!text.includes(ATTACKER_HOST), `${label}: the attacker's host leaked: ${text.slice(0, 300)}`);
  for (const spelling of [';x=1', 'v%31', '%6Cimit', '#', '//api']) {
    assert.ok(!(answer.headers.link ?? '').includes(spelling), `${label}: Link carries "${spelling}"`);
  }
}

/** Hostile spellings of one sample target, each labelled; `refused` ones must be a 400. */
function spellings({ path, query }: Sample): { label: string; target: string; refused: boolean }[] {
  const q = query ? `?${query}` : '';
  const last = path.length - 1;
  const encodedLast = `${path.slice(0, last)}%${path.charCodeAt(last).toString(16).toUpperCase()}`;
  return [
    { label: 'absolute form', target: `http://${ATTACKER_HOST}${path}${q}`, refused: true },
    { label: 'absolute https with port', target: `https://${ATTACKER_HOST}:8443${path}${q}`, refused: true },
    { label: 'absolute form, // path', target: `http://${ATTACKER_HOST}/${path}${q}`, refused: true },
    { label: '# before the query', target: `${path}#x${q}`, refused: true },
    { label: '# alone before the query', target: `${path}#${q}`, refused: true },
    { label: '# after the query', target: `${path}${q}#x`, refused: true },
    { label: '# as the query', target: `${path}#${query}`, refused: true },
    { label: 'leading //', target: `/${path}${q}`, refused: true },
    { label: '; parameter', target: `${path};x=1${q}`, refused: false },
    { label: '// inside', target: `${path.replace('/v1/', '/v1//')}${q}`, refused: false },
    { label: 'encoded static segment', target: `${path.replace('/v1/', '/v%31/')}${q}`, refused: false },
    { label: 'encoded last character', target: `${encodedLast}${q}`, refused: false },
    { label: 'trailing slash', target: `${path}/${q}`, refused: false },
    { label: 'encoded query name', target: `${path}${q.replace('limit', '%6Cimit')}`, refused: false },
  ];
}

describe('answers are built from the route, not the spelling', () => {
  test('every cacheable route has a sample that answers 200, lists with a Link', async () => {
    const routes = cacheable();
    assert.ok(routes.length >= 10, `cacheable routes found: ${routes.length}`);
    const linked = [];
    for (const route of routes) {
      const sample = await sampleOf(route);
      assertCanonicalLink(sample, sample.baseline, `${route.url} baseline`);
      if (sample.baseline.headers.link) linked.push(route.url);
    }
    // Lists paged by cursor and the candle lists: the headers this finding was about.
    for (const url of ['/api/v1/events', '/api/v1/benchmarks', '/api/v1/market/candles/:ticker']) {
      assert.ok(linked.includes(url), `${url} answered its sample with a Link (${linked.join(', ')})`);
    }
  });

  for (const label of ['absolute form', '#', ';', '//', 'encoded', 'trailing slash']) {
    test(`spellings (${label}) never reach another caller's answer`, async () => {
      for (const route of cacheable()) {
        const sample = await sampleOf(route);
        const chosen = spellings(sample).filter((s) => s.label.includes(label));
        assert.ok(chosen.length > 0);
        for (const spelling of chosen) {
          const name = `${route.url} ${spelling.label} (${spelling.target})`;
          emptyCaches();
          const hostile = await read(spelling.target, attacker);
          if (spelling.refused) {
            assert.equal(hostile.status, 400, `${name}: ${hostile.body.slice(0, 200)}`);
            const envelope = JSON.parse(hostile.body) as { error: { code: string; message: string } };
            assert.equal(envelope.error.code, 'bad_request', name);
          } else {
            assert.ok(
              [200, 400, 404].includes(hostile.status),
              `${name}: ${hostile.status} ${hostile.body.slice(0, 200)}`,
            );
            if (hostile.status === 200) assertCanonicalLink(sample, hostile, name);
          }
          assertUntainted(hostile, name);
          const after = await read(targetOf(sample.path, sample.query), victim);
          assert.equal(after.status, 200, name);
          assert.equal(after.headers.link, sample.baseline.headers.link, `${name}: the victim's Link`);
          assert.equal(after.body, sample.baseline.body, `${name}: the victim's body`);
          assert.equal(after.headers.etag, sample.baseline.headers.etag, name);
          assertUntainted(after, `${name}, read by another caller`);
        }
      }
    });
  }

  test('a # that made Link point at its own page is refused, and every Link moves forward', async () => {
    let looped = 0;
    for (const route of cacheable()) {
      const path = pathOf(route);
      emptyCaches();
      const first = await read(path, victim);
      const next = linkTarget(first);
      if (first.status !== 200 || next === null) continue;
      looped += 1;
      emptyCaches();
      // The router reads what follows '#' as the query, so `…#` is the same request as `…`; a Link
      // built from its text, `<…#?…&cursor=…>`, resolves to the page itself: a client following it
      // loops for ever, every caller on the tier once it is cached.
      const hostile = await read(`${path}#`, attacker);
      assert.equal(hostile.status, 400, `${route.url}: ${hostile.body.slice(0, 200)}`);
      const again = await read(path, victim);
      const target = linkTarget(again) ?? assert.fail(`${route.url}: the first page links on`);
      const resolved = new URL(target, 'http://service.test');
      assert.notEqual(`${resolved.pathname}${resolved.search}`, path, `${route.url}: Link is not the page`);
      assert.ok(resolved.searchParams.size > 0, `${route.url}: the next page has a query: ${target}`);
      const followed = await read(target, victim);
      assert.equal(followed.status, 200, `${route.url} next page ${target}`);
      assert.notEqual(followed.body, first.body, `${route.url}: the next page is another page`);
    }
    assert.ok(looped >= 3, `routes whose first page links on: ${looped}`);
  });

  test('an absolute-form target is refused on unknown paths too, before any key is looked at', async () => {
    const answer = await rawGet(port, `http://${ATTACKER_HOST}/nowhere`);
    assert.equal(answer.status, 400);
    assert.match(answer.body, /request target must be a path/);
    assertUntainted(answer, 'unknown path');
  });
});

describe('canonical URLs', () => {
  const request = (url: string | undefined, params: Record<string, unknown>, query = {}) =>
    ({ routeOptions: { url }, params, query }) as unknown as FastifyRequest;

  test('each parameter fills its segment, percent-encoded: no value can add a segment, query or fragment', () => {
    const hostile = request('/api/v1/things/:id/parts/:part', { id: 'a/../b?c=1#d', part: '//x.example' });
    assert.equal(canonicalPath(hostile), '/api/v1/things/a%2F..%2Fb%3Fc%3D1%23d/parts/%2F%2Fx.example');
    assert.equal(
      canonicalUrl(hostile, { q: 'x&y=#', skipped: undefined, limit: 2 }),
      '/api/v1/things/a%2F..%2Fb%3Fc%3D1%23d/parts/%2F%2Fx.example?q=x%26y%3D%23&limit=2',
    );
    assert.equal(canonicalUrl(request('/api/v1/events', {}), {}), '/api/v1/events');
  });

  test('without a matched route, or a parameter the route names, nothing is built', () => {
    assert.throws(() => canonicalPath(request(undefined, {})), /matched route/);
    assert.throws(() => canonicalPath(request('/api/v1/x/:id', {})), /no validated parameter "id"/);
  });
});

describe('the response cache keeps only a Link any caller may be given', () => {
  test('a route whose Link is not origin-relative is answered, never cached', async () => {
    const own = await freshDb();
    const probe = await buildApp({ config: testConfig(), db: own, logger: false });
    const links: Record<string, string> = {
      absolute: `<http://${ATTACKER_HOST}/api/v1/x?page=2>; rel="next"`,
      'scheme-relative': `<//${ATTACKER_HOST}/api/v1/x?page=2>; rel="next"`,
      fragment: '</api/v1/x#?page=2>; rel="next"',
      canonical: '</api/v1/x?page=2>; rel="next"',
    };
    // Test-only routes that write a given Link, as a future route building it from the request would.
    probe.get(
      '/test/links/:kind',
      { config: cached(access.read) },
      async (request: FastifyRequest<{ Params: { kind: string } }>, reply) =>
        reply.header('link', links[request.params.kind]).send({ kind: request.params.kind }),
    );
    await probe.ready();
    try {
      const key = (await makeKey(own)).raw;
      for (const kind of Object.keys(links)) {
        const url = `/test/links/${kind}`;
        const hits = probe.caches.responses?.hits ?? 0;
        for (let i = 0; i < 2; i++) {
          const res = await probe.inject({ url, headers: { 'x-api-key': key } });
          assert.equal(res.statusCode, 200);
          assert.equal(res.headers.link, links[kind], `${kind}: its own answer keeps its header`);
        }
        const kept = (probe.caches.responses?.hits ?? 0) - hits;
        assert.equal(kept, kind === 'canonical' ? 1 : 0, `${kind}: second read from the cache`);
      }
    } finally {
      await probe.close();
      await own.close();
    }
  });
});
