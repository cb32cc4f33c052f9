/**
 * The live site's shapes read: the feed's "Contracts For" titles and items (CDATA, entities, relative
 * links, Atom, CRLF), article pages with odd markup, and every day of the shared 2014–2019 announcements
 * re-rendered as the site's articles reading back to the paragraphs — and so the events — file ingest
 * makes of them. Also the HTTP client's proxy (HTTPS_PROXY, DOD_CONTRACTS_PROXY) and User-Agent.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseParagraph, splitAnnouncementPage } from '../../src/sources/announcements.ts';
import { releaseFromHtml } from '../../src/sources/dod-client.ts';
import {
  articleIdOf,
  articleRelease,
  contractsTitleDate,
  DodFeedReader,
  parseContractsFeed,
} from '../../src/sources/dod-feed.ts';
import { DodHttp } from '../../src/sources/dod-http.ts';
import { announcementId } from '../../src/store/announcements.ts';
import { paragraphsByDay } from '../support/fake-dod.ts';
import { buildArticle, buildFeed, releaseEntry } from '../support/fake-dod-feed.ts';

const normalize = (text: string) => text.replace(/[\s\u00a0]+/g, ' ').trim();

describe('the feed', () => {
  test('"Contracts For" titles: abbreviated and full month names, stray spacing; others are not releases', () => {
    const cases: [string, string | null][] = [
      ['Contracts For Sept. 30, 2016', '2016-09-30'],
      ['Contracts for June 1, 2018', '2018-06-01'],
      ['Contracts For May 5, 2020', '2020-05-05'],
      ['Contracts For July 4,2019', '2019-07-04'],
      ['Contracts For Aug.1, 2025', '2025-08-01'],
      ['Contracts For Oct. 6, 2025 (Updated)', '2025-10-06'],
      ['Contracts For Oct. 6, 2025 - Corrected', '2025-10-06'],
      ['Contracts For Oct. 6, 20251', null],
      ['Contracts For Sep. 3, 2025', '2025-09-03'],
      ['CONTRACTS FOR Jan. 2, 2019.', '2019-01-02'],
      ['Contracts For\u00a0Aug.  1 , 2014', '2014-08-01'],
      ['Contracts For Feb. 30, 2019', null],
      ['Contracts For Sep 31, 2019', null],
      ['Contracts', null],
      ['Statement on Contracts For Sept. 30, 2016', null],
    ];
    for (const [title, want] of cases) assert.equal(contractsTitleDate(title), want, title);
  });

  test('items: CDATA and entities, relative links, a repeated link once, Atom entries, CRLF', () => {
    const feedUrl = 'https://www.war.gov/DesktopModules/ArticleCS/RSS.ashx?ContentType=400&Site=945&max=10';
    const rss = buildFeed([
      releaseEntry('2026-11-25', 'https://www.war.gov/News/Contracts/Contract/Article/4343860/'),
      {
        title: 'Secretary &amp; Deputy Statement',
        link: 'https://www.war.gov/News/Releases/Release/Article/1/',
      },
      releaseEntry('2026-11-24', '/News/Contracts/Contract/Article/4342001/'),
      releaseEntry('2026-11-24', '/News/Contracts/Contract/Article/4342001/'),
      { title: 'Contracts For Nov. 21, 2026', link: 'javascript:alert(1)' },
      { title: 'Contracts For Nov. 20, 2026', link: `https://www.war.gov/${'x'.repeat(3000)}` },
    ]);
    assert.ok(rss.includes('\r\n') && rss.includes('<![CDATA['));
    assert.deepEqual(parseContractsFeed(rss, feedUrl), [
      {
        title: 'Contracts For Nov. 25, 2026',
        url: 'https://www.war.gov/News/Contracts/Contract/Article/4343860/',
        articleId: '4343860',
        date: '2026-11-25',
        publishedAt: '2026-11-25T21:00:00.000Z',
      },
      {
        title: 'Contracts For Nov. 24, 2026',
        url: 'https://www.war.gov/News/Contracts/Contract/Article/4342001/',
        articleId: '4342001',
        date: '2026-11-24',
        publishedAt: '2026-11-24T21:00:00.000Z',
      },
    ]);
    const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">Contracts For Oct. 1, 2025</title>
      <link rel="alternate" href="https://www.defense.gov/News/Contracts/Contract/Article/4300000/"/><updated>2025-10-01T21:02:00Z</updated></entry></feed>`;
    assert.deepEqual(
      parseContractsFeed(atom, feedUrl).map((i) => [i.date, i.articleId, i.publishedAt]),
      [['2025-10-01', '4300000', '2025-10-01T21:02:00.000Z']],
    );
    assert.equal(articleIdOf('https://www.war.gov/News/Contracts/'), '/News/Contracts/');
    assert.deepEqual(parseContractsFeed('<html>not a feed</html>', feedUrl), []);
    // Hostile: many unclosed items are read in linear time.
    const started = Date.now();
    assert.deepEqual(parseContractsFeed('<rss><item><title>x'.repeat(50_000), feedUrl), []);
    assert.ok(Date.now() - started < 10_000, 'no quadratic scan');
  });
});

describe('articles', () => {
  test('odd markup: body among classes, nested spans, &nbsp;, <br>, CRLF, tables and footnotes', () => {
    const html = [
      '<html><head><title>Contracts For Sept. 30, 2016 &gt; U.S. Department of War</title></head><body>',
      '<table><tr><td>NAVY</td><td>Menu</td></tr></table>',
      '<div id="x" class="ar body inner" data-x=\'1\'>\r\n',
      '<p style="text-align: center;"><span><strong>DEFENSE<br>LOGISTICS AGENCY</strong></span></p>\r\n',
      '<p><span style="font-size:12pt"><span>Acme&nbsp;Corp.*,</span> Reston,\r\nVirginia, was awarded a $9,000,000 contract (SPE4A1-16-D-0001).</span></p>',
      '<p>AIR FORCE</p><p>Beta LLC, Dayton, Ohio, has been awarded $8,500,000.<br></p>',
      '<p>*Small business</p>',
      '</div><div class="share">ARMY</div></body></html>',
    ].join('');
    const release = releaseFromHtml(html);
    assert.deepEqual(release.dates, ['2016-09-30']);
    assert.deepEqual(
      splitAnnouncementPage('2016-09-30', release.text).map((p) => [p.section, p.text]),
      [
        [
          'DEFENSE LOGISTICS AGENCY',
          'Acme Corp.*, Reston, Virginia, was awarded a $9,000,000 contract (SPE4A1-16-D-0001).',
        ],
        ['AIR FORCE', 'Beta LLC, Dayton, Ohio, has been awarded $8,500,000.'],
        ['AIR FORCE', '*Small business'],
      ],
    );
  });

  const SHARED =
    process.env.DOD_ANNOUNCEMENTS_CSV ??
    path.resolve('../shared/data/announcements/dod_contract_announcements_2014-08_2019-03_paragraphs.csv');
  test("every day of the shared 2014–2019 file as the site's article reads back to the same events as the file", {
    skip: existsSync(SHARED) ? false : `no ${SHARED} (set DOD_ANNOUNCEMENTS_CSV)`,
  }, () => {
    const days = paragraphsByDay(readFileSync(SHARED, 'utf8'));
    let same = 0;
    for (const [date, want] of days) {
      const release = articleRelease(date, buildArticle(date, want));
      assert.deepEqual(release.dates, [date], date);
      const got = release.paragraphs;
      assert.deepEqual(
        got.map((p) => [p.section, normalize(p.text)]),
        want.map((p) => [p.section, normalize(p.text)]),
        date,
      );
      // The events are the parser's reading of each paragraph: the same reading, the same events.
      for (const [i, p] of got.entries())
        assert.deepEqual(parseParagraph(p.text), parseParagraph(want[i]?.text ?? ''), `${date} #${i + 1}`);
      // And the same ids, where the file numbers a day's paragraphs 1..n (all but the two days whose
      // file rows were rejected).
      if (want.every((p, i) => p.paragraphNo === i + 1)) {
        assert.deepEqual(
          got.map((p) => announcementId(p.date, p.paragraphNo)),
          want.map((p) => announcementId(date, p.paragraphNo)),
        );
        same += 1;
      }
    }
    assert.equal(days.size, 1104);
    assert.ok(same >= 1102, `${same} days with the same ids`);
  });
});

describe('articles: hostile text', () => {
  test('NULs are dropped; a paragraph longer than a file may hold is left out', () => {
    const long = `Acme Corp., Reston, Virginia, is awarded $9,000,000 ${'for parts '.repeat(2_500)}.`;
    const html = `<div class="body"><p>NAVY</p><p>Beta\u0000 LLC, Dayton, Ohio, is awarded $8,500,000.</p><p>${long}</p><p>*Small business</p></div>`;
    assert.deepEqual(
      articleRelease('2016-09-30', html).paragraphs.map((p) => [p.paragraphNo, p.text]),
      [
        [1, 'Beta LLC, Dayton, Ohio, is awarded $8,500,000.'],
        [2, '*Small business'],
      ],
    );
  });
});

describe('articles: breaks inside a sentence', () => {
  test('a <br> mid-sentence joins; after a full stop, a heading or a footnote it breaks', () => {
    const html =
      '<div class="body"><p><strong>NAVY</strong><br>Acme Corp., Reston,<br>Virginia, was awarded a $9,000,000 ' +
      'contract.<br><br>Beta LLC, Dayton,<br />\r\nOhio, has been awarded $8,500,000.<br>*Small business<br>Gamma Inc.</p></div>';
    assert.deepEqual(splitAnnouncementPage('2016-09-30', releaseFromHtml(html, { softBreaks: true }).text), [
      {
        date: '2016-09-30',
        section: 'NAVY',
        paragraphNo: 1,
        text: 'Acme Corp., Reston, Virginia, was awarded a $9,000,000 contract.',
      },
      {
        date: '2016-09-30',
        section: 'NAVY',
        paragraphNo: 2,
        text: 'Beta LLC, Dayton, Ohio, has been awarded $8,500,000.',
      },
      { date: '2016-09-30', section: 'NAVY', paragraphNo: 3, text: '*Small business' },
      { date: '2016-09-30', section: 'NAVY', paragraphNo: 4, text: 'Gamma Inc.' },
    ]);
    // Without it (the ?date= pages of dod-client.ts), every <br> is a line.
    assert.equal(splitAnnouncementPage('2016-09-30', releaseFromHtml(html).text).length, 6);
  });
});

describe('the reader: content types', () => {
  test('a feed or article sent without a content type is read; a PDF is refused', async () => {
    const date = '2026-11-25';
    const types = new Map<string, string | null>([
      ['/feed', null],
      ['/News/Contracts/Contract/Article/5/', 'application/octet-stream'],
    ]);
    const server = createServer((req, res) => {
      const type = types.get(req.url ?? '');
      if (type) res.setHeader('content-type', type);
      res.end(
        req.url === '/feed'
          ? buildFeed([releaseEntry(date, '/News/Contracts/Contract/Article/5/')])
          : buildArticle(date, [
              {
                date,
                section: 'NAVY',
                paragraphNo: 1,
                text: 'Acme Corp., Reston, Virginia, is awarded $9,000,000.',
              },
            ]),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const http = new DodHttp({ maxAttempts: 1, env: {} });
    try {
      const reader = new DodFeedReader(http, `${base}/feed`);
      const [item] = await reader.items();
      assert.equal(item?.date, date);
      const article = item ? await reader.article(item, null) : null;
      assert.equal(article?.status === 'ok' ? article.paragraphs.length : -1, 1);
      types.set('/News/Contracts/Contract/Article/5/', 'application/pdf');
      await assert.rejects(item ? reader.article(item, null) : Promise.resolve(), { code: 'content-type' });
    } finally {
      await http.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the HTTP client: proxy and User-Agent', () => {
  test('HTTPS_PROXY / HTTP_PROXY from the environment, or DOD_CONTRACTS_PROXY, carry the requests', async () => {
    // The site, and a proxy that tunnels (CONNECT) every request to it, whatever host it names.
    const seen: { via: string; path: string; agent: string | undefined }[] = [];
    let tunnelled = '';
    const site = createServer((req, res) => {
      seen.push({ via: tunnelled, path: req.url ?? '', agent: req.headers['user-agent'] });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<div class="body"><p>NAVY</p></div>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, client, head) => {
      tunnelled = req.url ?? '';
      const upstream = connect((site.address() as AddressInfo).port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const ask = { accept: 'text/html', kinds: ['html'] as const, what: 'page', about: 'test' };
    try {
      const fromEnv = new DodHttp({
        env: { HTTP_PROXY: proxyUrl },
        userAgent: 'market-intel (ops@example.com)',
      });
      const answer = await fromEnv.get('http://dod.invalid/News/Contracts/', ask);
      await fromEnv.close();
      assert.equal(answer.status, 'ok');
      const configured = new DodHttp({ proxyUrl, env: {} });
      await configured.get('http://dod.invalid/feed', ask);
      await configured.close();
      assert.deepEqual(seen, [
        { via: 'dod.invalid:80', path: '/News/Contracts/', agent: 'market-intel (ops@example.com)' },
        {
          via: 'dod.invalid:80',
          path: '/feed',
          agent: 'market-intel/0.1 (DoD contract announcements reader)',
        },
      ]);
      // NO_PROXY is honoured: a direct request to an unresolvable host fails instead.
      const bypass = new DodHttp({ env: { HTTP_PROXY: proxyUrl, NO_PROXY: 'dod.invalid' }, maxAttempts: 1 });
      await assert.rejects(bypass.get('http://dod.invalid/x', ask), { code: 'network' });
      await bypass.close();
      assert.equal(seen.length, 2);
    } finally {
      proxy.closeAllConnections();
      site.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await new Promise((resolve) => site.close(resolve));
    }
  });
});
