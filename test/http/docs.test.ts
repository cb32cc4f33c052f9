/**
 * GET /docs: the API reference, Redoc rendering /api/v1/openapi.json, every asset from this origin.
 * Checked over HTTP (headers, ETag, not in the document) and in a real headless Chromium (it renders,
 * no request leaves the server, no CSP violation); the screenshot goes to var/screenshots/docs.png.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { listenLocally, testConfig } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

// As test/dashboard/browser.test.ts launches it (importing that file would run its tests here).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const SHOTS = new URL('../../var/screenshots/', import.meta.url).pathname;
const EVENTS_SUMMARY = 'Contract events, newest award first, each with its latest signal';

let db: Db;
let app: App;
let base: string;
before(async () => {
  db = await freshDb();
  app = await buildApp({ config: testConfig(), db, logger: false });
  base = await listenLocally(app);
});
after(async () => {
  await app?.close();
  await db?.close();
});

describe('GET /docs over HTTP', () => {
  test('the page and the bundle: public, from this origin, with the page CSP, an ETag and 304s', async () => {
    for (const [url, type, cache] of [
      ['/docs', /^text\/html/, 'no-cache'],
      ['/docs/redoc.standalone.js', /^text\/javascript/, 'public, max-age=300'],
    ] as const) {
      const res = await app.inject({ url, remoteAddress: '10.20.0.1' });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), type, url);
      assert.equal(res.headers['cache-control'], cache, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'self'; script-src 'self';/, url);
      assert.doesNotMatch(csp, /https?:|'unsafe-eval'|\*/, `${url}: nothing from elsewhere`);
      const etag = String(res.headers.etag);
      assert.match(etag, /^"[\w-]+"$/, url);
      const again = await app.inject({ url, headers: { 'if-none-match': etag }, remoteAddress: '10.20.0.1' });
      assert.equal(again.statusCode, 304, url);
      assert.equal(again.body, '', url);
    }
    const page = await app.inject({ url: '/docs' });
    assert.match(page.body, /<redoc spec-url="\/docs\/openapi.json"><\/redoc>/);
    assert.match(page.body, /<script src="\/docs\/redoc.standalone.js"><\/script>/);
    assert.doesNotMatch(page.body, /https?:\/\//, 'the page names no other origin');
    const bundle = await app.inject({ url: '/docs/redoc.standalone.js' });
    assert.ok(!bundle.body.includes('cdn.redoc.ly'), 'the CDN logo is gone from the bundle');
  });

  test('the page loads however often it is opened: its document is not charged to the keyless allowance', async () => {
    const from = { remoteAddress: '10.20.0.9' };
    const api = await app.inject({ url: '/api/v1/openapi.json', ...from });
    assert.equal(api.statusCode, 200);
    // The API's own route spends the address's allowance: it is gone after a few reloads…
    let spent = api;
    for (let i = 0; i < 12 && spent.statusCode === 200; i++) {
      spent = await app.inject({ url: '/api/v1/openapi.json', ...from });
    }
    assert.equal(spent.statusCode, 401);
    // …while the page and everything it fetches keep loading from the same address.
    for (let i = 0; i < 25; i++) {
      for (const url of ['/docs', '/docs/redoc.standalone.js', '/docs/openapi.json']) {
        const res = await app.inject({ url, ...from });
        assert.equal(res.statusCode, 200, `${url} #${i}`);
      }
    }
    const document = await app.inject({ url: '/docs/openapi.json', ...from });
    assert.match(String(document.headers['content-type']), /^application\/json/);
    assert.deepEqual(document.json(), api.json(), 'the same document as the API serves');
    assert.equal(document.headers['x-ratelimit-limit'], undefined);
    const etag = String(document.headers.etag);
    const again = await app.inject({
      url: '/docs/openapi.json',
      headers: { 'if-none-match': etag },
      ...from,
    });
    assert.equal(again.statusCode, 304);
  });

  test('the API keeps its own policy, and /docs is not in the OpenAPI document', async () => {
    const doc = await app.inject({ url: '/api/v1/openapi.json', remoteAddress: '10.20.0.2' });
    assert.equal(doc.statusCode, 200);
    assert.doesNotMatch(String(doc.headers['content-security-policy'] ?? ''), /unsafe-inline/);
    const paths = Object.keys(JSON.parse(doc.body).paths);
    assert.ok(paths.includes('/api/v1/events'));
    assert.ok(!paths.some((p) => p.startsWith('/docs')), paths.join(' '));
    const dashboard = await app.inject({ url: '/dashboard' });
    assert.doesNotMatch(String(dashboard.headers['content-security-policy']), /unsafe-inline|blob:/);
    assert.match(dashboard.body, /<a href="\/docs">API reference<\/a>/, 'the dashboard links to it');
  });
});

const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;

describe('GET /docs in Chromium', { skip: process.env.CI ? false : skip }, () => {
  let browser: Browser;
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
  });

  test('renders the reference from openapi.json, fetching only from this server, with no CSP violation', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    const console: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => console.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => errors.push(String(error)));
    // Violations as the page sees them, besides the console's report of them.
    await page.addInitScript(() => {
      const seen: string[] = [];
      Object.assign(window, { cspViolations: seen });
      document.addEventListener('securitypolicyviolation', (e) =>
        seen.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    await page.goto(`${base}/docs`);
    // The operation's own heading in the middle panel (the menu holds the same text, collapsed).
    await page.locator('h2', { hasText: EVENTS_SUMMARY }).first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: `${SHOTS}docs.png` });
    // The search box is backed by a worker: typing in it proves the worker started.
    await page.getByPlaceholder('Search...').fill('events');
    await page.locator('[data-role="search:results"]').getByText(EVENTS_SUMMARY).waitFor({ timeout: 10_000 });

    const outside = requests.filter(
      (url) => !url.startsWith(`${base}/`) && !url.startsWith(`blob:${base}/`) && !url.startsWith('data:'),
    );
    assert.deepEqual(outside, [], 'every request goes to the test server');
    const paths = requests.filter((url) => url.startsWith(base)).map((url) => new URL(url).pathname);
    assert.ok(paths.includes('/docs/redoc.standalone.js'), paths.join(' '));
    assert.ok(paths.includes('/docs/openapi.json'), paths.join(' '));
    const violations = console.filter((line) => /content security policy|refused to/i.test(line));
    assert.deepEqual(violations, [], 'no CSP violation');
    assert.deepEqual(
      await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations),
      [],
    );
    assert.deepEqual(errors, [], 'no page error');
    await context.close();
  });
});
