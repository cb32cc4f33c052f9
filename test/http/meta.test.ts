import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getEngine } from '../../src/domain/engines/index.ts';
import type { PlaceboSummary } from '../../src/evaluation/placebo.ts';
import type { App } from '../../src/http/types.ts';
import { recordEventStudy } from '../../src/services/evidence.ts';
import { recordPoll } from '../../src/store/announcement-pages.ts';
import type { Db } from '../../src/store/db.ts';
import {
  closeApp,
  type Envelope,
  getJson,
  type Injector,
  keyedClient,
  openSeededApp,
  testApp,
} from '../support/app.ts';

let db: Db;
let app: App;
let client: Injector;
before(async () => ({ db, app, client } = await openSeededApp()));
after(() => closeApp(app, db));

describe('GET /api/v1/health', () => {
  test('reports the database and the registered engines', async () => {
    const { status, body, headers } = await getJson<{
      ok: boolean;
      failing: string[];
      db: { ok: boolean };
      limiter: { ok: boolean; store: string };
      webhooks: { ok: boolean };
      engines: { name: string; version: string; tier: string }[];
      now: string;
    }>(client, '/api/v1/health');
    assert.equal(status, 200);
    assert.equal(body.ok, true);
    assert.deepEqual(body.failing, []);
    assert.deepEqual(body.db, { ok: true });
    assert.deepEqual(body.limiter, { ok: true, store: 'memory' });
    assert.deepEqual(body.webhooks, { ok: true });
    assert.deepEqual(
      body.engines.map((e) => [e.name, e.tier]),
      [
        ['materiality', 'developer'],
        ['regime-aware', 'intelligence'],
        ['announcement-size', 'developer'],
        ['announcement-dv', 'developer'],
      ],
    );
    assert.ok(!Number.isNaN(Date.parse(body.now)));
    assert.ok(headers['x-request-id']);
  });

  test("each engine entry carries its stored study's placebo verdict; null before it was studied", async () => {
    await db.query('DELETE FROM event_studies');
    type Entry = { name: string; evidence: Record<string, unknown> | null };
    const first = await getJson<{ engines: Entry[] }>(client, '/api/v1/health');
    assert.deepEqual(
      first.body.engines.map((e) => e.evidence),
      [null, null, null, null],
    );
    const version = getEngine('materiality')?.version ?? '';
    const study = await recordEventStudy(db, 'materiality', version, new Date('2026-11-27T10:00:00Z'));
    const placebo = (JSON.parse(study.summary) as { placebo: PlaceboSummary }).placebo;
    const { body } = await getJson<{ engines: Entry[] }>(client, '/api/v1/health');
    assert.deepEqual(body.engines[0]?.evidence, {
      verdict: placebo.verdict,
      evidence: placebo.evidence,
      benchmark: 'SPY',
      horizon_days: 5,
      top_minus_bottom: placebo.real.diff,
      t: placebo.real.t,
      contracts: placebo.real.n,
      dates: placebo.real.dates,
      placebo_percentile: placebo.percentile,
      within_company: { top_minus_bottom: placebo.demeaned.diff, t: placebo.demeaned.t },
      computed_at: '2026-11-27T10:00:00.000Z',
      page: '/dashboard/#/evidence?engine=materiality',
    });
    assert.match(placebo.verdict, /^(No evidence|Evidence): /);
    assert.equal(body.engines[1]?.evidence, null, 'regime-aware not studied yet');
  });
});

describe('GET /api/v1/health: the live announcements component', () => {
  type Announcements = { ok: boolean; live: boolean; last_page_date: string | null; detail?: string };
  const health = async (at: string, env: Record<string, string>) => {
    const live = await testApp(db, env, { now: () => new Date(at) });
    try {
      return await getJson<{ ok: boolean; failing: string[]; announcements: Announcements }>(
        await keyedClient(live, db),
        '/api/v1/health',
      );
    } finally {
      await live.close();
    }
  };

  test('off: reported as not live; on: not ok once a business day passed without its release, never a 503', async () => {
    const off = await health('2026-11-25T12:00:00Z', {});
    assert.equal(off.body.announcements.live, false);
    assert.equal(off.body.announcements.ok, true);
    const on = { ANNOUNCEMENTS_LIVE: 'on' };
    assert.equal((await health('2026-11-25T12:00:00Z', on)).body.announcements.detail, 'no poll yet');
    // Tuesday's release seen; Wednesday 08:00 New York: fine.
    const newest = { date: '2026-11-24', url: 'http://127.0.0.1/News/Contracts/Contract/Article/1/' };
    await recordPoll(db, { at: '2026-11-25T13:00:00Z', newest, news: true, error: null, refused: false });
    const fine = await health('2026-11-25T13:05:00Z', on);
    assert.equal(fine.body.announcements.ok, true);
    assert.equal(fine.body.announcements.last_page_date, '2026-11-24');
    // Thursday 09:00: Wednesday's release never seen, the site refusing the poll.
    await recordPoll(db, {
      at: '2026-11-26T14:00:00Z',
      newest: null,
      news: false,
      error: 'DoD contracts feed answered 403',
      refused: true,
    });
    const stale = await health('2026-11-26T14:00:00Z', on);
    assert.equal(stale.status, 200, 'reported, not a 503');
    assert.equal(stale.body.ok, true);
    assert.deepEqual(stale.body.failing, []);
    assert.equal(stale.body.announcements.ok, false);
    assert.match(stale.body.announcements.detail ?? '', /no release for 2026-11-25 seen.*403.*HTTPS_PROXY/);
    // Friday 09:00 after Thanksgiving (a federal holiday): Wednesday's is the one due — still missing.
    assert.match((await health('2026-11-27T14:00:00Z', on)).body.announcements.detail ?? '', /2026-11-25/);
  });
});

describe('GET /api/v1/health/live', () => {
  test('200 without a key, a limit or the database', async () => {
    const res = await client.inject({ url: '/api/v1/health/live' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ok: true });
    assert.equal(res.headers['x-ratelimit-limit'], undefined, 'no limiter involved');
    const hostile = await client.inject({ url: '/api/v1/health/live?verbose=1' });
    assert.equal(hostile.statusCode, 400, 'unknown parameters are refused like everywhere');
  });
});

describe('unknown routes, wrong methods and odd input', () => {
  test('unknown path is 404 in the envelope', async () => {
    const { status, body } = await getJson<Envelope>(client, '/api/v1/nothing-here');
    assert.equal(status, 404);
    assert.equal(body.error.code, 'not_found');
  });

  test('a known path with the wrong method is 405 with Allow', async () => {
    const res = await client.inject({ method: 'DELETE', url: '/api/v1/events' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET');
    assert.equal(res.json<Envelope>().error.status, 405);
    const put = await client.inject({ method: 'PUT', url: '/api/v1/contracts/CONT_AWD_X/score' });
    assert.equal(put.statusCode, 405);
    assert.equal(put.headers.allow, 'GET, POST');
  });

  test('a body on POST score that is not JSON is refused cleanly', async () => {
    const res = await client.inject({
      method: 'POST',
      url: '/api/v1/contracts/CONT_AWD_X/score',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<Envelope>().error.code, 'invalid_body');
  });

  test('no path or query string yields a 500', async () => {
    const paths = [
      '/api/v1/contracts/%E0%A4%A',
      '/api/v1/contracts/%00',
      '/api/v1/contracts/CONT_AWD_%00/score',
      '/api/v1/events?agency=%00',
      '/api/v1/regimes?contract_id=%00x',
      '/api/v1/events?engine=%00',
      `/api/v1/contracts/${'x'.repeat(600)}`,
      '/api/v1/companies/%2e%2e',
      '/api/v1/market/candles/../../etc/passwd',
      '/api/v1/events?limit=99999999999999999999',
      '/api/v1/events?from=0000-00-00',
      '/api/v1/events?from[]=2024-01-01',
      '/api/v1/events?ticker[a]=1',
      '/api/v1/events?%zz=1',
      '/api/v1/events?agency=%27%3B%20DROP%20TABLE%20contracts%3B--',
      '/api/v1/signals?min_score=101',
      '/api/v1/signals?since=not-a-time',
      '/api/v1/regimes?contract_id=',
      '/api/v1/market/candles/SPY?from=2024-02-30',
      '/api/v1/benchmarks?ticker=SPY&ticker=XLI',
      '/api/v1/contracts//score',
      '/api/v1/',
      '//api//v1//events',
    ];
    for (const path of paths) {
      const res = await client.inject({ method: 'GET', url: path });
      assert.ok(res.statusCode < 500, `${path} answered ${res.statusCode}`);
      if (res.statusCode >= 400) {
        const body = res.json<Envelope>();
        assert.equal(body.error.status, res.statusCode, path);
        assert.equal(typeof body.error.message, 'string');
      }
    }
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts');
    assert.ok((count[0]?.n ?? 0) > 0);
  });
});
