import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AnnouncementParagraph, splitAnnouncementPage } from '../../src/sources/announcements.ts';
import {
  DEFAULT_DOD_BASE_URL,
  DodClient,
  type DodClientOptions,
  DodContractsError,
  dayUrl,
  releaseFromHtml,
} from '../../src/sources/dod-client.ts';
import { decodeEntities, htmlToText } from '../../src/sources/html-text.ts';
import {
  buildDayPage,
  type Encoding,
  FakeDod,
  FIXTURE_DAYS,
  fixturePage,
  fixtureParagraphs,
  type Layout,
  paragraphsByDay,
} from '../support/fake-dod.ts';

const fakes: FakeDod[] = [];
const clients: DodClient[] = [];
let byDay: Map<string, AnnouncementParagraph[]>;

before(() => {
  byDay = fixtureParagraphs();
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(fakes.map((f) => f.close()));
});

async function fake(): Promise<FakeDod> {
  const server = await FakeDod.start();
  fakes.push(server);
  return server;
}

/** A client on `server` whose back-off waits are recorded instead of slept. */
function clientFor(server: FakeDod, options: DodClientOptions = {}) {
  const waits: number[] = [];
  const retries: string[] = [];
  const client = new DodClient({
    baseUrl: server.url,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    onRetry: ({ reason }) => retries.push(reason),
    ...options,
  });
  clients.push(client);
  return { client, waits, retries };
}

const normalize = (text: string) => text.replace(/[\s\u00a0]+/g, ' ').trim();

/** The same paragraphs, in the same order and sections, text equal up to whitespace. */
function assertSameParagraphs(
  got: AnnouncementParagraph[],
  want: AnnouncementParagraph[],
  date: string,
): void {
  assert.deepEqual(
    got.map((p) => ({ date: p.date, section: p.section, text: normalize(p.text) })),
    want.map((p) => ({ date, section: p.section, text: normalize(p.text) })),
  );
  assert.deepEqual(
    got.map((p) => p.paragraphNo),
    got.map((_, i) => i + 1),
  );
}

function fixture(date: string): AnnouncementParagraph[] {
  const paragraphs = byDay.get(date);
  assert.ok(paragraphs, `fixture day ${date}`);
  return paragraphs;
}

describe('pages built from real announcements → the same paragraphs', () => {
  test('the fixture pages are what buildDayPage makes of the fixture paragraphs (rows of the shared file)', () => {
    assert.deepEqual([...byDay.keys()].sort(), FIXTURE_DAYS.map((d) => d.date).sort());
    for (const { date, style } of FIXTURE_DAYS) {
      assert.equal(fixturePage(date), buildDayPage(date, fixture(date), style), date);
    }
  });

  test('fetchDay reads each fixture day (article page, bare release, the site layout) back exactly', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    for (const { date } of FIXTURE_DAYS) server.setPage(date, fixturePage(date));
    for (const { date, style } of FIXTURE_DAYS) {
      const day = await client.fetchDay(date);
      assert.ok(day, date);
      assert.equal(day.date, date);
      assert.equal(day.url, `${server.url}?date=${date}`);
      assertSameParagraphs(day.paragraphs, fixture(date), date);
      // None of the page's furniture leaks in as a paragraph or a section.
      const all = day.paragraphs.map((p) => `${p.section} ${p.text}`).join('\n');
      for (const clutter of [
        'SPOTLIGHTS',
        'Share:',
        'RECENT CONTRACTS',
        'dataLayer',
        'Privacy',
        'Print',
        '-END-',
      ])
        assert.ok(!all.includes(clutter), `${date} (${style.layout}): ${clutter}`);
    }
    assert.equal(server.requests.length, FIXTURE_DAYS.length);
  });

  test('sections come out as written, paragraphs before the first heading have none', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    server.setPage('2017-01-06', fixturePage('2017-01-06'));
    server.setPage('2018-06-15', fixturePage('2018-06-15'));
    const early = await client.fetchDay('2017-01-06');
    const sections = (paragraphs: AnnouncementParagraph[] = []) => [
      ...new Set(paragraphs.map((p) => p.section)),
    ];
    assert.equal(early?.paragraphs[0]?.section, '');
    assert.deepEqual(sections(early?.paragraphs), sections(fixture('2017-01-06')));
    assert.deepEqual(sections(early?.paragraphs), ['', 'NAVY', 'ARMY']);
    const late = await client.fetchDay('2018-06-15');
    assert.deepEqual(
      [...new Set(late?.paragraphs.map((p) => p.section))],
      ['NAVY', 'ARMY', 'AIR FORCE', 'DEFENSE LOGISTICS AGENCY'],
    );
    assert.match(
      late?.paragraphs.find((p) => p.text.startsWith('CORRECTION'))?.text ?? '',
      /BAE Systems Land & Armaments/,
    );
  });

  test('a day redirected to its article page is read there, and the article is the url returned', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    const { articleUrl } = server.setPage('2015-12-31', fixturePage('2015-12-31'), { redirect: true });
    const day = await client.fetchDay('2015-12-31');
    assert.equal(day?.url, articleUrl);
    assertSameParagraphs(day?.paragraphs ?? [], fixture('2015-12-31'), '2015-12-31');
    assert.equal(server.requests.length, 2);
  });

  test('a plain-text release (text/plain) splits the same way', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    const date = '2017-01-06';
    let text = 'Contracts For Jan. 6, 2017\n\n';
    let section: string | null = null;
    for (const p of fixture(date)) {
      if (p.section !== section && p.section) text += `${p.section}\r\n`;
      section = p.section;
      text += `${p.text}\r\n\r\n`;
    }
    server.setPage(date, text, { contentType: 'text/plain; charset=utf-8' });
    assertSameParagraphs((await client.fetchDay(date))?.paragraphs ?? [], fixture(date), date);
  });

  test('a latin-1 page is decoded by its declared charset', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    const html =
      '<html><body><div class="body"><p><strong>NAVY</strong></p><p>Caf\u00e9 S.A., Paris, France, is awarded $9,000,000.</p></div></body></html>';
    server.setPage('2016-03-01', Buffer.from(html, 'latin1'), {
      contentType: 'text/html; charset=ISO-8859-1',
    });
    const day = await client.fetchDay('2016-03-01');
    assert.deepEqual(
      day?.paragraphs.map((p) => p.text),
      ['Caf\u00e9 S.A., Paris, France, is awarded $9,000,000.'],
    );
  });

  const SHARED =
    process.env.DOD_ANNOUNCEMENTS_CSV ??
    path.resolve('../shared/data/announcements/dod_contract_announcements_2014-08_2019-03_paragraphs.csv');
  test('every day of the shared announcements file, in a layout and encoding of its own, reads back exactly', {
    skip: existsSync(SHARED) ? false : `no ${SHARED} (set DOD_ANNOUNCEMENTS_CSV)`,
  }, () => {
    const days = paragraphsByDay(readFileSync(SHARED, 'utf8'));
    const layouts: Layout[] = ['defense-gov', 'article', 'fragment'];
    const encodings: Encoding[] = ['named', 'numeric', 'utf8'];
    let n = 0;
    for (const [date, want] of days) {
      const style = {
        layout: layouts[n % 3] as Layout,
        encoding: encodings[Math.floor(n / 3) % 3] as Encoding,
      };
      n++;
      const release = releaseFromHtml(buildDayPage(date, want, style));
      assert.deepEqual(release.dates, style.layout === 'fragment' ? [] : [date]);
      const got = splitAnnouncementPage(date, release.text);
      assert.deepEqual(
        got.map((p) => [p.section, normalize(p.text)]),
        want.map((p) => [p.section, normalize(p.text)]),
        `${date} (${style.layout}, ${style.encoding})`,
      );
    }
    assert.ok(n > 1000, `${n} days`);
  });
});

describe('HTML to text', () => {
  test('character references: named, decimal, hexadecimal, Windows-1252 numbers, invalid ones', () => {
    assert.equal(
      decodeEntities('AT&amp;T&nbsp;Inc. &#8217;s &#x2019;&#X2013; &rsquo;&ldquo;&rdquo; &eacute;&shy;'),
      'AT&T\u00a0Inc. \u2019s \u2019\u2013 \u2019\u201c\u201d \u00e9\u00ad',
    );
    assert.equal(decodeEntities('&#146;&#150;&#0;&#xD800;&#1114112;'), '\u2019\u2013\ufffd\ufffd\ufffd');
    assert.equal(decodeEntities('AT&T, &bogus; &amp &nbsp x &rsquo x'), 'AT&T, &bogus; & \u00a0 x &rsquo x');
  });

  test('blocks make lines; scripts, styles, comments and furniture go; inline markup does not break a line', () => {
    const html = `<!DOCTYPE html><HTML><HEAD><TITLE>t</TITLE><script>var s = "</p><p>ARMY</p>";</script>
      <style>p > a { x: 1 }</style></HEAD><BODY><nav><ul><li>NAVY</li></ul></nav>
      <!-- <p>AIR FORCE</p> --><div><p class="a>b" title='x > y'>One <a href="/x">two</a>
      three.<p>Four<br>five<br/>six</div><footer>Footer</footer><table><tr><td>a<td>b</table></BODY></HTML>`;
    assert.equal(htmlToText(html), 'One two three.\nFour\nfive\nsix\na\nb');
  });

  test('a bold all-caps run opening a line is a heading of its own; other bold text stays inline', () => {
    const html =
      '<p><strong>NAVY</strong> Acme Corp., Reston, Virginia, is awarded $1.</p>' +
      '<p><b>UPDATE:</b> Acme Corp. was added.</p><p>Awarded to <b>ACME</b> today.</p>';
    const { text } = releaseFromHtml(html);
    assert.equal(
      text,
      'NAVY\nAcme Corp., Reston, Virginia, is awarded $1.\nUPDATE: Acme Corp. was added.\nAwarded to ACME today.',
    );
  });

  test('the release is the article body when the page has one, and the page names its date', () => {
    const page = `<html><head><title>Contracts For Sept. 30, 2016 &gt; U.S. Department of Defense</title></head>
      <body><div class="menu">ARMY</div><h1>Contracts For Sept. 30, 2016</h1>
      <div class="content"><div class="body"><p>ARMY</p><p>Acme, Reston, Virginia, is awarded $1.</p></div>
      <div class="share">Share</div></div></body></html>`;
    assert.deepEqual(releaseFromHtml(page), {
      text: 'ARMY\nAcme, Reston, Virginia, is awarded $1.',
      dates: ['2016-09-30'],
    });
  });
});

describe('DodClient: answers and failures', () => {
  test('the default base and URL scheme', () => {
    const client = new DodClient();
    clients.push(client);
    assert.equal(client.baseUrl, DEFAULT_DOD_BASE_URL);
    assert.equal(client.urlFor('2016-02-29'), 'https://www.defense.gov/News/Contracts/?date=2016-02-29');
    assert.equal(dayUrl('2016-02-29', 'http://x.test/c?key=1'), 'http://x.test/c?key=1&date=2016-02-29');
    const custom = new DodClient({ urlFor: (date) => `http://x.test/${date}.html` });
    clients.push(custom);
    assert.equal(custom.urlFor('2016-02-29'), 'http://x.test/2016-02-29.html');
  });

  test('404 (a weekend, a day with no release) → null, asked once', async () => {
    const server = await fake();
    const { client, waits } = clientFor(server);
    assert.equal(await client.fetchDay('2018-06-16'), null);
    server.failNext(1, { kind: 'status', status: 410 });
    assert.equal(await client.fetchDay('2018-06-17'), null);
    assert.equal(server.requests.length, 2);
    assert.deepEqual(waits, []);
  });

  test('500 then 200 → retried after a back-off, the day read', async () => {
    const server = await fake();
    const { client, waits, retries } = clientFor(server, { baseDelayMs: 1000 });
    server.setPage('2015-12-31', fixturePage('2015-12-31'));
    server.failNext(1, { kind: 'status', status: 500 });
    const day = await client.fetchDay('2015-12-31');
    assertSameParagraphs(day?.paragraphs ?? [], fixture('2015-12-31'), '2015-12-31');
    assert.equal(server.requests.length, 2);
    assert.deepEqual(waits, [750]);
    assert.deepEqual(retries, ['answered 500']);
  });

  test('5xx every time → DodContractsError after maxAttempts, back-off doubling', async () => {
    const server = await fake();
    const { client, waits } = clientFor(server, { maxAttempts: 3, baseDelayMs: 100 });
    server.failAlways({ kind: 'status', status: 503 });
    await assert.rejects(client.fetchDay('2015-12-31'), (error: unknown) => {
      assert.ok(error instanceof DodContractsError);
      assert.equal(error.code, 'http');
      assert.equal(error.status, 503);
      assert.equal(error.attempts, 3);
      assert.match(error.message, /answered 503 \(2015-12-31, attempt 3\/3/);
      return true;
    });
    assert.equal(server.requests.length, 3);
    assert.deepEqual(waits, [75, 150]);
  });

  test('a dropped connection is retried; 429 waits its Retry-After', async () => {
    const server = await fake();
    const { client, waits, retries } = clientFor(server);
    server.setPage('2015-12-31', fixturePage('2015-12-31'));
    server.failNext(1, { kind: 'drop' });
    server.failNext(1, { kind: 'status', status: 429, retryAfter: '2' });
    assert.ok(await client.fetchDay('2015-12-31'));
    assert.equal(server.requests.length, 3);
    assert.equal(waits[1], 2000);
    assert.match(retries[0] ?? '', /^request failed/);
  });

  test('other 4xx answers fail at once, not retried', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    for (const status of [400, 403]) {
      server.failNext(1, { kind: 'status', status });
      await assert.rejects(client.fetchDay('2015-12-31'), (error: unknown) => {
        assert.ok(error instanceof DodContractsError);
        assert.equal(error.status, status);
        assert.equal(error.attempts, 1);
        return true;
      });
    }
    assert.equal(server.requests.length, 2);
  });

  test('a hanging server → timeout error within the deadline (every attempt, then give up)', async () => {
    const server = await fake();
    const client = new DodClient({ baseUrl: server.url, timeoutMs: 200, maxAttempts: 2, baseDelayMs: 20 });
    clients.push(client);
    server.failAlways({ kind: 'hang' });
    const started = Date.now();
    await assert.rejects(client.fetchDay('2015-12-31'), { name: 'DodContractsError', code: 'timeout' });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 400 && elapsed < 1500, `${elapsed} ms`);
    assert.equal(server.requests.length, 2);
  });

  test('a body that stalls after the headers → timeout, the deadline covers the whole answer', async () => {
    const server = await fake();
    const client = new DodClient({ baseUrl: server.url, timeoutMs: 200, maxAttempts: 1 });
    clients.push(client);
    server.failAlways({ kind: 'stall' });
    const started = Date.now();
    await assert.rejects(client.fetchDay('2015-12-31'), { code: 'timeout' });
    assert.ok(Date.now() - started < 1000);
  });

  test('an oversize body fails the day, declared or not, unretried', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    server.failNext(1, { kind: 'oversize', bytes: 6 * 1024 * 1024, declared: true });
    await assert.rejects(client.fetchDay('2015-12-31'), {
      code: 'too-large',
      message: /declares 6291456 bytes/,
    });
    server.failNext(1, { kind: 'oversize', bytes: 6 * 1024 * 1024, declared: false });
    await assert.rejects(client.fetchDay('2015-12-31'), {
      code: 'too-large',
      message: /more than 5242880 bytes/,
    });
    const small = clientFor(server, { maxBytes: 10_000 }).client;
    server.setPage('2015-12-31', fixturePage('2015-12-31'));
    await assert.rejects(small.fetchDay('2015-12-31'), { code: 'too-large' });
    assert.equal(server.requests.length, 3);
  });

  test('a content type other than HTML or plain text fails the day, unretried', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    for (const type of ['application/pdf', 'application/json; charset=utf-8']) {
      server.failNext(1, { kind: 'content-type', type });
      await assert.rejects(client.fetchDay('2015-12-31'), (error: unknown) => {
        assert.ok(error instanceof DodContractsError);
        assert.equal(error.code, 'content-type');
        assert.ok(error.message.includes(type));
        return true;
      });
    }
    server.setPage('2015-12-31', '<p>x</p>', { contentType: 'text/html; charset=no-such-charset' });
    await assert.rejects(client.fetchDay('2015-12-31'), { code: 'content-type' });
    assert.equal(server.requests.length, 3);
  });

  test('a page titled for another day is refused, not filed under the day asked', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    server.setPage('2016-01-04', fixturePage('2015-12-31'));
    await assert.rejects(client.fetchDay('2016-01-04'), {
      code: 'wrong-date',
      message: /for 2016-01-04 is the release of 2015-12-31/,
    });
  });

  test('redirects: too many, a loop or a non-http target is an error', async () => {
    const server = await fake();
    const none = clientFor(server, { maxRedirects: 0 }).client;
    server.setPage('2015-12-31', fixturePage('2015-12-31'), { redirect: true });
    await assert.rejects(none.fetchDay('2015-12-31'), { code: 'redirect', message: /more than 0 times/ });
    const { client } = clientFor(server);
    server.failAlways({ kind: 'redirect', location: '/News/Contracts/?date=2015-12-31' });
    await assert.rejects(client.fetchDay('2015-12-31'), { code: 'redirect', message: /more than 5 times/ });
    assert.equal(server.requests.length, 1 + 6);
    server.failAlways({ kind: 'redirect', location: 'file:///etc/passwd' });
    await assert.rejects(client.fetchDay('2015-12-31'), {
      code: 'redirect',
      message: /not an http\(s\) address/,
    });
    assert.equal(server.requests.length, 1 + 6 + 1);
  });

  test('a malformed date is a RangeError, nothing asked', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    for (const date of ['2015-02-29', '2015-1-5', 'yesterday', '2015-12-31T00:00:00Z']) {
      await assert.rejects(client.fetchDay(date), RangeError);
    }
    assert.equal(server.requests.length, 0);
  });
});

describe('DodClient: abort signal', () => {
  test('an aborted signal asks nothing', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(client.fetchDay('2015-12-31', controller.signal), { name: 'AbortError' });
    assert.equal(server.requests.length, 0);
  });

  test('aborting a request in flight rejects at once with the reason, not retried', async () => {
    const server = await fake();
    const client = new DodClient({ baseUrl: server.url, timeoutMs: 10_000 });
    clients.push(client);
    server.failAlways({ kind: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await assert.rejects(client.fetchDay('2015-12-31', controller.signal), { name: 'AbortError' });
    assert.ok(Date.now() - started < 1000);
    assert.equal(server.requests.length, 1);
    const reason = new Error('shutting down');
    const second = new AbortController();
    setTimeout(() => second.abort(reason), 50);
    await assert.rejects(client.fetchDay('2015-12-31', second.signal), (error) => error === reason);
  });

  test('aborting during a back-off stops the wait', async () => {
    const server = await fake();
    const client = new DodClient({ baseUrl: server.url, baseDelayMs: 60_000 });
    clients.push(client);
    server.failAlways({ kind: 'status', status: 502 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = Date.now();
    await assert.rejects(client.fetchDay('2015-12-31', controller.signal), { name: 'AbortError' });
    assert.ok(Date.now() - started < 1000);
    assert.equal(server.requests.length, 1);
  });
});

describe('DodClient.fetchRange', () => {
  test('every day in order, one at a time, weekends asked and null, a pause between requests', async () => {
    const server = await fake();
    const { client, waits } = clientFor(server);
    server.setPage('2018-06-15', fixturePage('2018-06-15'));
    const seen: { date: string; paragraphs: number | null }[] = [];
    for await (const { date, day } of client.fetchRange('2018-06-14', '2018-06-18', { delayMs: 250 })) {
      seen.push({ date, paragraphs: day ? day.paragraphs.length : null });
    }
    assert.deepEqual(seen, [
      { date: '2018-06-14', paragraphs: null },
      { date: '2018-06-15', paragraphs: fixture('2018-06-15').length },
      { date: '2018-06-16', paragraphs: null },
      { date: '2018-06-17', paragraphs: null },
      { date: '2018-06-18', paragraphs: null },
    ]);
    assert.deepEqual(
      server.requests.map((r) => r.date),
      ['2018-06-14', '2018-06-15', '2018-06-16', '2018-06-17', '2018-06-18'],
    );
    assert.deepEqual(waits, [250, 250, 250, 250]);
  });

  test('across a month end and a leap day; one day is a range of one', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    const dates: string[] = [];
    for await (const { date } of client.fetchRange('2016-02-28', '2016-03-01')) dates.push(date);
    assert.deepEqual(dates, ['2016-02-28', '2016-02-29', '2016-03-01']);
    const one: string[] = [];
    for await (const { date } of client.fetchRange('2016-02-29', '2016-02-29')) one.push(date);
    assert.deepEqual(one, ['2016-02-29']);
  });

  test('an error stops the range; an abort stops it between days; bad bounds are a RangeError', async () => {
    const server = await fake();
    const { client } = clientFor(server);
    server.failNext(2, { kind: 'status', status: 404 });
    server.failNext(1, { kind: 'status', status: 400 });
    const dates: string[] = [];
    await assert.rejects(async () => {
      for await (const { date } of client.fetchRange('2018-06-01', '2018-06-30')) dates.push(date);
    }, DodContractsError);
    assert.deepEqual(dates, ['2018-06-01', '2018-06-02']);

    const controller = new AbortController();
    const slow = new DodClient({ baseUrl: server.url });
    clients.push(slow);
    const got: string[] = [];
    await assert.rejects(
      async () => {
        for await (const { date } of slow.fetchRange('2018-06-01', '2018-06-30', {
          delayMs: 60_000,
          signal: controller.signal,
        })) {
          got.push(date);
          setTimeout(() => controller.abort(), 50);
        }
      },
      { name: 'AbortError' },
    );
    assert.deepEqual(got, ['2018-06-01']);

    await assert.rejects(async () => {
      for await (const _ of client.fetchRange('2018-06-02', '2018-06-01')) assert.fail('no day');
    }, RangeError);
  });
});
