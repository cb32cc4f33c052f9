/**
 * The Explorer's Signals and Evidence pages in a real headless Chromium: they render on the demo data,
 * filters narrow the rows and stay in the hash, "Load more" pages, a contract scored while the page is
 * open appears without a reload, links lead to the company and contract pages, and what a plan's tier
 * does not reach is an upgrade notice. Screenshots go to var/screenshots/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import { getEngine } from '../../src/domain/engines/index.ts';
import { studyEngineVersion } from '../../src/evaluation/evidence.ts';
import type { App } from '../../src/http/types.ts';
import { scoreContract } from '../../src/pipeline/score.ts';
import type { Db } from '../../src/store/db.ts';
import { listenLocally, makeKey, testApp } from '../support/app.ts';
import { seededDb } from '../support/db.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const SHOTS = new URL('../../var/screenshots/', import.meta.url).pathname;
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;

describe('Explorer: Signals and Evidence in Chromium', { skip: process.env.CI ? false : skip }, () => {
  let db: Db;
  let app: App;
  let base: string;
  let browser: Browser;
  let page: Page;
  let userId: string;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await seededDb();
    app = await testApp(db);
    base = await listenLocally(app);
    ({ userId } = await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] }));
    const { token } = await openSession(db, userId, new Date());
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url: `${base}/dashboard` }]);
    page = await context.newPage();
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    await db?.close();
  });

  // The viewport: a page of 50 rows is too long to look at whole.
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png` });
  const open = async (hash: string) => {
    // From another document: a goto that changes only the hash keeps the page (and its data-ready) and
    // routes in the background, so the old page's rows could still be read.
    await page.goto('about:blank');
    await page.goto(`${base}/dashboard${hash}`);
    await page.waitForSelector('body[data-ready="true"]');
  };
  const rows = () => page.locator('table.signals tbody tr');
  /** Applies the filters and waits for the page they route to (not the old table, still shown meanwhile). */
  const apply = async () => {
    await page.evaluate(() => document.querySelector('table.signals')?.setAttribute('data-old', ''));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForSelector('table.signals:not([data-old]), [data-empty]');
  };
  const setPlan = (plan: string) => db.query('UPDATE users SET plan = $1 WHERE id = $2', [plan, userId]);

  test('the signals page lists the default engine’s signals, best first, with score bars', async () => {
    await open('#/signals');
    await page.waitForSelector('[data-live="live"]');
    assert.equal(await rows().count(), 50);
    const scores = await page
      .locator('[data-signal]')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-signal'))));
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    assert.equal(await page.locator('table.signals .score-bar').count(), 200, 'four bars a row');
    assert.match((await rows().first().textContent()) ?? '', /\$/);
    assert.equal(await page.locator('[data-rationale]').count(), 0, 'no rationale below intelligence');
    await shot('signals');
  });

  test('"Load more" appends the next page', async () => {
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table.signals tbody tr').length === 100);
    const ids = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-signal-id')));
    assert.equal(new Set(ids).size, 100, 'no row twice');
  });

  test('filters narrow the rows and are kept in the hash, so the view survives a reload', async () => {
    await open('#/signals');
    await page.getByLabel('Min score').fill('60');
    await page.getByLabel('Ticker').fill('lmt');
    await page.getByLabel('Award from').fill('2022-01-01');
    await page.getByLabel('Award to').fill('2023-12-31');
    await apply();
    await page.waitForFunction(() => location.hash.includes('ticker=lmt'));
    assert.equal(new URL(page.url()).hash, '#/signals?min_score=60&ticker=lmt&from=2022-01-01&to=2023-12-31');
    await page.waitForSelector('[data-live="live"]');
    const [expected] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM signals s JOIN contracts c ON c.id = s.contract_id
       WHERE s.engine_name = 'materiality' AND c.ticker = 'LMT' AND s.signal_score >= 60
         AND c.award_date BETWEEN '2022-01-01' AND '2023-12-31'`,
    );
    assert.ok(expected && expected.n > 0);
    assert.equal(await rows().count(), Math.min(50, expected.n));
    const tickers = await page.locator('table.signals .ticker').allTextContents();
    assert.ok(tickers.every((t) => t === 'LMT'));
    await page.getByLabel('Classification').selectOption({ index: 1 });
    await apply();
    await page.waitForFunction(() => location.hash.includes('classification='));
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.getByLabel('Min score').inputValue(), '60');
    assert.equal(await page.getByLabel('Ticker').inputValue(), 'lmt');
    await shot('signals-filtered');
  });

  test('a contract scored while the page is open appears on top without a reload', async () => {
    await open('#/signals?ticker=GD');
    await page.waitForSelector('[data-live="live"]');
    const [contract] = await db.query<{ id: string }>(
      "SELECT id FROM contracts WHERE ticker = 'GD' ORDER BY award_date DESC LIMIT 1",
    );
    assert.ok(contract);
    await db.query("DELETE FROM signals WHERE contract_id = $1 AND engine_name = 'materiality'", [
      contract.id,
    ]);
    const engine = getEngine('materiality');
    assert.ok(engine);
    await page.evaluate(() => {
      (window as unknown as { loaded: boolean }).loaded = true;
    });
    const written = Date.now();
    await scoreContract(db, contract.id, engine, new Date(), 75);
    await page.waitForSelector(`table.signals tbody tr.new[data-contract-id="${contract.id}"]`, {
      timeout: 10_000,
    });
    const latency = Date.now() - written;
    assert.ok(
      await page.evaluate(() => (window as unknown as { loaded?: boolean }).loaded),
      'the same page: not reloaded',
    );
    assert.equal(await rows().first().getAttribute('data-contract-id'), contract.id, 'on top');
    assert.match((await page.locator('[data-fresh]').textContent()) ?? '', /1 new/);
    process.stderr.write(`explorer: signal written → row shown in ${latency} ms\n`);
    await shot('signals-live');
  });

  test('links lead to the company and contract pages, and back', async () => {
    await open('#/signals?ticker=NOC');
    const first = rows().first();
    const contractId = await first.getAttribute('data-contract-id');
    await first.getByRole('link', { name: 'NOC' }).click();
    await page.waitForFunction(() => location.hash === '#/companies/NOC');
    await page.waitForFunction(() => !document.querySelector('table.signals'));
    // The company page has drawn (its data comes in after the hash changes).
    await page.waitForSelector('h1:has-text("NOC")');
    await page.goBack();
    await page.waitForSelector('table.signals tbody tr');
    await rows()
      .first()
      .getByRole('link', { name: contractId ?? '' })
      .click();
    await page.waitForFunction(
      (id) => location.hash === `#/contracts/${encodeURIComponent(id)}`,
      contractId ?? '',
    );
    await page.getByRole('link', { name: 'Evidence' }).click();
    await page.waitForSelector('h1:has-text("Evidence")');
    assert.equal(await page.locator('nav a[aria-current="page"]').textContent(), 'Evidence');
  });

  test('evidence: bars with 95 % intervals and n per bucket, as the study computes them', async () => {
    await open('#/evidence');
    await page.waitForSelector('[data-panel]');
    const panelKey = await page.locator('[data-panel]').getAttribute('data-panel');
    assert.equal(panelKey, 'ITA:20');
    const direct = await studyEngineVersion(db, 'materiality', getEngine('materiality')?.version ?? '');
    const panel = direct.summary.panels.find((p) => p.benchmark === 'ITA' && p.horizon === 20);
    assert.ok(panel);
    assert.equal(await page.locator('svg.evidence-chart rect[data-bucket]').count(), 4);
    assert.equal(await page.locator('svg.evidence-chart [data-ci]').count(), 4);
    const ns = await page
      .locator('table.evidence [data-n]')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-n'))));
    assert.deepEqual(ns, [...panel.buckets.map((b) => b.n), panel.all.n]);
    const verdict = await page.locator('[data-verdict]').getAttribute('data-verdict');
    assert.equal(verdict, panel.topMinusBottom?.significant ? 'significant' : 'not-significant');
    if (verdict === 'not-significant')
      assert.match(
        (await page.locator('[data-verdict]').textContent()) ?? '',
        /not significant \(\|t\| < 1\.96\)/,
      );
    const placebo = direct.summary.placebo;
    assert.ok(placebo);
    const said = page.locator('[data-evidence-verdict]');
    assert.equal(
      await said.getAttribute('data-evidence-verdict'),
      placebo.evidence ? 'evidence' : 'no-evidence',
    );
    assert.equal((await said.textContent())?.trim(), placebo.verdict);
    assert.equal(await page.locator('svg.placebo-chart [data-shift]').count(), 38);
    assert.equal(await page.locator('svg.placebo-chart [data-real]').count(), 1);
    await shot('evidence');
    await page.locator('[data-placebo]').scrollIntoViewIfNeeded();
    await shot('evidence-placebo');

    await page.getByRole('button', { name: 'SPY' }).click();
    await page.waitForSelector('[data-panel="SPY:20"]');
    await page.getByRole('button', { name: '5 days' }).click();
    await page.waitForSelector('[data-panel="SPY:5"]');
    assert.equal(new URL(page.url()).hash, '#/evidence?engine=materiality&benchmark=SPY&window=5');
    await shot('evidence-spy-5');
  });

  test('what the plan’s tier does not reach is an upgrade notice; the intelligence tier sees it', async () => {
    await open('#/signals?engine=regime-aware');
    await page.waitForSelector('[data-upgrade]');
    assert.equal(await rows().count(), 0);
    assert.match((await page.locator('[data-upgrade]').textContent()) ?? '', /intelligence tier/);
    await shot('signals-upgrade');
    await open('#/evidence?engine=regime-aware');
    await page.waitForSelector('[data-upgrade]');
    assert.equal(await page.locator('[data-panel]').count(), 0);

    await setPlan('institutional');
    await open('#/signals?engine=regime-aware');
    await page.waitForSelector('table.signals tbody tr');
    assert.equal(await page.locator('[data-upgrade]').count(), 0);
    assert.equal(await page.locator('[data-rationale]').count(), 50, 'a "why" on every row');
    await page.locator('[data-rationale] summary').first().click();
    await shot('signals-intelligence');
    await open('#/evidence?engine=regime-aware');
    await page.waitForSelector('[data-panel]');
    // The prediction track record: one interval per prediction with a passed horizon, the rolling coverage.
    const judged = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM predictions p WHERE EXISTS (
         SELECT 1 FROM candles k WHERE k.ticker = 'SPY' AND k.date > p.day0 OFFSET 4)`,
    );
    const shown = Number(await page.locator('[data-track]').getAttribute('data-track'));
    assert.ok(shown >= 100 && shown <= (judged[0]?.n ?? 0), `${shown} judged predictions shown`);
    assert.equal(await page.locator('svg.track-chart [data-prediction]').count(), shown);
    assert.ok(Number(await page.locator('[data-rolling]').getAttribute('data-rolling')) > 0);
    await page.locator('[data-track]').scrollIntoViewIfNeeded();
    await shot('evidence-track');
    await setPlan('developer');
  });
});
