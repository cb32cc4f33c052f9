/**
 * The live announcements schedule: evenings of business days every 5 minutes, the morning after,
 * holidays and weekends skipped, back-off after failures; the poller in a process (a poll at start,
 * its next run recorded, metrics counted) and two processes polling once between them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { AnnouncementMetrics } from '../../src/infra/announcement-metrics.ts';
import {
  inEveningWindow,
  lastExpectedRelease,
  newYorkInstant,
  nextPoll,
  nextScheduled,
} from '../../src/pipeline/announcement-schedule.ts';
import { federalHolidays, isBusinessDay } from '../../src/pipeline/federal-holidays.ts';
import { startAnnouncementPoller } from '../../src/pipeline/live-scheduler.ts';
import { pollState } from '../../src/store/announcement-pages.ts';
import type { Db } from '../../src/store/db.ts';
import { testConfig } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { FakeDod } from '../support/fake-dod.ts';
import { buildArticle, buildFeed, releaseEntry } from '../support/fake-dod-feed.ts';
import { waitUntil } from '../webhooks/helpers.ts';

const at = (iso: string) => new Date(iso).toISOString();

describe('the schedule (New York time)', () => {
  test('16:30 to 23:00 on business days every 5 minutes, then 08:00 the next morning', () => {
    // Wednesday 25 November 2026, EST (UTC−5): 16:30 is 21:30Z.
    assert.equal(newYorkInstant('2026-11-25', 16 * 60 + 30).toISOString(), at('2026-11-25T21:30:00Z'));
    assert.equal(newYorkInstant('2026-06-10', 17 * 60).toISOString(), at('2026-06-10T21:00:00Z'));
    assert.equal(nextScheduled(new Date('2026-11-25T15:00:00Z')).toISOString(), at('2026-11-25T21:30:00Z'));
    assert.equal(nextScheduled(new Date('2026-11-25T22:00:00Z')).toISOString(), at('2026-11-25T22:05:00Z'));
    assert.ok(inEveningWindow(new Date('2026-11-26T03:59:00Z')));
    assert.ok(!inEveningWindow(new Date('2026-11-26T04:00:00Z')));
    // After Wednesday's window: Thursday 08:00 (Thanksgiving, no evening), then Friday 08:00? No: Thursday
    // is a holiday, so no morning poll on Friday; Friday's evening.
    assert.equal(nextScheduled(new Date('2026-11-26T03:58:00Z')).toISOString(), at('2026-11-26T13:00:00Z'));
    assert.equal(nextScheduled(new Date('2026-11-26T13:00:00Z')).toISOString(), at('2026-11-27T21:30:00Z'));
    // Friday's evening, then Saturday 08:00, then Monday 16:30.
    assert.equal(nextScheduled(new Date('2026-11-28T04:00:00Z')).toISOString(), at('2026-11-28T13:00:00Z'));
    assert.equal(nextScheduled(new Date('2026-11-28T13:00:00Z')).toISOString(), at('2026-11-30T21:30:00Z'));
  });

  test('failures back off (doubling, at most an hour), never earlier than the schedule', () => {
    const evening = new Date('2026-11-25T22:00:00Z');
    assert.equal(nextPoll(evening, 0).toISOString(), at('2026-11-25T22:05:00Z'));
    assert.equal(nextPoll(evening, 1).toISOString(), at('2026-11-25T22:10:00Z'));
    assert.equal(nextPoll(evening, 3).toISOString(), at('2026-11-25T22:40:00Z'));
    assert.equal(nextPoll(evening, 10).toISOString(), at('2026-11-25T23:00:00Z'));
    // Backed off past the window: the next scheduled poll after it.
    assert.equal(nextPoll(new Date('2026-11-26T03:30:00Z'), 4).toISOString(), at('2026-11-26T13:00:00Z'));
  });

  test('federal holidays and the release due by a time', () => {
    assert.deepEqual([...federalHolidays(2026)].filter((d) => d.startsWith('2026')).sort(), [
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      '2026-07-03',
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
    assert.equal(isBusinessDay('2026-11-27'), true);
    assert.equal(isBusinessDay('2026-11-28'), false);
    assert.equal(lastExpectedRelease(new Date('2026-11-25T20:00:00Z')), '2026-11-24');
    assert.equal(lastExpectedRelease(new Date('2026-11-26T04:30:00Z')), '2026-11-25');
    assert.equal(lastExpectedRelease(new Date('2026-11-27T14:00:00Z')), '2026-11-25', 'Thanksgiving');
    assert.equal(lastExpectedRelease(new Date('2026-11-30T14:00:00Z')), '2026-11-27');
  });
});

describe('the poller', () => {
  let db: Db;
  let site: FakeDod;
  before(async () => {
    db = await seededDb();
    site = await FakeDod.start();
  });
  after(async () => {
    await site.close();
    await db.close();
  });

  test('polls at start, records its next run, counts; a second process skips the slot', async () => {
    const date = '2026-11-25';
    site.setPage(
      date,
      buildArticle(date, [
        {
          date,
          section: 'NAVY',
          paragraphNo: 1,
          text: 'Lockheed Martin Corp., Owego, New York, is awarded a $90,000,000 firm-fixed-price contract (N00019-26-C-0001) for helicopters. Naval Air Systems Command, Patuxent River, Maryland, is the contracting activity.',
        },
      ]),
    );
    site.feed = buildFeed([releaseEntry(date, site.articleUrl(date))]);
    const config = testConfig({ ANNOUNCEMENTS_LIVE: 'on', DOD_CONTRACTS_FEED_URL: site.feedUrl });
    const now = () => new Date('2026-11-25T22:01:00Z');
    const lines: string[] = [];
    const log = {
      info: (l: string) => lines.push(l),
      warn: (l: string) => lines.push(l),
      error: (l: string) => lines.push(l),
    };
    const registry = new Registry();
    const metrics = new AnnouncementMetrics([registry]);
    assert.equal(startAnnouncementPoller(db, testConfig(), log), null, 'off by default');
    const poller = startAnnouncementPoller(db, config, log, { now, metrics });
    assert.ok(poller);
    await waitUntil('the first poll', async () => (await pollState(db))?.nextRunAt != null);
    await poller.stop();
    const state = await pollState(db);
    assert.equal(state?.lastPageDate, date);
    assert.equal(state?.lastSuccessAt, now().toISOString());
    assert.equal(state?.nextRunAt, '2026-11-25T22:06:00.000Z');
    const text = await registry.metrics();
    assert.match(text, /market_intel_announcement_polls_total\{outcome="ok"\} 1/);
    assert.match(text, /market_intel_announcement_pages_total\{result="changed"\} 1/);
    assert.match(text, /market_intel_announcement_events_total 1/);

    // Another process, a minute later: the slot was polled, it skips.
    const other = new Registry();
    const second = startAnnouncementPoller(db, config, log, {
      now: () => new Date('2026-11-25T22:02:00Z'),
      metrics: new AnnouncementMetrics([other]),
    });
    await waitUntil('a skipped poll', async () => /outcome="skipped"\} 1/.test(await other.metrics()));
    await second?.stop();
    assert.equal(site.requests.filter((r) => r.path.includes('RSS.ashx')).length, 1);

    // Refused: counted, recorded, backed off.
    site.failAlways({ kind: 'status', status: 403 });
    const refusedMetrics = new Registry();
    const third = startAnnouncementPoller(db, config, log, {
      now: () => new Date('2026-11-25T22:30:00Z'),
      metrics: new AnnouncementMetrics([refusedMetrics]),
    });
    await waitUntil(
      'a backed-off run',
      async () => (await pollState(db))?.nextRunAt === '2026-11-25T22:40:00.000Z',
    );
    await third?.stop();
    site.heal();
    assert.match(await refusedMetrics.metrics(), /market_intel_announcement_refusals_total 1/);
    const refused = await pollState(db);
    assert.equal(refused?.lastRefusedAt, '2026-11-25T22:30:00.000Z');
    assert.match(refused?.lastError ?? '', /403/);
  });
});
