/**
 * The live announcement poll against a local site shaped like DoD's (the feed and its articles):
 * events at 17:00 New York with the article as source_url, nothing twice, amendments adding only what
 * is new (a correction as a new version first seen when polled, the earlier kept), one signal.created
 * per new event, conditional requests, and the failures an article can meet (403, 404, slow, too slow).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ingestAnnouncements } from '../../src/pipeline/announcements.ts';
import { createPipelineContext, type PipelineContext } from '../../src/pipeline/context.ts';
import { pollLiveAnnouncements } from '../../src/pipeline/live-announcements.ts';
import { type AnnouncementParagraph, parseAnnouncementsCsv } from '../../src/sources/announcements.ts';
import { DodFeedReader } from '../../src/sources/dod-feed.ts';
import { DodHttp } from '../../src/sources/dod-http.ts';
import { withPollLock } from '../../src/store/announcement-pages.ts';
import type { Db } from '../../src/store/db.ts';
import { getJson, keyedClient, testApp, testConfig } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { FakeDod } from '../support/fake-dod.ts';
import { buildArticle, buildFeed, type FeedEntry, releaseEntry } from '../support/fake-dod-feed.ts';
import { makeWebhook } from '../webhooks/helpers.ts';

let db: Db;
let ctx: PipelineContext;
let site: FakeDod;
let http: DodHttp;
let reader: DodFeedReader;
let clock = new Date('2018-06-14T21:05:00Z');

before(async () => {
  db = await seededDb();
  ctx = await createPipelineContext(db, { signalThreshold: 0, now: () => clock });
  site = await FakeDod.start();
  http = new DodHttp({ maxAttempts: 1, timeoutMs: 20_000, userAgent: 'market-intel-test (ops@example.com)' });
  reader = new DodFeedReader(http, site.feedUrl);
});
after(async () => {
  await http.close();
  await site.close();
  await db.close();
});

const lockheed = (piid: string, value: string) =>
  `Lockheed Martin Corp., Rotary and Mission Systems, Owego, New York, is being awarded a ${value} firm-fixed-price contract (${piid}) for MH-60R helicopters. Work is expected to be completed in 2021. This contract was not competitively procured. Fiscal 2018 aircraft procurement (Navy) funds in the amount of $12,000,000 are being obligated at time of award. The Naval Air Systems Command, Patuxent River, Maryland, is the contracting activity.`;
const raytheon = (piid: string, value: string) =>
  `Raytheon Co., Tucson, Arizona, has been awarded a ${value} modification (P00007) to contract ${piid} for Standard Missile-6 production. Work will be performed in Tucson, Arizona, and is expected to be completed by June 2020. Army Contracting Command, Redstone Arsenal, Alabama, is the contracting activity.`;

function paragraphs(date: string, rows: [section: string, text: string][]): AnnouncementParagraph[] {
  return rows.map(([section, text], i) => ({ date, section, paragraphNo: i + 1, text }));
}

/** Publishes `days` (date → paragraphs) as articles listed in the feed, plus a news item that is not a release. */
function publish(days: Map<string, AnnouncementParagraph[]>): Map<string, string> {
  const urls = new Map<string, string>();
  const entries: FeedEntry[] = [
    {
      title: 'Statement by the Secretary on AT&T & the "Golden Dome"',
      link: `${site.url}Contract/Article/999/`,
      description: '<p>Not a release</p>',
    },
  ];
  for (const [date, list] of days) {
    const exists = (() => {
      try {
        return site.articleUrl(date);
      } catch {
        return null;
      }
    })();
    const body = buildArticle(date, list, { footnotes: ['*Small business'] });
    if (exists) site.amendPage(date, body);
    else site.setPage(date, body);
    urls.set(date, site.articleUrl(date));
    entries.push(releaseEntry(date, site.articleUrl(date)));
  }
  site.feed = buildFeed(entries.reverse());
  return urls;
}

const events = (date: string) =>
  db.query<{
    id: string;
    announced_at: string;
    available_at: string;
    source_url: string | null;
    ticker: string | null;
  }>(
    `SELECT id, announced_at, available_at, source_url, ticker FROM contracts WHERE id LIKE $1 ORDER BY id`,
    [`DOD\\_ANN\\_${date}\\_%`],
  );

const deliveries = async (webhookId: string) =>
  (
    await db.query<{ id: string; n: number }>(
      `SELECT payload -> 'data' -> 'contract' ->> 'id' AS id, count(*)::int AS n FROM webhook_deliveries
       WHERE webhook_id = $1 GROUP BY 1 ORDER BY 1`,
      [webhookId],
    )
  ).map((r) => [r.id, r.n]);

describe('live announcements: one poll of the feed', () => {
  const config = testConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });
  const DAY = '2018-06-14';
  const first = paragraphs(DAY, [
    ['NAVY', lockheed('N00019-18-C-2001', '$500,000,000')],
    ['NAVY', lockheed('N00019-18-C-2002', '$200,000,000')],
    ['ARMY', raytheon('W31P4Q-16-C-0101', '$90,000,000')],
  ]);

  test('a new release: its events at 17:00 New York, source_url the article, delivered once each', async () => {
    const hook = await makeWebhook(db, config, 'https://93.184.216.34/live');
    const urls = publish(new Map([[DAY, first]]));
    const result = await pollLiveAnnouncements(ctx, reader);
    assert.equal(result.items, 1, 'the news item is not a release');
    assert.deepEqual(
      {
        pages: result.pages,
        paragraphs: result.paragraphs,
        versions: result.versions,
        errors: result.errors,
      },
      { pages: 1, paragraphs: 4, versions: 0, errors: [] },
      'three awards and the footnote',
    );
    assert.deepEqual(result.newest, { date: DAY, url: urls.get(DAY) });
    const stored = await events(DAY);
    assert.deepEqual(
      stored.map((e) => [e.id, e.announced_at, e.available_at, e.source_url, e.ticker]),
      [
        [
          'DOD_ANN_2018-06-14_0001_1',
          '2018-06-14T21:00:00.000Z',
          '2018-06-14T21:00:00.000Z',
          urls.get(DAY),
          'LMT',
        ],
        [
          'DOD_ANN_2018-06-14_0002_1',
          '2018-06-14T21:00:00.000Z',
          '2018-06-14T21:00:00.000Z',
          urls.get(DAY),
          'LMT',
        ],
        [
          'DOD_ANN_2018-06-14_0003_1',
          '2018-06-14T21:00:00.000Z',
          '2018-06-14T21:00:00.000Z',
          urls.get(DAY),
          // Point-in-time identity: Raytheon Co. of 2018 is RTN (RTX is the 2020 merger's).
          'RTN',
        ],
      ],
    );
    const [page] = await db.query<{ article_id: string; content_hash: string; fetched_at: string }>(
      `SELECT article_id, content_hash, fetched_at FROM announcements WHERE id = 'DOD_ANN_2018-06-14_0001'`,
    );
    assert.equal(page?.article_id, new URL(urls.get(DAY) ?? '').pathname.split('/').at(-2));
    assert.match(page?.content_hash ?? '', /^[0-9a-f]{64}$/);
    assert.equal(page?.fetched_at, clock.toISOString());
    // Once per engine the hook's developer key reaches that scored the event: materiality for each, and
    // announcement-dv for Lockheed Martin's (Raytheon Co. of 2018 has no shipped dollar volume).
    assert.deepEqual(await deliveries(hook.webhookId), [
      ['DOD_ANN_2018-06-14_0001_1', 2],
      ['DOD_ANN_2018-06-14_0002_1', 2],
      ['DOD_ANN_2018-06-14_0003_1', 1],
    ]);
    // Served with the event, in the bundle and the lists.
    const app = await testApp(db);
    try {
      const client = await keyedClient(app, db);
      const bundle = await getJson<{ contract: { source_url: string | null; announced_at: string } }>(
        client,
        '/api/v1/contracts/DOD_ANN_2018-06-14_0001_1',
      );
      assert.equal(bundle.status, 200);
      assert.equal(bundle.body.contract.source_url, urls.get(DAY));
      const list = await getJson<{ data: { contract: { id: string; source_url: string | null } }[] }>(
        client,
        '/api/v1/events?ticker=LMT&source=announcement&from=2018-06-14&to=2018-06-14',
      );
      assert.equal(list.status, 200);
      const listed = list.body.data.filter((item) => item.contract.id.startsWith('DOD_ANN_2018-06-14'));
      assert.ok(listed.length >= 2);
      assert.ok(listed.every((item) => item.contract.source_url === urls.get(DAY)));
    } finally {
      await app.close();
    }

    // Polled again: asked conditionally, 304, nothing added.
    site.requests.length = 0;
    const again = await pollLiveAnnouncements(ctx, reader);
    assert.deepEqual(
      { pages: again.pages, unchanged: again.unchanged, paragraphs: again.paragraphs },
      {
        pages: 0,
        unchanged: 1,
        paragraphs: 0,
      },
    );
    const article = site.requests.find((r) => r.path.includes('/Article/'));
    assert.match(article?.ifNoneMatch ?? '', /^"[0-9a-f]{40}"$/);
    assert.equal(article?.userAgent, 'market-intel-test (ops@example.com)');
    // A server without validators: the same release text (hash) is no change either.
    site.validators = false;
    const third = await pollLiveAnnouncements(ctx, reader);
    site.validators = true;
    assert.deepEqual(
      { unchanged: third.unchanged, paragraphs: third.paragraphs },
      { unchanged: 1, paragraphs: 0 },
    );
    assert.equal((await events(DAY)).length, 3);
    assert.equal((await deliveries(hook.webhookId)).length, 3);
  });

  test('an amended page adds only what is new; a corrected paragraph is a new version, the earlier kept', async () => {
    const hook = await makeWebhook(db, config, 'https://93.184.216.34/amended');
    const before = await events(DAY);
    clock = new Date('2018-06-15T12:30:00Z');
    // A paragraph inserted before the others, and the second's value corrected.
    const amended = paragraphs(DAY, [
      ['NAVY', lockheed('N00019-18-C-2003', '$50,000,000')],
      ['NAVY', lockheed('N00019-18-C-2001', '$500,000,000')],
      ['NAVY', lockheed('N00019-18-C-2002', '$220,000,000')],
      ['ARMY', raytheon('W31P4Q-16-C-0101', '$90,000,000')],
    ]);
    publish(new Map([[DAY, amended]]));
    const result = await pollLiveAnnouncements(ctx, reader);
    assert.deepEqual(
      {
        pages: result.pages,
        paragraphs: result.paragraphs,
        versions: result.versions,
        events: result.events,
      },
      { pages: 1, paragraphs: 2, versions: 1, events: 2 },
    );
    const after = await events(DAY);
    for (const earlier of before)
      assert.deepEqual(
        after.find((e) => e.id === earlier.id),
        earlier,
        earlier.id,
      );
    const added = after.filter((e) => !before.some((b) => b.id === e.id));
    const rows = await db.query<{ id: string; text: string; supersedes: string | null }>(
      `SELECT id, text, supersedes FROM announcements WHERE id = ANY($1::text[]) ORDER BY id`,
      [added.map((e) => e.id.replace(/_\d+$/, ''))],
    );
    assert.deepEqual(
      rows.map((r) => [
        r.id,
        r.supersedes,
        r.text.includes('$220,000,000') || r.text.includes('$50,000,000'),
      ]),
      [
        ['DOD_ANN_2018-06-14_0005', null, true],
        ['DOD_ANN_2018-06-14_0006', 'DOD_ANN_2018-06-14_0002', true],
      ],
    );
    const [insertion, correction] = added;
    // Added overnight: announced with the release, public from when it was first seen.
    assert.equal(insertion?.announced_at, '2018-06-14T21:00:00.000Z');
    assert.equal(insertion?.available_at, clock.toISOString());
    // Corrected: a new version, announced when first seen.
    assert.equal(correction?.announced_at, clock.toISOString());
    assert.ok(added.every((e) => e.source_url === site.articleUrl(DAY)));
    // Materiality's and announcement-dv's signal of each (Lockheed Martin's events).
    assert.deepEqual(await deliveries(hook.webhookId), [
      ['DOD_ANN_2018-06-14_0005_1', 2],
      ['DOD_ANN_2018-06-14_0006_1', 2],
    ]);
    const again = await pollLiveAnnouncements(ctx, reader);
    assert.equal(again.paragraphs, 0);
  });

  test('a release already read from a file adds nothing; its events take the article as source', async () => {
    const date = '2018-06-18';
    const list = paragraphs(date, [['AIR FORCE', lockheed('FA8625-18-C-6001', '$80,000,000')]]);
    const csv = `announcement_date,section,paragraph_no,text\n${date},AIR FORCE,1,"${list[0]?.text}"\n`;
    await ingestAnnouncements(ctx, parseAnnouncementsCsv(csv).paragraphs);
    const [fromFile] = await events(date);
    assert.equal(fromFile?.source_url, null);
    const urls = publish(new Map([[date, list]]));
    const result = await pollLiveAnnouncements(ctx, reader);
    assert.equal(result.errors.length, 0);
    const [live] = await events(date);
    assert.deepEqual(live, { ...fromFile, source_url: urls.get(date) });
    // The footnote is the page's only new paragraph.
    assert.equal(result.paragraphs, 1);
    assert.equal((await events(date)).length, 1);
  });

  test('an article refused (403), missing (404) or too slow is reported; the others are stored', async () => {
    const days = new Map([
      ['2018-06-19', paragraphs('2018-06-19', [['NAVY', lockheed('N00019-18-C-3001', '$70,000,000')]])],
      ['2018-06-20', paragraphs('2018-06-20', [['NAVY', lockheed('N00019-18-C-3002', '$71,000,000')]])],
      ['2018-06-21', paragraphs('2018-06-21', [['NAVY', lockheed('N00019-18-C-3003', '$72,000,000')]])],
      ['2018-06-22', paragraphs('2018-06-22', [['NAVY', lockheed('N00019-18-C-3004', '$73,000,000')]])],
    ]);
    const urls = publish(days);
    const id = (date: string) => Number(new URL(urls.get(date) ?? '').pathname.split('/').at(-2));
    site.articleFaults.set(id('2018-06-19'), { kind: 'status', status: 403 });
    site.articleFaults.set(id('2018-06-20'), { kind: 'status', status: 404 });
    site.articleFaults.set(id('2018-06-21'), { kind: 'slow', ms: 2_500 });
    const impatient = new DodHttp({ maxAttempts: 1, timeoutMs: 1_000 });
    const tooSlow = await pollLiveAnnouncements(ctx, new DodFeedReader(impatient, site.feedUrl));
    await impatient.close();
    assert.deepEqual(
      tooSlow.errors.map((e) => [
        e.url,
        e.refused,
        /403.*HTTPS_PROXY.*USER_AGENT/.test(e.message),
        /within 1000 ms/.test(e.message),
      ]),
      [
        [urls.get('2018-06-19'), true, true, false],
        [urls.get('2018-06-21'), false, false, true],
      ],
    );
    assert.deepEqual(tooSlow.missing, [urls.get('2018-06-20')]);
    assert.equal((await events('2018-06-22')).length, 1);
    // Slow but within the deadline: read.
    const result = await pollLiveAnnouncements(ctx, reader);
    assert.equal((await events('2018-06-21')).length, 1);
    assert.equal(result.errors.length, 1);
    site.articleFaults.clear();
  });

  test('the whole feed refused fails the poll with the remedy; one poller at a time', async () => {
    site.failNext(1, { kind: 'status', status: 403 });
    await assert.rejects(pollLiveAnnouncements(ctx, reader), {
      name: 'DodContractsError',
      status: 403,
      message: /HTTPS_PROXY/,
    });
    const inner = await withPollLock(db, async () => withPollLock(db, async () => 'second'));
    assert.equal(inner, null, 'the lock is held by the first');
  });
});
