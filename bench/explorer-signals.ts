/**
 * The Explorer's Signals and Evidence pages in Debian's Chromium, on the demo data (a temporary embedded
 * PostgreSQL, seeded as `npm start` seeds it):
 * - time to interactive of each page against the keys page's in the same run (interactive = the page
 *   drawn and `body[data-ready]`; the signals page also has its live stream open);
 * - the evidence page's first load, which computes and stores the event study, and later loads;
 * - live latency: a signal written (scored and committed) → its row on the open page;
 * - idle cost: requests and bytes the open signals page takes in a quiet minute.
 * Run: npm run bench:explorer-signals [-- --runs 10 --live 10 --idle-seconds 60]
 */
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openSession, SESSION_COOKIE } from '../src/dashboard/sessions.ts';
import { getEngine } from '../src/domain/engines/index.ts';
import { scoreContract } from '../src/pipeline/score.ts';
import { seed } from '../src/pipeline/seed.ts';
import { createAccount } from '../src/services/accounts.ts';
import { openTemporaryDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    live: { type: 'string', default: '10' },
    'idle-seconds': { type: 'string', default: '60' },
  },
});
const RUNS = Number(values.runs);
const LIVE = Number(values.live);
const IDLE_S = Number(values['idle-seconds']);

const db = await openTemporaryDb();
await migrate(db);
const seeding = Date.now();
await seed(db, { signalThreshold: 75 });
console.log(`seeded the demo data in ${Date.now() - seeding} ms`);
const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (!address || typeof address !== 'object') throw new Error('no address');
const base = `http://127.0.0.1:${address.port}`;
const user = await createAccount(db, { email: 'bench@example.test', plan: 'developer', isAdmin: false });
const { token } = await openSession(db, user.id, new Date());
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
await context.addCookies([{ name: SESSION_COOKIE, value: token, url: `${base}/dashboard` }]);

/** Milliseconds from navigation to `ready` on a fresh page with the browser cache off. */
async function load(hash: string, ready: string): Promise<number> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const started = performance.now();
  await page.goto(`${base}/dashboard${hash}`);
  await page.waitForSelector(ready);
  const ms = performance.now() - started;
  await page.close();
  return ms;
}

const PAGES = [
  ['keys (baseline)', '#/keys', 'body[data-ready="true"] h1:has-text("API keys")'],
  ['signals', '#/signals', 'body[data-ready="true"] [data-live="live"]'],
  ['signals, filtered', '#/signals?min_score=60&ticker=LMT', 'body[data-ready="true"] [data-live="live"]'],
  ['evidence', '#/evidence', 'body[data-ready="true"] [data-panel]'],
] as const;

const evidenceFirst = await load('#/evidence', 'body[data-ready="true"] [data-panel]');
const times = new Map<string, number[]>(PAGES.map(([name]) => [name, []]));
for (let run = 0; run < RUNS; run++) {
  // Interleaved, so a slow moment of the shared machine falls on every page alike.
  for (const [name, hash, ready] of PAGES) times.get(name)?.push(await load(hash, ready));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
const baseline = median(times.get('keys (baseline)') ?? []);

// Live latency, on one open page.
const page: Page = await context.newPage();
await page.goto(`${base}/dashboard#/signals`);
await page.waitForSelector('[data-live="live"]');
const engine = getEngine('materiality');
if (!engine) throw new Error('no materiality engine');
const contracts = await db.query<{ id: string }>(
  'SELECT id FROM contracts WHERE ticker IS NOT NULL ORDER BY award_date DESC LIMIT $1',
  [LIVE],
);
const latency: number[] = [];
const scoring: number[] = [];
for (const { id } of contracts) {
  await db.query("DELETE FROM signals WHERE contract_id = $1 AND engine_name = 'materiality'", [id]);
  const start = performance.now();
  await scoreContract(db, id, engine, new Date(), 75);
  const committed = performance.now();
  await page.waitForSelector(`tr.new[data-contract-id="${id}"]`, { timeout: 15_000 });
  scoring.push(committed - start);
  latency.push(performance.now() - committed);
}

// Idle cost: a quiet period with the page open.
const cdp = await context.newCDPSession(page);
await cdp.send('Network.enable');
let requests = 0;
let bytes = 0;
cdp.on('Network.requestWillBeSent', () => {
  requests += 1;
});
cdp.on('Network.dataReceived', (e: { encodedDataLength: number; dataLength: number }) => {
  bytes += e.encodedDataLength || e.dataLength;
});
cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
  bytes += e.encodedDataLength;
});
await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
const idle = { requests, bytes };

await browser.close();
await app.close();
await db.close();

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
console.log(`\n== time to interactive, median of ${RUNS} loads (cache off), ratio to the keys page ==`);
for (const [name] of PAGES) {
  const xs = times.get(name) ?? [];
  const m = median(xs);
  console.log(
    `  ${name.padEnd(20)} ${fmt(m).padStart(8)}  ×${(m / baseline).toFixed(2)}  (min ${fmt(Math.min(...xs))}, max ${fmt(Math.max(...xs))})`,
  );
}
console.log(
  `  evidence, first load (computes and stores the study): ${fmt(evidenceFirst)}  ×${(evidenceFirst / baseline).toFixed(2)}`,
);
console.log(`\n== live: signal committed → row on the open page, ${latency.length} signals ==`);
console.log(
  `  median ${fmt(median(latency))}, max ${fmt(Math.max(...latency))}; scoring one contract took a median ${fmt(median(scoring))} before that`,
);
console.log(`\n== idle: the open signals page over ${IDLE_S} s without a new signal ==`);
console.log(
  `  ${idle.requests} requests, ${idle.bytes} bytes (${((idle.bytes * 60) / IDLE_S).toFixed(0)} bytes/min): the stream's keep-alive comments only`,
);
