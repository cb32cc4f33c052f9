/**
 * The explorer's company and contract pages: their dashboard API (by the session's plan tier, hostile
 * values), the charting library's asset, and the pages in Debian's Chromium on the demo data —
 * chart, markers, filters, navigation, and what a lower plan sees instead of tier-gated data.
 * Screenshots go to var/screenshots/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import { type AwardDay, mergeAwardDays } from '../../src/dashboard/routes/companies.ts';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import type { Plan } from '../../src/domain/plans.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, listenLocally, makeKey, testConfig } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { mustRefuse, URL_VALUES } from '../support/hostile.ts';

// As test/dashboard/browser.test.ts launches it (importing that file would run its tests here too).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const SHOTS = new URL('../../var/screenshots/', import.meta.url).pathname;
const PUBLIC = new URL('../../src/dashboard/public/', import.meta.url).pathname;

let db: Db;
let app: App;
let base: string;
const cookies: Partial<Record<Plan, string>> = {};

async function sessionFor(plan: Plan): Promise<string> {
  const cached = cookies[plan];
  if (cached) return cached;
  const { userId } = await makeKey(db, { plan, mode: 'test' });
  const { token } = await openSession(db, userId, new Date());
  cookies[plan] = token;
  return token;
}

async function get(plan: Plan | null, url: string) {
  const headers = plan ? { cookie: `${SESSION_COOKIE}=${await sessionFor(plan)}` } : {};
  return app.inject({ url, headers });
}

before(async () => {
  db = await seededDb();
  app = await buildApp({ config: testConfig(), db, logger: false });
  base = await listenLocally(app);
});
after(async () => {
  await app?.close();
  await db?.close();
});

interface CompanyPage {
  company: { ticker: string; contract_count: number; total_contract_value: number };
  recent_contracts: { id: string }[];
  award_days: AwardDay[];
  totals: Record<'by_agency' | 'by_classification', { name: string; count: number; total_value: number }[]>;
  candle_range: { first: string; last: string } | null;
  regime_tier: string;
  regimes: { from: string; to: string; dominant: string }[] | null;
}

describe('explorer API', () => {
  test('a company: its awards grouped by day and classification with their best score, totals that add up, the candles it has', async () => {
    const res = await get('developer', '/dashboard/api/companies/lmt');
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<CompanyPage>();
    const [stored] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM contracts WHERE ticker = 'LMT'",
    );
    // Counted from the totals (the page reads the contracts once): the same as counting them.
    assert.equal(page.company.contract_count, stored?.n);
    // Each day and classification once, its sums and its highest-scored award (the latest signal of the
    // default engine; the first id among equal scores, unscored last) as the contracts give them.
    const days = await db.query<AwardDay>(
      `SELECT DISTINCT ON (c.award_date, c.nlp_classification COLLATE "C") c.award_date::text, c.nlp_classification,
         count(*) OVER day::int AS count, (sum(c.contract_value) OVER day)::float8 AS total_value,
         c.id AS top_id, c.contract_value::float8 AS top_value, s.signal_score AS top_score
       FROM contracts c LEFT JOIN LATERAL (SELECT signal_score FROM signals s WHERE s.contract_id = c.id
         AND s.engine_name = 'materiality' ORDER BY computed_at DESC LIMIT 1) s ON true
       WHERE c.ticker = 'LMT'
       WINDOW day AS (PARTITION BY c.award_date, c.nlp_classification)
       ORDER BY c.award_date, c.nlp_classification COLLATE "C", s.signal_score DESC NULLS LAST, c.id COLLATE "C"`,
    );
    assert.deepEqual(page.award_days, days);
    assert.ok(days.length < (stored?.n ?? 0), 'LMT has days of several awards of one classification');
    assert.ok(days.some((d) => d.top_score !== null));
    for (const list of [page.totals.by_agency, page.totals.by_classification]) {
      assert.equal(
        list.reduce((sum, t) => sum + t.count, 0),
        page.company.contract_count,
      );
      assert.equal(
        list.reduce((sum, t) => sum + t.total_value, 0),
        page.company.total_contract_value,
      );
    }
    assert.equal(page.recent_contracts.length, 20);
    const [range] = await db.query<{ first: string; last: string }>(
      "SELECT min(date)::text AS first, max(date)::text AS last FROM candles WHERE ticker = 'LMT'",
    );
    assert.deepEqual(page.candle_range, range);
  });

  test('a renamed registrant: its chart marks the awards of its earlier era (priced on its series) and its history', async () => {
    const page = (await get('developer', '/dashboard/api/companies/RTX')).json<
      CompanyPage & { history: { listings: { ticker: string }[] } | null }
    >();
    const [stored] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM contracts WHERE ticker IN ('RTX', 'UTX')",
    );
    const [earlier] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM contracts WHERE ticker = 'UTX'",
    );
    assert.ok((earlier?.n ?? 0) > 0, 'the demo data has United Technologies-era awards');
    const days = page.award_days;
    assert.equal(
      days.reduce((sum, d) => sum + d.count, 0),
      stored?.n,
    );
    assert.ok(
      days.every(
        (d, i) =>
          i === 0 ||
          `${days[i - 1]?.award_date} ${days[i - 1]?.nlp_classification}` <
            `${d.award_date} ${d.nlp_classification}`,
      ),
      'oldest first, one group a day and classification',
    );
    assert.deepEqual(
      page.history?.listings.map((l) => l.ticker),
      ['UTX', 'RTX'],
    );
  });

  test("two listing eras' groups of one day and classification are summed, the best award the higher-scored", () => {
    const day = (date: string, kind: string, count: number, top_id: string, top_score: number | null) => ({
      award_date: date,
      nlp_classification: kind,
      count,
      total_value: count * 10,
      top_id,
      top_value: 10,
      top_score,
    });
    const merged = mergeAwardDays([
      day('2020-04-03', 'missiles', 1, 'RTX-2', 50),
      day('2020-04-03', 'aircraft', 2, 'RTX-1', 40),
      day('2020-04-02', 'aircraft', 1, 'RTX-0', null),
      day('2020-04-03', 'aircraft', 3, 'UTX-9', 80),
      day('2020-04-03', 'missiles', 1, 'UTX-8', 50),
      day('2020-04-02', 'aircraft', 4, 'UTX-7', null),
    ]);
    assert.deepEqual(
      merged.map((d) => [d.award_date, d.nlp_classification, d.count, d.total_value, d.top_id, d.top_score]),
      [
        ['2020-04-02', 'aircraft', 5, 50, 'RTX-0', null],
        ['2020-04-03', 'aircraft', 5, 50, 'UTX-9', 80],
        ['2020-04-03', 'missiles', 2, 20, 'RTX-2', 50],
      ],
    );
  });

  test('the regime band is for the intelligence tier, as /api/v1/regimes: spans covering the candles', async () => {
    const below = (await get('developer', '/dashboard/api/companies/LMT')).json<CompanyPage>();
    assert.equal(below.regimes, null);
    assert.equal(below.regime_tier, 'intelligence');
    const free = (await get('free', '/dashboard/api/companies/LMT')).json<CompanyPage>();
    assert.equal(free.regimes, null);
    const page = (await get('institutional', '/dashboard/api/companies/LMT')).json<CompanyPage>();
    const spans = page.regimes ?? [];
    assert.ok(spans.length > 10, `${spans.length} spans`);
    assert.ok(spans.every((s, i) => s.from <= s.to && (i === 0 || (spans[i - 1]?.to ?? '') < s.from)));
    assert.ok(
      spans.every((s, i) => i === 0 || spans[i - 1]?.dominant !== s.dominant),
      'runs merged',
    );
    assert.ok((spans[0]?.from ?? '') >= (page.candle_range?.first ?? ''));
    assert.ok((spans.at(-1)?.to ?? '') <= (page.candle_range?.last ?? ''));
    // The award dates' stored regimes (what /api/v1/regimes serves) agree with the band's week.
    const stored = await db.query<{ as_of: string; dominant: string }>(
      `SELECT DISTINCT as_of::text, dominant FROM regimes WHERE ticker = 'LMT' AND as_of >= '2021-01-01'
       AND extract(isodow FROM as_of) = 5 LIMIT 20`,
    );
    assert.ok(stored.length > 0);
    for (const r of stored) {
      const span = spans.find((s) => s.from <= r.as_of && r.as_of <= s.to);
      assert.equal(span?.dominant, r.dominant, `regime on ${r.as_of}`);
    }
  });

  test('a company without candles has no range; candles of one that has none are a 404', async () => {
    const page = (await get('developer', '/dashboard/api/companies/HON')).json<CompanyPage>();
    assert.equal(page.candle_range, null);
    assert.ok(page.award_days.length > 0);
    const candles = await get('developer', '/dashboard/api/candles/HON');
    assert.equal(candles.statusCode, 404);
    assert.equal(candles.json<Envelope>().error.message, 'unknown ticker: HON');
    assert.equal((await get('developer', '/dashboard/api/companies/NOPE')).statusCode, 404);
  });

  test('candles: the whole series in one answer, as the API writes them, and from a date', async () => {
    const all = (await get('free', '/dashboard/api/candles/LMT')).json<{ date: string }[]>();
    const [stored] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM candles WHERE ticker = 'LMT'",
    );
    assert.equal(all.length, stored?.n);
    assert.ok(all.length > 5000, 'more than one API page');
    const ita = (await get('free', '/dashboard/api/candles/ita?from=2010-01-01&to=2010-12-31')).json<
      { date: string; adj_close: number }[]
    >();
    assert.ok(ita.length > 200 && ita.every((c) => c.date >= '2010-01-01' && c.date <= '2010-12-31'));
    const api = await app.inject({
      url: '/api/v1/market/candles/ITA?from=2010-01-01&to=2010-12-31&limit=5000',
      headers: { 'x-api-key': (await makeKey(db)).raw },
    });
    assert.deepEqual(ita, api.json(), 'the same bars, written alike');
  });

  test('a contract: the API bundle, rationale only on the intelligence tier, the USASpending page', async () => {
    const [contract] = await db.query<{ id: string }>(
      "SELECT id FROM contracts WHERE ticker = 'LMT' AND source = 'usaspending' ORDER BY award_date DESC LIMIT 1",
    );
    assert.ok(contract);
    const url = `/dashboard/api/contracts/${encodeURIComponent(contract.id)}`;
    const top = (await get('institutional', url)).json<{
      signal: { rationale?: unknown[] };
      weekly_prices: unknown[];
      decay: { model: string; half_life_days: number };
      regime: { dominant: string };
      sources: { url: string }[];
    }>();
    assert.ok(Array.isArray(top.signal.rationale) && top.signal.rationale.length > 0);
    assert.ok(top.weekly_prices.length > 0);
    assert.equal(top.decay.model, 'exponential');
    assert.deepEqual(
      top.sources.map((s) => s.url),
      [`https://www.usaspending.gov/award/${encodeURIComponent(contract.id)}`],
    );
    const lower = (await get('developer', url)).json<{ signal: object; regime: object | null }>();
    assert.equal('rationale' in lower.signal, false, 'no rationale below the intelligence tier');
    // The API's own bundle gives a developer key the regime, so the dashboard does too.
    const keyed = await app.inject({
      url: `/api/v1/contracts/${encodeURIComponent(contract.id)}`,
      headers: { 'x-api-key': (await makeKey(db, { plan: 'developer' })).raw },
    });
    assert.deepEqual(lower.regime, keyed.json<{ regime: object }>().regime);
    assert.equal('rationale' in keyed.json<{ signal: object }>().signal, false);
    assert.equal((await get('developer', '/dashboard/api/contracts/CONT_AWD_NOPE')).statusCode, 404);
  });

  test('a contract whose owner had no listed stock: the same bundle as the API, ticker null with the reason', async () => {
    const [unlisted] = await db.query<{ id: string }>(
      'SELECT id FROM contracts WHERE ticker IS NULL AND entity_id IS NOT NULL ORDER BY id LIMIT 1',
    );
    assert.ok(unlisted, 'the demo data holds an award whose owner had no ticker');
    const url = `/dashboard/api/contracts/${encodeURIComponent(unlisted.id)}`;
    const res = await get('developer', url);
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<{
      contract: {
        ticker: string | null;
        owner_name: string | null;
        resolution: { no_ticker_reason: string };
      };
      signal: unknown;
      weekly_prices: unknown[];
    }>();
    assert.deepEqual([page.contract.ticker, page.signal, page.weekly_prices], [null, null, []]);
    assert.ok(page.contract.owner_name, 'names the owner then');
    const keyed = await app.inject({
      url: `/api/v1/contracts/${encodeURIComponent(unlisted.id)}`,
      headers: { 'x-api-key': (await makeKey(db, { plan: 'developer' })).raw },
    });
    assert.deepEqual(page.contract, keyed.json<{ contract: unknown }>().contract);
    assert.ok(page.contract.resolution.no_ticker_reason.length > 0);
  });

  test('an announcement links to the USASpending page of the award it was linked to', async () => {
    const [linked] = await db.query<{ id: string; linked_id: string }>(
      "SELECT id, linked_id FROM contracts WHERE source = 'announcement' AND linked_id IS NOT NULL AND ticker IS NOT NULL LIMIT 1",
    );
    assert.ok(linked, 'the demo data links some announcements');
    const page = (await get('developer', `/dashboard/api/contracts/${linked.id}`)).json<{
      sources: { url: string }[];
    }>();
    assert.deepEqual(
      page.sources.map((s) => s.url),
      [`https://www.usaspending.gov/award/${encodeURIComponent(linked.linked_id)}`],
    );
  });

  test('hostile path and query values are refused in the envelope, never a 5xx', async () => {
    const problems: string[] = [];
    const check = async (url: string, what: string, typed?: string) => {
      const res = await get('developer', url);
      if (res.statusCode >= 500) problems.push(`${what}: ${res.statusCode}`);
      if (res.statusCode >= 400 && res.json<Envelope>().error?.status !== res.statusCode)
        problems.push(`${what}: no envelope`);
      if (typed && (res.statusCode !== 400 || !res.json<Envelope>().error.message.includes(`"${typed}"`)))
        problems.push(`${what}: expected a 400 naming ${typed}, got ${res.statusCode}`);
    };
    const date = { type: 'string', format: 'date' };
    const limit = { type: 'integer', minimum: 1, maximum: 20000 };
    for (const v of URL_VALUES) {
      for (const path of ['companies', 'candles', 'contracts']) {
        if (v.encoded !== '') await check(`/dashboard/api/${path}/${v.encoded}`, `${path}/${v.label}`);
      }
      for (const [name, schema] of [
        ['from', date],
        ['to', date],
        ['limit', limit],
      ] as const) {
        await check(
          `/dashboard/api/candles/LMT?${name}=${v.encoded}`,
          `candles ${name}=${v.label}`,
          mustRefuse(schema, v.value) ? name : undefined,
        );
      }
    }
    await check('/dashboard/api/candles/LMT?limit=20001', 'limit over the maximum', 'limit');
    await check('/dashboard/api/candles/LMT?from=2020-01-02&to=2020-01-01', 'from after to', 'from');
    await check('/dashboard/api/candles/LMT?from=2020-01-01&from=2020-01-02', 'repeated', 'from');
    await check('/dashboard/api/companies/LMT?x=1', 'unknown parameter');
    assert.deepEqual(problems, []);
  });

  test('the charting library: from this origin, cached for a week, revalidated by ETag, under the CSP', async () => {
    const res = await app.inject({ url: '/dashboard/assets/vendor/lightweight-charts.mjs' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /TradingView Lightweight Charts™ v5\.2\.1/);
    assert.match(String(res.headers['content-type']), /^text\/javascript/);
    assert.equal(res.headers['cache-control'], 'public, max-age=604800');
    const page = await app.inject({ url: '/dashboard' });
    assert.equal(res.headers['content-security-policy'], page.headers['content-security-policy']);
    assert.match(String(page.headers['content-security-policy']), /style-src 'self';/);
    const etag = String(res.headers.etag);
    const again = await app.inject({
      url: '/dashboard/assets/vendor/lightweight-charts.mjs',
      headers: { 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });
});

describe('the dashboard page', () => {
  /** The modules `name` imports, at any depth, read from the sources (`from './x.js'`). */
  function importsOf(name: string, seen = new Set<string>()): Set<string> {
    for (const [, imported] of readFileSync(`${PUBLIC}${name}`, 'utf8').matchAll(/from '\.\/([\w-]+\.js)'/g))
      if (imported && !seen.has(imported)) {
        seen.add(imported);
        importsOf(imported, seen);
      }
    return seen;
  }

  test('preloads every module app.js imports, at any depth, so none waits for the module importing it', async () => {
    const html = (await app.inject({ url: '/dashboard' })).body;
    const preloaded = [
      ...html.matchAll(/<link rel="modulepreload" href="\/dashboard\/assets\/([\w-]+\.js)">/g),
    ]
      .map(([, name]) => name)
      .sort();
    const imported = [...importsOf('app.js')].filter((name) => name !== 'app.js').sort();
    assert.ok(imported.length >= 9, imported.join());
    assert.deepEqual(preloaded, imported);
    assert.ok(imported.every((name) => readdirSync(PUBLIC).includes(name)));
  });
});

const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;

describe('explorer pages in Chromium', { skip: process.env.CI ? false : skip }, () => {
  let browser: Browser;
  let page: Page;
  /** Errors the page raised and policy violations it reported: none are expected. */
  const problems: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
  });

  async function open(plan: Plan) {
    await page?.context().close();
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.addCookies([
      { name: SESSION_COOKIE, value: await sessionFor(plan), url: `${base}/dashboard` },
    ]);
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
  }
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
  const companyReady = () => page.waitForSelector('#company-chart[data-ready="true"]');
  /** The page's requests under `prefix` from now on, as the rest of their path and their query, in order. */
  function requestsUnder(prefix: string): string[] {
    const sent: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith(prefix)) sent.push(`${url.pathname.slice(prefix.length)}${url.search}`);
    });
    return sent;
  }
  const chartAttribute = (name: string) => page.locator('#company-chart').getAttribute(name);
  /** The price at the bottom edge of the candles, once the chart has painted what was just asked. */
  const axisFloor = () =>
    page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          requestAnimationFrame(() =>
            requestAnimationFrame(() =>
              resolve(
                (document.querySelector('#company-chart') as unknown as { axisFloor(): number }).axisFloor(),
              ),
            ),
          ),
        ),
    );

  test('company page: candles, award markers, regime band and benchmark; filters and range', async () => {
    await open('institutional');
    await page.goto(`${base}/dashboard#/companies/LMT`);
    await companyReady();
    assert.ok((await page.locator('#company-chart canvas').count()) > 0, 'drawn on canvas');
    const data = (await get('institutional', '/dashboard/api/companies/LMT')).json<CompanyPage>();
    const first = data.candle_range?.first ?? '';
    // The whole history: its earlier bars are asked for by the range that needs them.
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await page.waitForSelector(`#company-chart[data-first="${first}"]`);
    const inRange = data.award_days.filter((d) => d.award_date >= first);
    const days = (groups: AwardDay[]) => new Set(groups.map((d) => d.award_date)).size;
    const awards = (groups: AwardDay[]) => groups.reduce((sum, d) => sum + d.count, 0);
    // One marker a day: LMT has days of several awards, so fewer markers than awards.
    assert.ok(days(inRange) < awards(inRange));
    assert.equal(Number(await chartAttribute('data-markers')), days(inRange));
    assert.equal(Number(await chartAttribute('data-awards')), awards(inRange));
    // Acquisitions are marked on the chart: Sikorsky (2015-11-06) and the ULA venture (2006-12-01).
    const historyMarks = Number(await page.locator('#company-chart').getAttribute('data-history-marks'));
    assert.ok(historyMarks >= 2, `${historyMarks} history marks`);
    const history = await page.locator('#company-history li').allTextContents();
    assert.ok(history.includes('2015-11-06 — acquired: Sikorsky Aircraft Corporation'), history.join(' | '));
    assert.ok(await page.locator('#regime-key').isVisible(), 'the regime band legend');
    assert.equal(await page.locator('[data-upgrade]').count(), 0);
    assert.equal(await page.locator('#totals-agency tbody tr').count(), data.totals.by_agency.length);
    await shot('explorer-company');

    await page.locator('#award-filter').selectOption('aircraft');
    const aircraft = inRange.filter((d) => d.nlp_classification === 'aircraft');
    assert.ok(days(aircraft) > 0 && days(aircraft) < days(inRange));
    assert.equal(Number(await chartAttribute('data-markers')), days(aircraft));
    assert.equal(Number(await chartAttribute('data-awards')), awards(aircraft));
    const classes = await page.locator('#recent-contracts tbody td:nth-child(4)').allTextContents();
    assert.ok(
      classes.every((c) => c === 'aircraft' || c.startsWith('No recent')),
      classes.join(),
    );

    const spy = page.waitForResponse((r) => r.url().includes('/dashboard/api/candles/SPY'));
    await page.locator('#benchmark').selectOption('SPY');
    assert.equal((await spy).status(), 200);
    await page.getByRole('button', { name: '1Y', exact: true }).click();
    const visible = await page.evaluate(() => document.querySelector('#chart-legend') !== null);
    assert.ok(visible);
    assert.equal(
      await page.getByRole('button', { name: '1Y', exact: true }).getAttribute('aria-pressed'),
      'true',
    );
    await page.locator('#award-filter').selectOption('');
    await shot('explorer-company-1y');
    assert.deepEqual(problems, []);
  });

  test('the chart draws its latest five years first, and the earlier bars with their markers on zooming out', async () => {
    await open('institutional');
    const asked = requestsUnder('/dashboard/api/candles/');
    await page.goto(`${base}/dashboard#/companies/LMT`);
    await companyReady();
    const data = (await get('institutional', '/dashboard/api/companies/LMT')).json<CompanyPage>();
    const range = { first: data.candle_range?.first ?? '', last: data.candle_range?.last ?? '' };
    const [stored] = await db.query<{ bars: number; recent: string }>(
      `SELECT count(*)::int AS bars, (SELECT date::text FROM candles WHERE ticker = 'LMT'
         ORDER BY date DESC OFFSET 1399 LIMIT 1) AS recent FROM candles WHERE ticker = 'LMT'`,
    );
    assert.ok(stored && stored.bars > 1400, 'LMT has more than the first bars');
    const drawn = async () => ({
      bars: Number(await chartAttribute('data-bars')),
      first: await chartAttribute('data-first'),
      markers: Number(await chartAttribute('data-markers')),
    });
    const markerDays = (from: string) =>
      new Set(data.award_days.filter((d) => d.award_date >= from).map((d) => d.award_date)).size;
    assert.deepEqual(await drawn(), { bars: 1400, first: stored.recent, markers: markerDays(stored.recent) });
    assert.deepEqual(
      asked,
      ['LMT?limit=1400', 'ITA?limit=1400'],
      'the company and its benchmark, latest bars only',
    );
    assert.equal(
      await page.getByRole('button', { name: '5Y', exact: true }).getAttribute('aria-pressed'),
      'true',
    );

    const box = await page.locator('#company-chart').boundingBox();
    assert.ok(box);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 3);
    for (let step = 0; step < 10 && (await chartAttribute('data-first')) !== range.first; step++) {
      await page.mouse.wheel(0, 480);
      await page.waitForTimeout(100);
    }
    await page.waitForSelector(`#company-chart[data-first="${range.first}"]`);
    assert.deepEqual(await drawn(), {
      bars: stored.bars,
      first: range.first,
      markers: markerDays(range.first),
    });
    assert.ok(markerDays(range.first) > markerDays(stored.recent), 'the earlier days are marked too');
    const dayBefore = new Date(Date.parse(`${stored.recent}T00:00:00Z`) - 86_400_000)
      .toISOString()
      .slice(0, 10);
    assert.equal(asked[2], `LMT?to=${dayBefore}`, 'only the bars not yet drawn');
    // The benchmark again, from the new first bar.
    const benchmark = `ITA?from=${range.first}`;
    for (let wait = 0; wait < 20 && !asked.includes(benchmark); wait++) await page.waitForTimeout(100);
    assert.deepEqual(asked.slice(3), [benchmark]);
    assert.deepEqual(problems, []);
  });

  test("the company page's first reads go out beside the session's, not after it, and are asked once", async () => {
    await open('institutional');
    const sent = requestsUnder('/dashboard/api/');
    await page.route('**/dashboard/api/me', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.continue();
    });
    const me = page.waitForResponse('**/dashboard/api/me');
    await page.goto(`${base}/dashboard#/companies/LMT`);
    await me;
    const beforeMe = [...sent].sort();
    await companyReady();
    assert.deepEqual(beforeMe, ['candles/ITA?limit=1400', 'candles/LMT?limit=1400', 'companies/LMT', 'me']);
    assert.deepEqual([...sent].sort(), beforeMe, 'the page took the answers, asking nothing again');
    await page.unroute('**/dashboard/api/me');
    assert.deepEqual(problems, []);
  });

  test('company chart: one marker a day, sized by its total and coloured by its best score; no price below zero', async () => {
    await open('institutional');
    await page.goto(`${base}/dashboard#/companies/LMT`);
    await companyReady();
    // The server's groups: a day and classification each, with their count, total and best award.
    const group = (
      date: string,
      kind: string,
      count: number,
      total: number,
      top: [string, number | null],
    ) => ({
      award_date: date,
      nlp_classification: kind,
      count,
      total_value: total,
      top_id: top[0],
      top_value: total / count,
      top_score: top[1],
    });
    const lists = [
      [group('2019-05-01', 'aircraft', 1, 1e9, ['a', 60])],
      [
        group('2019-05-02', 'aircraft', 2, 7e8, ['b', 60]),
        group('2019-05-02', 'missiles', 1, 3e8, ['c', 90]),
        group('2019-05-03', 'aircraft', 1, 1e6, ['e', null]),
        group('2019-05-03', 'missiles', 1, 1e6, ['d', null]),
        group('2019-05-04', 'aircraft', 1, 1e6, ['g', 70]),
        group('2019-05-04', 'missiles', 1, 1e6, ['f', 70]),
      ],
    ];
    // The page's own function, as the page loaded it (no named functions in here: the page has no
    // helper for the names the test's compiler would add).
    type Marker = { id: string; size: number; color: string };
    const [one, many] = await page.evaluate(async (input) => {
      const module = '/dashboard/assets/explorer-markers.js';
      const { dayMarkers } = await import(module);
      return input.map((awards) => dayMarkers(awards) as Marker[]);
    }, lists);
    const markers = { one: one ?? [], many: many ?? [] };
    assert.equal(markers.many.length, 3, 'one marker per day, whatever its classifications');
    const [busy, quiet, tied] = markers.many;
    assert.equal(busy?.size, markers.one[0]?.size, 'sized by the day total ($1 B either way)');
    assert.equal(busy?.id, 'c', 'the highest-scored award of the day');
    assert.equal(busy?.color, '#c0262d', 'coloured by the highest score (90)');
    assert.equal(quiet?.color, '#c3cad2', 'unscored');
    assert.equal(quiet?.id, 'd', 'unscored: the first id');
    assert.equal(tied?.id, 'f', 'equal scores: the first id');
    // The price axis, at every range and in both scales (LMT: days of many awards, a long history).
    for (const scale of ['relative', 'price']) {
      await page.locator('#scale').selectOption(scale);
      for (const range of ['1Y', '5Y', '10Y', 'All']) {
        await page.getByRole('button', { name: range, exact: true }).click();
        const floor = await axisFloor();
        assert.ok(floor >= 0, `${scale} ${range}: the axis reaches ${floor}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('from the company to a contract and back', async () => {
    const link = page.locator('#recent-contracts tbody a').first();
    const id = (await link.textContent()) ?? '';
    await link.click();
    await page.waitForSelector('#weekly-chart[data-ready="true"]');
    assert.equal(decodeURIComponent(new URL(page.url()).hash), `#/contracts/${id}`);
    assert.ok((await page.locator('#weekly-chart canvas').count()) > 0);
    assert.ok(await page.locator('#weekly-chart').getAttribute('data-award-week'));
    assert.ok((await page.locator('#rationale tbody tr').count()) > 0, 'rationale rows');
    assert.ok(await page.locator('svg.decay polyline').isVisible(), 'the decay curve');
    assert.ok(await page.locator('[data-dominant]').isVisible(), 'the regime');
    assert.match((await page.locator('#match').textContent()) ?? '', /confidence \d+ %/);
    assert.equal(
      await page.locator('a.source-link').getAttribute('href'),
      `https://www.usaspending.gov/award/${encodeURIComponent(id)}`,
    );
    await shot('explorer-contract');
    await page.locator('dl.facts a', { hasText: 'LMT' }).click();
    await companyReady();
    assert.match(page.url(), /#\/companies\/LMT$/);
    assert.deepEqual(problems, []);
  });

  test('on a lower plan the regime band and the rationale give way to an upgrade notice', async () => {
    await open('developer');
    await page.goto(`${base}/dashboard#/companies/LMT`);
    await companyReady();
    assert.equal(await page.locator('#regime-key').count(), 0);
    assert.match(
      (await page.locator('[data-upgrade]').textContent()) ?? '',
      /intelligence tier; your plan \(developer\)/,
    );
    await shot('explorer-company-developer');
    await page.locator('#recent-contracts tbody a').first().click();
    await page.waitForSelector('#weekly-chart[data-ready="true"]');
    assert.equal(await page.locator('#rationale').count(), 0);
    assert.match(
      (await page.locator('#rationale-card [data-upgrade]').textContent()) ?? '',
      /intelligence tier/,
    );
    // The bundle's regime is withheld below its tier (src/domain/field-tiers.ts), and the page says why.
    assert.equal(await page.locator('[data-dominant]').count(), 0);
    assert.match(
      (await page.locator('#regime [data-upgrade]').textContent()) ?? '',
      /market regime is shown on the intelligence tier/,
    );
    await shot('explorer-contract-developer');
    assert.deepEqual(problems, []);
  });

  test('a page left before its data arrived never draws over the page shown next', async () => {
    await open('institutional');
    await page.route('**/dashboard/api/companies/**', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.goto(`${base}/dashboard#/keys`);
    await page.waitForSelector('h1:has-text("API keys")');
    await page.evaluate(() => {
      location.hash = '#/companies/LMT';
    });
    await page.waitForTimeout(100);
    await page.evaluate(() => {
      location.hash = '#/keys';
    });
    await page.waitForSelector('h1:has-text("API keys")');
    // The company's answer arrives 1.5 s after it was asked for; give it time to (not) draw.
    await page.waitForResponse('**/dashboard/api/companies/**');
    await page.waitForTimeout(500);
    assert.equal(await page.locator('main h1').first().textContent(), 'API keys');
    assert.equal(await page.locator('#company-chart').count(), 0);
    await page.unroute('**/dashboard/api/companies/**');
  });

  test('a company without candles says so, and still lists its contracts', async () => {
    await page.goto(`${base}/dashboard#/companies/HON`);
    await page.waitForSelector('[data-no-candles="HON"]');
    assert.ok((await page.locator('#recent-contracts tbody tr').count()) > 0);
    await shot('explorer-company-no-candles');
  });

  test('a contract whose owner had no listed stock names the owner and why, without prices', async () => {
    const [unlisted] = await db.query<{ id: string; owner_name: string }>(
      'SELECT id, owner_name FROM contracts WHERE ticker IS NULL AND entity_id IS NOT NULL ORDER BY id LIMIT 1',
    );
    assert.ok(unlisted);
    await page.goto(`${base}/dashboard#/contracts/${encodeURIComponent(unlisted.id)}`);
    await page.waitForSelector('[data-no-prices]');
    assert.match((await page.locator('#owner').textContent()) ?? '', /no ticker: \w/);
    assert.ok(((await page.locator('#owner').textContent()) ?? '').startsWith(unlisted.owner_name));
    assert.match((await page.locator('[data-no-prices]').textContent()) ?? '', /no listed stock/);
    assert.deepEqual(problems, []);
  });
});
