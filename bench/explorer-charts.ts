/**
 * The explorer's chart pages in Debian's Chromium, on the demo data: time to interactive of the company
 * page for the company with the longest candle series, and of a contract page, each beside the keys
 * page's measured in the same run; then frame times while the company chart is zoomed with the wheel
 * and panned by dragging, over its whole history.
 * Interactive = the page's chart has drawn its first frame (`[data-ready="true"]` on its box), with the
 * HTTP cache off, so every load fetches the page, the app, the charting library and the data.
 * Run: npm run bench:explorer-charts [-- --runs 10]
 *
 * With --database, the database of bench/synthetic.ts (DATABASE_URL, default market_intel_bench) is
 * served instead of the demo data, and the company page is the busiest ticker's (most contracts):
 *   npm run bench:explorer-charts -- --database
 */
import { chromium, type Page } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openSession, SESSION_COOKIE } from '../src/dashboard/sessions.ts';
import { seed } from '../src/pipeline/seed.ts';
import { createAccount } from '../src/services/accounts.ts';
import { openDb, openTemporaryDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { arg, benchDatabaseUrl, flag } from './common.ts';

const RUNS = Number(arg('runs') ?? 10);
const TTI_BAR_MS = 1000;
/** Two frames at 60 Hz: a redraw slower than this is a visible stutter. */
const FRAME_BAR_MS = 33.4;

const EXISTING = flag('database');
const config = loadConfig(
  EXISTING ? { LOG_LEVEL: 'silent', DATABASE_URL: benchDatabaseUrl() } : { LOG_LEVEL: 'silent' },
);
const db = EXISTING ? await openDb(config) : await openTemporaryDb();
await migrate(db);
if (!EXISTING) {
  process.stderr.write('seeding the demo data…\n');
  await seed(db, { signalThreshold: config.signalThreshold });
}
// The demo data: the longest candle series; a large database: the ticker with the most contracts.
const [longest] = await db.query<{ ticker: string; bars: number; first: string; contracts: number }>(
  EXISTING
    ? `SELECT t.ticker, t.contracts, (SELECT count(*)::int FROM candles k WHERE k.ticker = t.ticker) AS bars,
         (SELECT min(date)::text FROM candles k WHERE k.ticker = t.ticker) AS first
       FROM (SELECT ticker, count(*)::int AS contracts FROM contracts WHERE ticker IS NOT NULL
             GROUP BY ticker ORDER BY count(*) DESC LIMIT 1) t`
    : `SELECT k.ticker, count(*)::int AS bars, min(k.date)::text AS first,
         (SELECT count(*)::int FROM contracts c WHERE c.ticker = k.ticker) AS contracts FROM candles k
       WHERE EXISTS (SELECT 1 FROM contracts c WHERE c.ticker = k.ticker)
       GROUP BY k.ticker ORDER BY bars DESC, k.ticker LIMIT 1`,
);
const [contract] = await db.query<{ id: string }>(
  'SELECT id FROM contracts WHERE ticker = $1 ORDER BY award_date DESC, id LIMIT 1',
  [longest?.ticker],
);
if (!longest || !contract) throw new Error('no company with candles in the demo data');

const app = await buildApp({ config, db, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (!address || typeof address !== 'object') throw new Error('no address');
const base = `http://127.0.0.1:${address.port}`;
// The heaviest page: an intelligence-tier plan also gets the regime band.
const user = await createAccount(db, {
  email: `bench-${Date.now()}@example.test`,
  plan: 'institutional',
  isAdmin: false,
});
const { token } = await openSession(db, user.id, new Date());

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
await context.addCookies([{ name: SESSION_COOKIE, value: token, url: `${base}/dashboard` }]);

/**
 * Where a load of the company page went, from the page's own clock (ms since navigation): until its
 * view asked for its data; each of its three API responses (from request to last byte, so the server's
 * time and the transfer) and the company response's size; and from the last data to the chart's first
 * frame (the browser's work: parsing the responses, the page's tables and the chart with its bars,
 * markers and band).
 */
interface CompanyLoad {
  view: number;
  company: number;
  companyBytes: number;
  candles: number;
  drawn: number;
}
const companyLoads: CompanyLoad[] = [];

async function companyLoad(page: Page): Promise<CompanyLoad> {
  // As text: see frameTimes.
  const probe = (await page.evaluate(`(() => {
    const box = document.querySelector('#company-chart');
    const api = performance.getEntriesByType('resource').filter((e) => e.name.includes('/dashboard/api/'))
      .map((e) => ({ name: e.name, start: e.startTime, end: e.responseEnd, bytes: e.decodedBodySize }));
    return { drawnAt: Number(box.dataset.drawnAt), api };
  })()`)) as { drawnAt: number; api: { name: string; start: number; end: number; bytes: number }[] };
  const one = (part: string) => probe.api.filter((e) => e.name.includes(part)).at(-1);
  const company = one('/api/companies/');
  const candles = one(`/api/candles/${longest?.ticker}`);
  if (!company || !candles) throw new Error('the company page made none of its requests');
  // The company's read is the page's first (at boot, beside the session's).
  const view = company.start;
  const lastData = Math.max(...probe.api.filter((e) => e.start >= view - 1).map((e) => e.end));
  return {
    view,
    company: company.end - company.start,
    companyBytes: company.bytes,
    candles: candles.end - candles.start,
    drawn: probe.drawnAt - lastData,
  };
}

async function timeToInteractive(hash: string, ready: string): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const started = Date.now();
    await page.goto(`${base}/dashboard#${hash}`);
    await page.waitForSelector(ready, { timeout: 30_000 });
    times.push(Date.now() - started);
    if (hash.startsWith('/companies/')) companyLoads.push(await companyLoad(page));
    await page.close();
  }
  return times.sort((a, b) => a - b);
}

/** Frame intervals (ms) measured by requestAnimationFrame while `act` drives the chart. */
async function frameTimes(page: Page, act: () => Promise<void>): Promise<number[]> {
  // As text: tsx would wrap a named function here in a helper the page does not have.
  await page.evaluate(`(() => {
    const frames = [];
    window.benchFrames = frames;
    window.benchOn = true;
    requestAnimationFrame(function tick(t) {
      frames.push(t);
      if (window.benchOn) requestAnimationFrame(tick);
    });
  })()`);
  await act();
  const stamps = await page.evaluate(() => {
    (window as unknown as { benchOn: boolean }).benchOn = false;
    return (window as unknown as { benchFrames: number[] }).benchFrames;
  });
  return stamps.slice(1).map((t, i) => t - (stamps[i] ?? t));
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const median = (sorted: number[]) => quantile(sorted, 0.5);

const keys = await timeToInteractive('/keys', 'body[data-ready="true"] h1:has-text("API keys")');
const company = await timeToInteractive(`/companies/${longest.ticker}`, '#company-chart[data-ready="true"]');
const contractPage = await timeToInteractive(
  `/contracts/${encodeURIComponent(contract.id)}`,
  '#weekly-chart[data-ready="true"]',
);

const page = await context.newPage();
await page.goto(`${base}/dashboard#/companies/${longest.ticker}`);
await page.waitForSelector('#company-chart[data-ready="true"]');
const box = await page.locator('#company-chart').boundingBox();
if (!box) throw new Error('no chart');
const cx = box.x + box.width / 2;
const cy = box.y + box.height / 3;
await page.mouse.move(cx, cy);
const zoom = await frameTimes(page, async () => {
  // In to a few months and back out to the whole series: every step redraws thousands of bars.
  for (const delta of [...Array(25).fill(-240), ...Array(25).fill(240)]) {
    await page.mouse.wheel(0, delta);
    await page.waitForTimeout(16);
  }
});
await page.getByRole('button', { name: '5Y', exact: true }).click();
const pan = await frameTimes(page, async () => {
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  for (let i = 1; i <= 40; i++) await page.mouse.move(cx + i * 12, cy, { steps: 1 });
  for (let i = 39; i >= -40; i--) await page.mouse.move(cx + i * 12, cy, { steps: 1 });
  await page.mouse.up();
});
await page.getByRole('button', { name: 'All', exact: true }).click();
const wholePan = await frameTimes(page, async () => {
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  for (let i = 1; i <= 60; i++) await page.mouse.move(cx - i * 8, cy, { steps: 1 });
  await page.mouse.up();
});

await browser.close();
await app.close();
await db.close();

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
console.log(`\n== explorer charts (${RUNS} loads each, HTTP cache off) ==`);
console.log(
  `  ${EXISTING ? 'busiest ticker' : 'longest series'}: ${longest.ticker}, ${longest.contracts} contracts, ` +
    `${longest.bars} daily bars from ${longest.first}`,
);
const line = (label: string, t: number[]) =>
  console.log(
    `  ${label.padEnd(30)} median ${median(t)} ms, min ${t[0]} ms, max ${t.at(-1)} ms` +
      (label.startsWith('keys') ? '' : `  (${ratio(median(t), median(keys))} the keys page)`),
  );
line('keys page (baseline)', keys);
line(`company page ${longest.ticker}`, company);
line('contract page', contractPage);
const part = (label: string, pick: (l: CompanyLoad) => number, unit = 'ms') => {
  const t = companyLoads.map(pick).sort((a, b) => a - b);
  console.log(
    `    ${label.padEnd(44)} median ${median(t).toFixed(0)} ${unit}, min ${t[0]?.toFixed(0)}, max ${t.at(-1)?.toFixed(0)}`,
  );
};
console.log(`  company page ${longest.ticker}, its parts (page clock):`);
part('navigation → the data asked for', (l) => l.view);
part(`GET /dashboard/api/companies/${longest.ticker} (request → last byte)`, (l) => l.company);
part(`  its JSON`, (l) => l.companyBytes, 'bytes');
part(`GET /dashboard/api/candles/${longest.ticker}`, (l) => l.candles);
part('last response → chart drawn', (l) => l.drawn);
const frames = (label: string, f: number[]) => {
  const sorted = [...f].sort((a, b) => a - b);
  console.log(
    `  ${label.padEnd(30)} ${f.length} frames: median ${median(sorted).toFixed(1)} ms, p95 ${quantile(sorted, 0.95).toFixed(1)} ms, ` +
      `max ${sorted.at(-1)?.toFixed(1)} ms, ${f.filter((x) => x > FRAME_BAR_MS).length} over ${FRAME_BAR_MS} ms`,
  );
  return quantile(sorted, 0.95);
};
const p95s = [
  frames('wheel zoom, all → months → all', zoom),
  frames('drag pan, 5 years shown', pan),
  frames('drag pan, whole series shown', wholePan),
];
const bars: [string, boolean][] = [
  [`company page interactive ≤ ${TTI_BAR_MS} ms (median)`, median(company) <= TTI_BAR_MS],
  [`zoom and pan: p95 frame ≤ ${FRAME_BAR_MS} ms`, p95s.every((p) => p <= FRAME_BAR_MS)],
];
console.log('\n| bar | result |\n|---|---|');
for (const [bar, ok] of bars) console.log(`| ${bar} | ${ok ? 'PASS' : 'FAIL'} |`);
