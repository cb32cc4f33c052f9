/**
 * Page weight and time to interactive of the dashboard's keys page, in Debian's Chromium.
 * Interactive = the app has rendered the keys page and marked `body[data-ready]`, its forms usable.
 * Run: npm run bench:dashboard
 */
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openTemporaryDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';

const RUNS = 10;
const db = await openTemporaryDb();
await migrate(db);
const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (!address || typeof address !== 'object') throw new Error('no address');
const base = `http://127.0.0.1:${address.port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const context = await browser.newContext();
const page = await context.newPage();
await page.goto(`${base}/dashboard#/signup`);
await page.waitForSelector('body[data-ready]');
await page.getByLabel('Email').fill('bench@example.test');
await page.getByLabel(/Password/).fill('a long enough password');
await page.keyboard.press('Enter');
await page.waitForSelector('h1:has-text("API keys")');

const bytes: Record<string, number> = {};
const times: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const fresh = await context.newPage();
  const client = await fresh.context().newCDPSession(fresh);
  await client.send('Network.enable');
  await client.send('Network.setCacheDisabled', { cacheDisabled: true });
  const sizes = new Map<string, number>();
  client.on('Network.loadingFinished', (e: { requestId: string; encodedDataLength: number }) =>
    sizes.set(e.requestId, e.encodedDataLength),
  );
  const urls = new Map<string, string>();
  client.on('Network.requestWillBeSent', (e: { requestId: string; request: { url: string } }) =>
    urls.set(e.requestId, e.request.url),
  );
  const started = Date.now();
  await fresh.goto(`${base}/dashboard#/keys`);
  await fresh.waitForSelector('body[data-ready="true"] h1:has-text("API keys")');
  times.push(Date.now() - started);
  if (run === 0) {
    for (const [id, size] of sizes) {
      const path = new URL(urls.get(id) ?? base).pathname;
      bytes[path] = size;
    }
  }
  await fresh.close();
}
await browser.close();
await app.close();
await db.close();

times.sort((a, b) => a - b);
const pageBytes = Object.entries(bytes).filter(([path]) => !path.startsWith('/dashboard/api'));
const total = pageBytes.reduce((sum, [, size]) => sum + size, 0);
console.log('\n== dashboard keys page ==');
for (const [path, size] of pageBytes) console.log(`  ${path.padEnd(28)} ${size} bytes on the wire`);
console.log(`  HTML+JS+CSS total: ${total} bytes (uncompressed, with headers)`);
console.log(
  `  API calls: ${Object.keys(bytes)
    .filter((p) => p.startsWith('/dashboard/api'))
    .join(', ')}`,
);
console.log(
  `  time to interactive over ${RUNS} loads: median ${times[RUNS >> 1]} ms, min ${times[0]} ms, max ${times.at(-1)} ms`,
);
