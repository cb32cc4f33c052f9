/**
 * The live site's shapes, for FakeDod (fake-dod.ts) to serve: the RSS 2.0 feed of contract releases
 * (`/DesktopModules/ArticleCS/RSS.ashx?ContentType=400&Site=945&max=10`: items titled "Contracts For
 * <Mon>. <D>, <YYYY>" linking to `/News/Contracts/Contract/Article/<id>/`, pubDate ~17:00 New York,
 * an often empty description, CDATA and character references), and article pages as the site renders
 * them: the release in a `<div class="body …">` among other classes, centred `<strong>` service headings,
 * one `<p>` per paragraph with nested spans, `&nbsp;` and `<br>`s, footnotes, Windows line endings, and
 * the site's furniture (a layout table, related links naming other days).
 */
import type { AnnouncementParagraph } from '../../src/sources/announcements.ts';
import { titleDate } from './fake-dod.ts';

export interface FeedEntry {
  title: string;
  link: string;
  pubDate?: string;
  description?: string;
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A release's feed entry: "Contracts For Sept. 30, 2016", posted at 17:00 New York (22:00 or 21:00 UTC). */
export function releaseEntry(date: string, link: string): FeedEntry {
  const posted = new Date(`${date}T21:00:00Z`);
  return { title: `Contracts For ${titleDate(date)}`, link, pubDate: posted.toUTCString() };
}

/** The feed: entries alternate plain, entity-escaped and CDATA titles; CRLF line ends. */
export function buildFeed(entries: FeedEntry[]): string {
  const items = entries.map((e, i) => {
    const title = i % 3 === 2 ? `<![CDATA[${e.title}]]>` : escapeXml(e.title).replace(/ For /, ' For&#32;');
    const description =
      e.description === undefined
        ? '<description />'
        : `<description><![CDATA[${e.description}]]></description>`;
    return [
      '    <item>',
      `      <guid isPermaLink="false">${escapeXml(e.link)}</guid>`,
      `      <link>${escapeXml(e.link)}</link>`,
      '      <category>Contracts</category>',
      `      <title>${title}</title>`,
      `      ${description}`,
      e.pubDate ? `      <pubDate>${e.pubDate}</pubDate>` : '',
      '      <dc:creator />',
      '    </item>',
    ]
      .filter(Boolean)
      .join('\r\n');
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<rss xmlns:a10="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">',
    '  <channel>',
    '    <title>U.S. Department of War &#8212; Contracts</title>',
    '    <link>https://www.war.gov/News/Contracts/</link>',
    '    <description>Contracts valued at $7.5 million or more</description>',
    ...items,
    '  </channel>',
    '</rss>',
    '',
  ].join('\r\n');
}

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\u2019/g, '&rsquo;')
    .replace(/ {2}/g, ' &nbsp;');

/** A paragraph as the site's editor writes it: spans around runs, a no-break space, a wrapped line. */
function paragraphMarkup(text: string, n: number): string {
  const html = escapeHtml(text);
  if (n % 4 === 1) {
    const cut = html.indexOf(', ');
    if (cut > 0)
      return `<span style="font-size: 12pt;"><span>${html.slice(0, cut)}</span>,&nbsp;${html.slice(cut + 2)}</span>`;
  }
  if (n % 4 === 2) return html.replace(/\. /, '.\r\n        ');
  if (n % 4 === 3 && html.startsWith('*')) return `<em>${html}</em>`;
  return html;
}

export interface ArticleOptions {
  /** Extra <p>s after the release (footnotes such as "*Small business"), each read as a paragraph. */
  footnotes?: string[];
}

/** The body of a release: a centred <strong> heading per section, a <p> per paragraph. */
export function articleBody(paragraphs: AnnouncementParagraph[], options: ArticleOptions = {}): string {
  const out: string[] = [];
  let section: string | null = null;
  paragraphs.forEach((p, i) => {
    if (p.section !== section && p.section !== '') {
      out.push(
        i % 2 === 0
          ? `<p style="text-align: center;"><strong>${escapeHtml(p.section)}</strong></p>`
          : `<p style="text-align:center"><span><strong><span style="font-size:12pt">${escapeHtml(p.section)}</span></strong></span><br></p>`,
      );
    }
    section = p.section;
    out.push(`<p>${paragraphMarkup(p.text, i)}</p>`);
  });
  for (const note of options.footnotes ?? []) out.push(`<p>${escapeHtml(note)}</p>`);
  return out.join('\r\n');
}

/** The article page of `date` (its release's paragraphs, in order), as the site renders it. */
export function buildArticle(
  date: string,
  paragraphs: AnnouncementParagraph[],
  options: ArticleOptions = {},
): string {
  const title = `Contracts For ${titleDate(date)}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en-US">',
    `<head><meta charset="utf-8"><title>\r\n\t${title} &gt; U.S. Department of War &gt; Contract\r\n</title>`,
    '<script>var dnn = { "body": "<div class=\\"body\\"><p>NAVY</p></div>" };</script></head>',
    '<body id="Body">',
    '<form method="post" action="/News/Contracts/Contract/Article/1/" id="Form"><input type="hidden" name="__VIEWSTATE" value="x"></form>',
    '<table class="layout" role="presentation"><tr><td><a href="/">Home</a></td><td>NEWS</td></tr></table>',
    '<div class="dnnpane"><div class="container-fluid adetail">',
    `<h1 class="maintitle">${title}</h1>`,
    `<p class="date">${titleDate(date)}</p>`,
    '<div class="ad-meta"><span class="share">Share</span></div>',
    '<div class="body ar-body" data-gen="1" itemprop="">',
    articleBody(paragraphs, options),
    '</div>',
    '<div class="related"><h3 class="title">Related</h3><ul>',
    `<li><a href="/News/Contracts/Contract/Article/2/">Contracts For ${titleDate(shift(date, -1))}</a></li>`,
    '</ul></div>',
    '</div></div>',
    '<footer><p>AIR FORCE</p></footer>',
    '</body></html>',
    '',
  ].join('\r\n');
}

function shift(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
