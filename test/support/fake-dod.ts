/**
 * A local stand-in for the DoD daily contracts pages, `GET /News/Contracts/?date=YYYY-MM-DD`, and the
 * page builder that makes those pages from real announcement paragraphs: the sections as bold or heading
 * lines in several of the styles the site has used, the paragraphs as <p>s with character references,
 * wrapped source lines and inline markup, inside the site's furniture (head, scripts, styles, navigation,
 * breadcrumbs, sidebars, footer). A day can also be served through a redirect to an article address,
 * and the server can be told to fail (a status, a hang, a stalled body, a dropped connection, an
 * oversize body, another content type, a redirect). It records every request.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AnnouncementParagraph, parseAnnouncementsCsv } from '../../src/sources/announcements.ts';

// ---------------------------------------------------------------------------------------------
// Pages

export type Layout =
  /** The real site's article page: the release in `<div class="body">`, no itemprop, no <article>. */
  | 'defense-gov'
  /** An <article> with the release in `itemprop="articleBody"`, inside <main>. */
  | 'article'
  /** The release alone: <p>s, no <html>, <body> or container. */
  | 'fragment';

export type Encoding =
  /** Named references for &, <, >, quotes and dashes; numeric for the rest of non-ASCII. */
  | 'named'
  /** Every non-ASCII character and & as a numeric reference, decimal or hexadecimal. */
  | 'numeric'
  /** UTF-8 as is, only &, < and > escaped; double spaces as U+00A0. */
  | 'utf8';

export interface PageStyle {
  layout: Layout;
  encoding: Encoding;
}

const AP_MONTHS = [
  'Jan.',
  'Feb.',
  'March',
  'April',
  'May',
  'June',
  'July',
  'Aug.',
  'Sept.',
  'Oct.',
  'Nov.',
  'Dec.',
];

/** `2015-12-31` → `Dec. 31, 2015`, as the site titles its pages. */
export function titleDate(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  return `${AP_MONTHS[(month ?? 1) - 1]} ${day}, ${year}`;
}

const NAMED: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '\u2019': '&rsquo;',
  '\u2018': '&lsquo;',
  '\u201c': '&ldquo;',
  '\u201d': '&rdquo;',
  '\u2013': '&ndash;',
  '\u2014': '&mdash;',
  '\u00a0': '&nbsp;',
  '\u00e9': '&eacute;',
  '\u00ae': '&reg;',
  '\u00a7': '&sect;',
};

function encode(text: string, encoding: Encoding): string {
  let out = '';
  let n = 0;
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    if (encoding === 'utf8') out += c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c;
    else if (encoding === 'named') out += NAMED[c] ?? (code > 126 ? `&#${code};` : c);
    else if (code > 126 || c === '&' || c === '<')
      // Alternate decimal and hexadecimal, so both are read.
      out += n++ % 2 === 0 ? `&#${code};` : `&#x${code.toString(16).toUpperCase()};`;
    else out += c;
  }
  // A double space is one space in HTML: the site writes the second as a no-break space.
  return out.replace(/ {2}/g, encoding === 'utf8' ? ' \u00a0' : ' &nbsp;');
}

/** Source lines of at most ~100 characters, broken at spaces, as editors save them. */
function wrap(html: string, indent: string): string {
  const words = html.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + word.length > 100) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${indent}`);
}

const PIID = /\b[A-Z][A-Z0-9]{5}-\d{2}-[A-Z]-[A-Z0-9]{4}\b/;

function paragraphHtml(text: string, encoding: Encoding): string {
  let html = encode(text, encoding);
  // Inline markup never breaks a paragraph.
  html = html.replace(PIID, (piid) => `<a href="https://www.fpds.gov/?q=${piid}" class="piid">${piid}</a>`);
  if (html.startsWith('*')) html = `<em>${html}</em>`;
  return wrap(html, '    ');
}

/**
 * The sections' headings in turn: a centred bold paragraph (a two-line one for a "… AGENCY"), an <h3>,
 * a bold line with the first paragraph after a <br>, and a bold run with the first paragraph on the
 * same line.
 */
function releaseHtml(paragraphs: AnnouncementParagraph[], encoding: Encoding): string {
  const out: string[] = [];
  let section: string | null = null;
  let style = 0;
  for (const p of paragraphs) {
    const body = paragraphHtml(p.text, encoding);
    if (p.section !== section && p.section !== '') {
      section = p.section;
      const heading = encode(p.section, encoding);
      const kind = style++ % 4;
      if (kind === 0) {
        const split = / AGENCY$/.test(p.section) ? heading.replace(/ AGENCY$/, '<br />AGENCY') : heading;
        out.push(`<p style="text-align: center;"><strong>${split}</strong></p>`);
      } else if (kind === 1) {
        out.push(`<h3 class="section">${heading}</h3>`);
      } else if (kind === 2) {
        out.push(`<p><strong>${heading}</strong><br />\n    ${body}</p>`);
        continue;
      } else {
        out.push(`<P><B>${heading}</B>&nbsp;${body}</P>`);
        continue;
      }
    }
    section = p.section;
    out.push(`<p>${body}</p>`);
  }
  return out.map((line) => `  ${line}`).join('\n');
}

const SCRIPT = `<script type="text/javascript">
  // Markup in strings is not markup: "</p><p>NAVY</p>" must not become a section.
  var dataLayer = [{ pageType: 'contract', snippet: "<p><strong>ARMY</strong></p>", close: '</div>' }];
  if (dataLayer.length < 2 && dataLayer.length > 0) { document.documentElement.className += ' js'; }
</script>`;

const STYLE = `<style>
  p.title > a { color: #112e51; } /* <p>AIR FORCE</p> */
  .body p { margin: 0 0 1em; }
</style>`;

const NAV = `<header class="site-header">
  <a class="logo" href="/"><img src="/logo.png" alt="U.S. Department of Defense"></a>
  <nav class="main-nav" aria-label="Main">
    <ul>
      <li><a href="/News/">NEWS</a></li>
      <li><a href="/Spotlights/">SPOTLIGHTS</a></li>
      <li class="dropdown"><a href="/About/">ABOUT</a>
        <ul><li><a href="/About/Army/">ARMY</a></li><li><a href="/About/Navy/">NAVY</a></li></ul>
      </li>
    </ul>
    <form class="search" action="/Search/"><input type="text" name="q" placeholder="Search"><button type="submit">Search</button></form>
  </nav>
</header>`;

const SIDEBAR = (date: string) => `<aside class="related" aria-label="Recent contracts">
    <h2>RECENT CONTRACTS</h2>
    <ul>
      <li><a href="/News/Contracts/Contract/Article/1/">Contracts For ${titleDate(shiftDay(date, -1))}</a></li>
      <li><a href="/News/Contracts/Contract/Article/2/">Contracts For ${titleDate(shiftDay(date, -2))}</a></li>
    </ul>
  </aside>`;

const FOOTER = `<footer class="site-footer">
  <p>DEFENSE.GOV &#8212; Official website of the U.S. Department of Defense</p>
  <ul><li><a href="/Resources/Privacy/">Privacy &amp; Security</a></li><li>AIR FORCE</li></ul>
</footer>`;

function shiftDay(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** A day's page, built from its paragraphs (in order, with their sections). */
export function buildDayPage(date: string, paragraphs: AnnouncementParagraph[], style: PageStyle): string {
  const title = `Contracts For ${titleDate(date)}`;
  const release = releaseHtml(paragraphs, style.encoding);
  if (style.layout === 'fragment') {
    return [
      '<!-- release text, as sent to subscribers -->',
      `<p style="text-align: center;"><strong>CONTRACTS</strong></p>`,
      release,
      `<p style="text-align: center;">-END-</p>`,
      `<script>window.released = true;</script>`,
      '',
    ].join('\n');
  }
  const head = `<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} &gt; U.S. Department of Defense &gt; Contract</title>
<meta property="og:title" content="${title}">
<link rel="stylesheet" href="/Portals/1/site.css?cdv=1234">
${STYLE}
${SCRIPT}
</head>`;
  const body =
    style.layout === 'article'
      ? `<main id="content">
  <article class="article" itemscope itemtype="https://schema.org/NewsArticle">
  <h1 class="maintitle" itemprop="headline">${title}</h1>
  <p class="info"><time datetime="${date}">${titleDate(date)}</time> | <a href="#print" title="Print > page">Print</a></p>
  <div class="release" itemprop="articleBody">
${release}
  </div>
  <div class="share">Share: <a href="https://www.facebook.com/sharer/sharer.php">Facebook</a> <a href="https://x.com/intent/post">X</a></div>
  </article>
  ${SIDEBAR(date)}
</main>`
      : `<div class="container">
  <div class="breadcrumbs"><a href="/">Home</a> &gt; <a href="/News/">News</a> &gt; Contracts</div>
  <div class="article-title"><h1 class="maintitle">${title}</h1></div>
  <div class="content content-wrap">
  <div class="body">
${release}
  </div>
  ${SIDEBAR(date)}
  </div>
</div>`;
  return `${head}
<body class="page-contract">
<!-- Google Tag Manager (noscript) -->
<noscript><iframe src="https://www.googletagmanager.com/ns.html?id=GTM-X" height="0" width="0" title="Google Tag Manager"></iframe></noscript>
${NAV}
${body}
${FOOTER}
<script src="/Portals/_default/Skins/app.js?cdv=1234"></script>
</body>
</html>
`;
}

// ---------------------------------------------------------------------------------------------
// Fixture pages: real paragraphs of three days, copied from the shared announcements file

const PAGES = new URL('../fixtures/announcements/pages/', import.meta.url);

export const FIXTURE_DAYS: { date: string; style: PageStyle }[] = [
  { date: '2015-12-31', style: { layout: 'article', encoding: 'named' } },
  { date: '2017-01-06', style: { layout: 'fragment', encoding: 'numeric' } },
  { date: '2018-06-15', style: { layout: 'defense-gov', encoding: 'utf8' } },
];

/** The fixture days' paragraphs, from pages/paragraphs.csv (rows of the shared file, unchanged). */
export function fixtureParagraphs(): Map<string, AnnouncementParagraph[]> {
  return paragraphsByDay(readFileSync(new URL('paragraphs.csv', PAGES), 'utf8'));
}

export function paragraphsByDay(csv: string): Map<string, AnnouncementParagraph[]> {
  const byDay = new Map<string, AnnouncementParagraph[]>();
  for (const p of parseAnnouncementsCsv(csv).paragraphs) {
    const day = byDay.get(p.date);
    if (day) day.push(p);
    else byDay.set(p.date, [p]);
  }
  return byDay;
}

export function fixturePage(date: string): string {
  return readFileSync(new URL(`${date}.html`, PAGES), 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Server

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string }
  /** Accept the request and never answer. */
  | { kind: 'hang' }
  /** Send the headers and part of the body, then nothing. */
  | { kind: 'stall' }
  | { kind: 'drop' }
  /** A 200 text/html body of `bytes`, with or without a Content-Length. */
  | { kind: 'oversize'; bytes: number; declared: boolean }
  | { kind: 'content-type'; type: string }
  | { kind: 'redirect'; location: string }
  /** Answer as usual after `ms`. */
  | { kind: 'slow'; ms: number };

interface Page {
  body: string | Buffer;
  contentType: string;
  redirect: boolean;
  article: number;
}

export const CONTRACTS_PATH = '/News/Contracts/';
export const FEED_PATH = '/DesktopModules/ArticleCS/RSS.ashx';
const ARTICLE_PATH = /^\/News\/Contracts\/Contract\/Article\/(\d+)\/$/;

export class FakeDod {
  readonly requests: {
    path: string;
    date: string | null;
    ifNoneMatch: string | null;
    userAgent: string | null;
  }[] = [];
  private readonly pages = new Map<string, Page>();
  /** The feed's body (RSS), when set; served at FEED_PATH. */
  feed: string | null = null;
  /** Send ETag and Last-Modified, and answer conditional requests with 304. */
  validators = true;
  /** Faults of single articles, by article id (every request to it until cleared). */
  readonly articleFaults = new Map<number, Fault>();
  private readonly once: Fault[] = [];
  private always: Fault | null = null;
  private nextArticle = 1_400_000;

  private constructor(
    private readonly server: Server,
    /** The base URL to give the client: `http://127.0.0.1:<port>/News/Contracts/`. */
    readonly url: string,
  ) {}

  static async start(): Promise<FakeDod> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeDod(server, `http://127.0.0.1:${port}${CONTRACTS_PATH}`);
    server.on('request', (req, res) => fake.handle(req, res));
    return fake;
  }

  /** Serves `body` for `date`; through a 302 to an article address when `redirect`. */
  setPage(
    date: string,
    body: string | Buffer,
    options: { contentType?: string; redirect?: boolean } = {},
  ): { articleUrl: string } {
    const article = this.nextArticle++;
    this.pages.set(date, {
      body,
      contentType: options.contentType ?? 'text/html; charset=utf-8',
      redirect: options.redirect ?? false,
      article,
    });
    return { articleUrl: new URL(`Contract/Article/${article}/`, this.url).toString() };
  }

  /** The feed's address on this server (`?ContentType=400&Site=945&max=10`, as the real one). */
  get feedUrl(): string {
    return new URL(`${FEED_PATH}?ContentType=400&Site=945&max=10`, this.url).toString();
  }

  /** The article address of `date`'s page. */
  articleUrl(date: string): string {
    const page = this.pages.get(date);
    if (!page) throw new Error(`no page for ${date}`);
    return new URL(`Contract/Article/${page.article}/`, this.url).toString();
  }

  /** Replaces `date`'s page body, keeping its article address (the site amends pages in place). */
  amendPage(date: string, body: string): void {
    const page = this.pages.get(date);
    if (!page) throw new Error(`no page for ${date}`);
    page.body = body;
  }

  /** The next `times` requests meet `fault`. */
  failNext(times: number, fault: Fault): void {
    for (let i = 0; i < times; i++) this.once.push(fault);
  }

  /** Every request meets `fault` until `heal()`. */
  failAlways(fault: Fault): void {
    this.always = fault;
  }

  heal(): void {
    this.once.length = 0;
    this.always = null;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const date = url.searchParams.get('date');
    this.requests.push({
      path: `${url.pathname}${url.search}`,
      date,
      ifNoneMatch: req.headers['if-none-match'] ?? null,
      userAgent: req.headers['user-agent'] ?? null,
    });
    const article = ARTICLE_PATH.exec(url.pathname);
    const fault = this.always ?? this.once.shift() ?? this.articleFaults.get(Number(article?.[1]));
    if (fault?.kind === 'slow') {
      setTimeout(() => this.answer(req, res, url, date), fault.ms);
      return;
    }
    if (fault) {
      applyFault(res, fault);
      return;
    }
    this.answer(req, res, url, date);
  }

  private answer(req: IncomingMessage, res: ServerResponse, url: URL, date: string | null): void {
    if (url.pathname === FEED_PATH && this.feed !== null) {
      send(res, 200, this.feed, 'application/rss+xml; charset=utf-8');
      return;
    }
    if (req.method !== 'GET') {
      sendHtml(res, 405, '<p>Method not allowed</p>');
      return;
    }
    if (url.pathname === CONTRACTS_PATH && date) {
      const page = this.pages.get(date);
      if (!page) {
        sendHtml(res, 404, '<h1>404 - Page Not Found</h1>');
        return;
      }
      if (page.redirect) {
        res.writeHead(302, { location: `${CONTRACTS_PATH}Contract/Article/${page.article}/` });
        res.end();
        return;
      }
      send(res, 200, page.body, page.contentType);
      return;
    }
    const article = ARTICLE_PATH.exec(url.pathname);
    const page = article ? [...this.pages.values()].find((p) => p.article === Number(article[1])) : undefined;
    if (page && this.validators) {
      const etag = `"${createHash('sha1').update(page.body).digest('hex')}"`;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      res.setHeader('etag', etag);
      res.setHeader('last-modified', 'Fri, 27 Nov 2026 22:01:00 GMT');
    }
    if (page) {
      send(res, 200, page.body, page.contentType);
      return;
    }
    sendHtml(res, 404, '<h1>404 - Page Not Found</h1>');
  }
}

function send(res: ServerResponse, status: number, body: string | Buffer, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendHtml(res: ServerResponse, status: number, body: string): void {
  send(res, status, `<!DOCTYPE html><html><body>${body}</body></html>`, 'text/html; charset=utf-8');
}

function applyFault(res: ServerResponse, fault: Fault): void {
  switch (fault.kind) {
    case 'hang':
    case 'slow':
      return;
    case 'drop':
      res.socket?.destroy();
      return;
    case 'stall':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': 100_000 });
      res.write('<!DOCTYPE html><html><body><div class="body"><p>NAVY</p>');
      return;
    case 'redirect':
      res.writeHead(302, { location: fault.location });
      res.end();
      return;
    case 'content-type':
      send(res, 200, '%PDF-1.4 contracts', fault.type);
      return;
    case 'oversize': {
      const headers: Record<string, string | number> = { 'content-type': 'text/html; charset=utf-8' };
      if (fault.declared) headers['content-length'] = fault.bytes;
      res.writeHead(200, headers);
      const chunk = `<p>${'x'.repeat(65_529)}</p>\n`;
      let left = fault.bytes;
      const pump = (): void => {
        while (left > 0) {
          const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
          left -= piece.length;
          if (!res.write(piece)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
      return;
    }
    case 'status': {
      const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
      if (fault.retryAfter) headers['retry-after'] = fault.retryAfter;
      res.writeHead(fault.status, headers);
      res.end(`<html><body><h1>${fault.status}</h1></body></html>`);
      return;
    }
  }
}
