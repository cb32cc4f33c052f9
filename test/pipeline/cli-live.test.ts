/**
 * `ingest announcements --live` end to end: the CLI pointed (DOD_CONTRACTS_FEED_URL) at a local site
 * shaped like DoD's — a feed with a news item and a release built from a real day's paragraphs — run
 * twice with the page amended in between: the right events, with source_url and 17:00 New York, and
 * nothing twice. Then the failures a run reports: the site refusing it (403), bad arguments.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { openDb } from '../../src/store/db.ts';
import { cli } from '../support/cli.ts';
import { admin, SEED_TEMPLATE, TEST_DATABASE_URL, withDatabase } from '../support/db.ts';
import { FakeDod, fixtureParagraphs } from '../support/fake-dod.ts';
import { buildArticle, buildFeed, releaseEntry } from '../support/fake-dod-feed.ts';
import { startServe } from '../support/serve.ts';

const DATE = '2018-06-15';
const name = `market_intel_t_live_${process.pid}_${randomBytes(3).toString('hex')}`;
const databaseUrl = withDatabase(TEST_DATABASE_URL, name);

describe('ingest announcements --live', () => {
  let site: FakeDod;
  let env: Record<string, string>;
  before(async () => {
    await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${SEED_TEMPLATE}`));
    site = await FakeDod.start();
    env = {
      DATABASE_URL: databaseUrl,
      DOD_CONTRACTS_FEED_URL: site.feedUrl,
      DOD_CONTRACTS_USER_AGENT: 'market-intel tests (ops@example.com)',
    };
  });
  after(async () => {
    await site.close();
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  const stored = async () => {
    const db = await openDb({ databaseUrl, dataDir: '' });
    try {
      return await db.query<{ id: string; announced_at: string; source_url: string | null }>(
        `SELECT id, announced_at, source_url FROM contracts WHERE id LIKE 'DOD\\_ANN\\_${DATE}%' ORDER BY id`,
      );
    } finally {
      await db.close();
    }
  };

  test('twice, the page amended in between: each paragraph once, at 17:00 New York, with its article', async () => {
    const day = fixtureParagraphs().get(DATE) ?? [];
    assert.ok(day.length > 10);
    const original = day.slice(0, -1);
    site.setPage(DATE, buildArticle(DATE, original));
    const url = site.articleUrl(DATE);
    site.feed = buildFeed([
      releaseEntry(DATE, url),
      { title: 'Readout of the Secretary&#39;s Call', link: `${site.url}Contract/Article/77/` },
    ]);
    const first = await cli(['ingest', 'announcements', '--live'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stderr,
      new RegExp(`1 releases in the feed, 1 pages read, 0 unchanged, ${original.length} new paragraphs`),
    );
    const once = await stored();
    assert.ok(once.length > 5, `${once.length} events`);
    assert.ok(once.every((e) => e.announced_at === '2018-06-15T21:00:00.000Z' && e.source_url === url));

    // The site amends the page: the day's last paragraph is added.
    site.amendPage(DATE, buildArticle(DATE, day));
    const second = await cli(['ingest', 'announcements', '--live'], env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /1 pages read, 0 unchanged, 1 new paragraphs \(0 corrected\)/);
    const twice = await stored();
    for (const e of once)
      assert.deepEqual(
        twice.find((t) => t.id === e.id),
        e,
      );
    const added = twice.filter((t) => !once.some((e) => e.id === t.id));
    assert.ok(
      added.every((e) => e.id.startsWith(`DOD_ANN_${DATE}_${String(original.length + 1).padStart(4, '0')}_`)),
    );
    assert.ok(added.every((e) => e.source_url === url));

    const third = await cli(['ingest', 'announcements', '--live'], env);
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stderr, /0 pages read, 1 unchanged, 0 new paragraphs/);
    assert.equal((await stored()).length, twice.length);
  });

  test('serve with ANNOUNCEMENTS_LIVE=on polls at start and reports the poll in /health; --no-worker does not poll', async () => {
    const date = '2018-06-14';
    const day = fixtureParagraphs().get(DATE) ?? [];
    site.setPage(
      date,
      buildArticle(
        date,
        day.slice(0, 3).map((p) => ({ ...p, date })),
      ),
    );
    site.feed = buildFeed([
      releaseEntry(date, site.articleUrl(date)),
      releaseEntry(DATE, site.articleUrl(DATE)),
    ]);
    // The runs above polled moments ago: a poller would skip its first slot.
    const db = await openDb({ databaseUrl, dataDir: '' });
    await db.query(`UPDATE announcement_polls SET last_poll_at = last_poll_at - interval '1 hour'`);
    await db.close();
    const liveEnv = { ...env, ANNOUNCEMENTS_LIVE: 'on', SECRET_KEY: 'live-feed-test-secret-key' };
    const front = startServe(['--no-worker'], liveEnv);
    try {
      await front.waitFor((l) => l.msg.startsWith('Server listening'), 'the --no-worker server');
      const server = startServe([], liveEnv);
      try {
        const polled = await server.waitFor((l) => /announcements: live poll:/.test(l.msg), 'a live poll');
        assert.match(polled.msg, /2 releases listed, 1 read, 1 unchanged, \d+ new paragraphs/);
        const listening = await server.waitFor((l) => l.msg.startsWith('Server listening'), 'listening');
        const url = /(http:\/\/\S+)/.exec(listening.msg)?.[1];
        type Health = {
          announcements: { live: boolean; ok: boolean; last_page_date: string; next_run_at: string | null };
        };
        // The poll is logged before the scheduler records its next run: read /health until it shows one.
        let health = (await (await fetch(`${url}/api/v1/health`)).json()) as Health;
        for (let tries = 0; !health.announcements.next_run_at && tries < 50; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          health = (await (await fetch(`${url}/api/v1/health`)).json()) as Health;
        }
        assert.equal(health.announcements.live, true);
        assert.equal(health.announcements.last_page_date, DATE);
        assert.ok(health.announcements.next_run_at);
        assert.ok(!front.lines.some((l) => /live poll/.test(l.msg)), 'the --no-worker process does not poll');
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    } finally {
      front.child.kill('SIGTERM');
      await front.exited;
    }
  });

  test('a refusal (403) exits 1 naming the remedy; --live with other options exits 2', async () => {
    site.failNext(1, { kind: 'status', status: 403 });
    const refused = await cli(['ingest', 'announcements', '--live'], env);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /answered 403.*HTTPS_PROXY/);
    assert.doesNotMatch(refused.stderr, /\n\s+at /);
    const bad = await cli(
      ['ingest', 'announcements', '--live', '--from', '2018-01-01', '--to', '2018-01-02'],
      env,
    );
    assert.equal(bad.code, 2, bad.stderr);
    const badFeed = await cli(['ingest', 'announcements', '--live'], {
      ...env,
      DOD_CONTRACTS_FEED_URL: 'ftp://x',
    });
    assert.equal(badFeed.code, 2, badFeed.stderr);
    assert.match(badFeed.stderr, /DOD_CONTRACTS_FEED_URL/);
  });
});
