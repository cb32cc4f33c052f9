/**
 * The dashboard in Chromium when the user's dashboard reads are past their allowance
 * (src/dashboard/meter.ts): the page says so with the Retry-After countdown instead of breaking or
 * signing the user out, and loads itself again once the window allows; the signals page's live rows
 * pause and miss nothing. The user's bucket is filled in the app's own limiter with reads stamped
 * some seconds short of a minute ago, so the refusal ends by itself soon after.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { dashboardBucket } from '../../src/dashboard/meter.ts';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import { getEngine } from '../../src/domain/engines/index.ts';
import { PLAN_LIMITS, RATE_WINDOW_MS } from '../../src/domain/plans.ts';
import type { App } from '../../src/http/types.ts';
import { MemoryLimiter } from '../../src/infra/memory-limiter.ts';
import { scoreContract } from '../../src/pipeline/score.ts';
import type { Db } from '../../src/store/db.ts';
import { listenLocally, makeKey, testApp } from '../support/app.ts';
import { seededDb } from '../support/db.ts';

// As test/dashboard/browser.test.ts launches it (importing that file would run its tests here too).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const SHOTS = new URL('../../var/screenshots/', import.meta.url).pathname;
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;

describe('dashboard past its read allowance, in Chromium', { skip: process.env.CI ? false : skip }, () => {
  const limiter = new MemoryLimiter();
  let db: Db;
  let app: App;
  let base: string;
  let browser: Browser;
  let page: Page;
  let userId = '';
  const problems: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await seededDb();
    app = await testApp(db, {}, { limiter });
    base = await listenLocally(app);
    ({ userId } = await makeKey(db, { plan: 'free', mode: 'test' }));
    const { token } = await openSession(db, userId, new Date());
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url: `${base}/dashboard` }]);
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await db?.close();
    await limiter.close();
  });

  /** Spends the user's whole allowance with reads made `ago` ms back: refused for the rest of the minute. */
  async function spendAllowance(ago = 55_000): Promise<void> {
    const bucket = dashboardBucket(userId);
    await limiter.reset(bucket);
    const limit = PLAN_LIMITS.free.dashboardRpm;
    const then = Date.now() - ago;
    for (let i = 0; i < limit; i += 1) await limiter.hit(bucket, limit, RATE_WINDOW_MS, then);
  }

  async function refusedThenShown(): Promise<void> {
    const notice = page.locator('[data-rate-limited]');
    await notice.waitFor();
    assert.match((await notice.textContent()) ?? '', /Too many requests.*loads again in \d+ s/s);
    const wait = Number(await notice.locator('[data-retry-in]').getAttribute('data-retry-in'));
    assert.ok(wait >= 1 && wait <= 6, `the Retry-After of the refusal: ${wait}`);
    assert.equal(await page.locator('input#password').count(), 0, 'not sent to sign in');
    await page.screenshot({ path: `${SHOTS}dashboard-rate-limited.png`, fullPage: true });
    // Loaded again by itself once the window allows.
    await page.waitForSelector('[data-usage-dashboard]', { timeout: 30_000 });
    assert.equal(await notice.count(), 0);
  }

  test('a page refused on the way: the countdown, then the page', async () => {
    await page.goto(`${base}/dashboard#/keys`);
    await page.waitForSelector('body[data-ready="true"]');
    await spendAllowance();
    await page.evaluate(() => {
      location.hash = '#/usage';
    });
    await refusedThenShown();
    assert.deepEqual(problems, []);
  });

  test('refused when the dashboard opens: the countdown, not the sign-in form', async () => {
    await spendAllowance();
    await page.reload();
    await refusedThenShown();
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.locator('#nav').isVisible(), true);
    assert.deepEqual(problems, []);
  });

  test('live rows on the signals page: a refused refresh pauses, says so, and misses nothing', async () => {
    await page.goto('about:blank');
    await page.goto(`${base}/dashboard#/signals?ticker=GD`);
    await page.waitForSelector('[data-live="live"]');
    const [contract] = await db.query<{ id: string }>(
      "SELECT id FROM contracts WHERE ticker = 'GD' ORDER BY award_date DESC LIMIT 1",
    );
    const engine = getEngine('materiality');
    assert.ok(contract && engine);
    await db.query("DELETE FROM signals WHERE contract_id = $1 AND engine_name = 'materiality'", [
      contract.id,
    ]);
    await spendAllowance(40_000);
    await scoreContract(db, contract.id, engine, new Date(), 75);
    const status = page.locator('[data-live="limited"]');
    await status.waitFor({ timeout: 15_000 });
    assert.match((await status.textContent()) ?? '', /too many requests; checking again in \d+ s/);
    await page.screenshot({ path: `${SHOTS}signals-rate-limited.png` });
    await page.waitForSelector(`table.signals tbody tr.new[data-contract-id="${contract.id}"]`, {
      timeout: 60_000,
    });
    await page.waitForSelector('[data-live="live"]');
    assert.deepEqual(problems, []);
  });
});
