/**
 * The dashboard in a real headless Chromium (Debian's, driven by playwright-core): sign up, keys,
 * webhooks with a real local HTTPS receiver, deliveries and resend, usage. Screenshots of every page
 * go to var/screenshots/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { listenLocally } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { testResolver, webhookConfig } from '../webhooks/helpers.ts';
import { type Certificate, makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];
const SHOTS = new URL('../../var/screenshots/', import.meta.url).pathname;
const PASSWORD = 'a long enough password';

const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;

describe('dashboard in Chromium', { skip: process.env.CI ? false : skip }, () => {
  let db: Db;
  let app: App;
  let base: string;
  let browser: Browser;
  let page: Page;
  let certificate: Certificate;
  let receiver: Receiver;
  let failing = false;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    certificate = makeCertificate();
    receiver = await startReceiver(certificate, () => ({ status: failing ? 500 : 200 }));
    db = await seededDb();
    app = await buildApp({
      config: webhookConfig(certificate, { SIGNAL_THRESHOLD: '0' }),
      db,
      logger: false,
      webhooks: { worker: true, resolve: testResolver, pollMs: 50 },
    });
    base = await listenLocally(app);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
  });

  after(async () => {
    await page?.screenshot({ path: `${SHOTS}last.png`, fullPage: true }).catch(() => undefined);
    await browser?.close();
    await app?.close();
    await db?.close();
    await receiver?.close();
    certificate?.cleanup();
  });

  const api = (key: string, path: string, method = 'GET') =>
    fetch(`${base}${path}`, { method, headers: { 'x-api-key': key } });
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
  const ready = () => page.waitForSelector('body[data-ready="true"]');

  async function createKey(name: string, scopes: string[]): Promise<string> {
    await page.goto(`${base}/dashboard#/keys`);
    await ready();
    await page.getByLabel('Name').fill(name);
    for (const scope of scopes) await page.getByLabel(scope, { exact: true }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('[data-secret]').textContent()) ?? '';
    assert.match(secret, /^iv_test_[0-9A-Za-z]{43}$/);
    return secret;
  }

  test('sign up with the keyboard, land on the keys page', async () => {
    await page.goto(`${base}/dashboard#/signup`);
    await ready();
    await shot('signup');
    assert.equal(await page.locator('#signout').isVisible(), false, 'no Sign out while signed out');
    assert.equal(await page.locator('#nav').isVisible(), false, 'no sections while signed out');
    await page.getByLabel('Email').fill('quant@example.test');
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    // Every time the keys page is drawn, its heading is inserted anew.
    await page.evaluate(() => {
      const seen = { drawn: 0 };
      Object.assign(window, { keysPageDrawn: seen });
      new MutationObserver((changes) => {
        for (const change of changes)
          for (const node of change.addedNodes)
            if (
              node instanceof Element &&
              [node, ...node.querySelectorAll('h1')].some(
                (e) => e.matches('h1') && e.textContent === 'API keys',
              )
            )
              seen.drawn += 1;
      }).observe(document.body, { childList: true, subtree: true });
    });
    const posted: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posted.push(new URL(request.url()).pathname);
    });
    await page.keyboard.press('Enter');
    await page.waitForSelector('h1:has-text("API keys")');
    // Sign-up opens no session (it answers alike for taken emails): the page signs in after it.
    assert.deepEqual(posted, ['/dashboard/api/signup', '/dashboard/api/signin']);
    assert.match((await page.locator('#who-email').textContent()) ?? '', /quant@example.test · free/);
    assert.equal(await page.locator('#signout').isVisible(), true, 'Sign out once signed in');
    // Drawn once: a second drawing would wipe a form the user has begun to fill in.
    await page.waitForLoadState('networkidle');
    assert.equal(
      await page.evaluate(
        () => (window as unknown as { keysPageDrawn: { drawn: number } }).keysPageDrawn.drawn,
      ),
      1,
    );
  });

  test('create a test key, call the API with it, revoke it and see 401', async () => {
    const secret = await createKey('notebook', ['read']);
    await shot('keys-created');
    assert.equal((await api(secret, '/api/v1/events?limit=1')).status, 200);
    const row = page.locator('tr', { hasText: 'notebook' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Confirm revoke' }).click();
    await page.waitForSelector('tr.revoked:has-text("notebook")');
    await shot('keys-revoked');
    assert.equal((await api(secret, '/api/v1/events?limit=1')).status, 401);
  });

  test('add a webhook to a local HTTPS receiver and see a signed delivery', async () => {
    await db.query("UPDATE users SET plan = 'developer' WHERE email = 'quant@example.test'");
    const writer = await createKey('scorer', ['write']);
    await page.goto(`${base}/dashboard#/webhooks`);
    await ready();
    await page.getByLabel('HTTPS URL').fill('http://receiver.test/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.waitForSelector('[role="alert"]:has-text("https")');
    await page.getByLabel('HTTPS URL').fill(`https://receiver.test:${receiver.port}/hook`);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    assert.ok(((await page.locator('[data-secret]').textContent()) ?? '').length > 20, 'secret shown once');

    const [contract] = await db.query<{ id: string }>(
      "SELECT id FROM contracts WHERE ticker = 'LMT' LIMIT 1",
    );
    assert.ok(contract);
    await db.query("DELETE FROM signals WHERE contract_id = $1 AND engine_name = 'materiality'", [
      contract.id,
    ]);
    assert.equal((await api(writer, `/api/v1/contracts/${contract.id}/score`, 'POST')).status, 200);
    const [received] = await receiver.waitFor(1);
    assert.equal(received?.headers['x-service-event'], 'signal.created');
    await expectEventually(async () => {
      await page.reload();
      await ready();
      return (await page.locator('tr[data-status="succeeded"]').count()) === 1;
    });
    await shot('webhooks-delivered');
  });

  test('a failing delivery stands out as failed; resend delivers it', async () => {
    failing = true;
    const writer = await createKey('scorer2', ['write']);
    const [contract] = await db.query<{ id: string }>(
      "SELECT id FROM contracts WHERE ticker = 'NOC' LIMIT 1",
    );
    assert.ok(contract);
    await db.query("DELETE FROM signals WHERE contract_id = $1 AND engine_name = 'materiality'", [
      contract.id,
    ]);
    await api(writer, `/api/v1/contracts/${contract.id}/score`, 'POST');
    await receiver.waitFor(6, (r) => r.status === 500, 20_000);
    await page.goto(`${base}/dashboard#/webhooks`);
    await expectEventually(async () => {
      await page.reload();
      await ready();
      return (await page.locator('tr.failed[data-status="failed"]').count()) === 1;
    });
    await shot('webhooks-failed');
    failing = false;
    await page.locator('tr.failed').getByRole('button', { name: 'Resend' }).click();
    await expectEventually(async () => {
      await page.reload();
      await ready();
      return (await page.locator('tr[data-status="succeeded"]').count()) === 2;
    });
    await shot('webhooks-resent');
  });

  test('a suspended webhook: a notice on every page, re-enabled from the webhooks page', async () => {
    // The worker suspends an endpoint after WEBHOOK_SUSPEND_AFTER of failures (test/webhooks/isolation);
    // here the state is set directly, as the worker leaves it.
    await db.query(
      `UPDATE webhooks SET suspended_at = now(), failing_since = now() - interval '5 days', failure_streak = 900
       WHERE url LIKE '%/hook'`,
    );
    await page.goto(`${base}/dashboard#/keys`);
    await page.reload();
    await ready();
    const notice = page.locator('#notice');
    assert.ok(await notice.isVisible(), 'the notice shows on the keys page');
    assert.match((await notice.textContent()) ?? '', /suspended after failing continuously/);
    await notice.getByRole('link').click();
    await page.waitForSelector('[data-state="suspended"]');
    await shot('webhooks-suspended');
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page.waitForSelector('[data-state="active"]');
    assert.equal(await notice.isVisible(), false, 'the notice is gone once re-enabled');
  });

  test('send a test event and rotate the secret from the webhook’s card', async () => {
    await page.goto(`${base}/dashboard#/webhooks`);
    await page.reload();
    await ready();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const [test] = await receiver.waitFor(1, (r) => r.headers['x-service-event'] === 'webhook.test');
    assert.equal((JSON.parse(test?.body ?? '{}') as { test?: boolean }).test, true);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Confirm rotate' }).click();
    await page.waitForSelector('[data-overlap]');
    const secret = (await page.locator('[data-secret]').textContent()) ?? '';
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'the new secret, shown once');
    await shot('webhooks-rotated');
  });

  test('usage shows the requests made with the keys', async () => {
    await page.goto(`${base}/dashboard#/usage`);
    await ready();
    await page.getByRole('button', { name: '7d' }).click();
    await page.waitForSelector('[data-usage-key] [data-requests]');
    const counts = await page
      .locator('[data-usage-key] [data-requests]')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-requests'))));
    // One call with each of the three keys (the 401 after revoking is not the key’s: it no longer is one).
    assert.deepEqual(counts, [1, 1, 1]);
    // The pages' own reads are the user's, counted apart from the keys'.
    const dashboard = await page
      .locator('[data-usage-dashboard] [data-requests]')
      .getAttribute('data-requests');
    assert.ok(Number(dashboard) > 3, `the dashboard's reads: ${dashboard}`);
    assert.ok(await page.locator('svg.chart rect.req').count());
    await shot('usage');
  });

  test('plan page, and an admin changes a plan on the users page', async () => {
    await page.goto(`${base}/dashboard#/plan`);
    await ready();
    assert.equal(await page.locator('[data-plan]').textContent(), 'developer');
    await shot('plan');
    await db.query("UPDATE users SET is_admin = true WHERE email = 'quant@example.test'");
    await page.goto(`${base}/dashboard#/users`);
    await page.reload();
    await ready();
    await page.getByRole('link', { name: 'Users' }).waitFor();
    await page.getByLabel('Plan of quant@example.test').selectOption('institutional');
    await page.locator('tr', { hasText: 'quant@example.test' }).getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('#toast.show');
    const [row] = await db.query<{ plan: string }>(
      "SELECT plan FROM users WHERE email = 'quant@example.test'",
    );
    assert.equal(row?.plan, 'institutional');
    await shot('users');
  });

  test('signing up with a registered email and another password ends in the sign-in error', async () => {
    await page.locator('#signout').click();
    await page.waitForSelector('#signout', { state: 'hidden' });
    assert.equal(await page.locator('#who').isVisible(), false, 'Sign out hidden again once signed out');
    // Signing out sends the page to #/signin when its request returns: wait for that before moving on.
    await page.waitForSelector('h1:has-text("Sign in")');
    await page.goto(`${base}/dashboard#/signup`);
    await page.waitForSelector('h1:has-text("Create your account")');
    await page.getByLabel('Email').fill('quant@example.test');
    await page.getByLabel('Password').fill('another long enough password');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForSelector('[role="alert"]:has-text("invalid email or password")');
    await shot('signup-taken');
    assert.equal(await page.locator('h1').textContent(), 'Create your account');
  });
});

async function expectEventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  assert.fail('condition not met in time');
}
