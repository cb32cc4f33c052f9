/**
 * HTML → plain text, without a DOM: a linear tokenizer (tags with quoted attributes, comments, raw-text
 * elements such as <script> and <style>), character references as the HTML standard decodes them, and a
 * converter that puts every block element on its own line and drops what is not content (scripts,
 * styles, navigation, headers, footers, forms). It is made for press-release pages, where the text sits
 * in <p>s, not for laying out arbitrary documents.
 */

export type Token =
  | { type: 'text'; text: string }
  | { type: 'start'; name: string; attrs: Record<string, string>; selfClosing: boolean }
  | { type: 'end'; name: string };

/** Elements whose content is not markup: read up to their end tag as one text token. */
const RAW_TEXT = new Set([
  'script',
  'style',
  'title',
  'textarea',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
]);

export const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Tokens of a document, in order. Comments, doctypes and processing instructions are dropped. */
export function tokenize(html: string): Token[] {
  const tokens: Token[] = [];
  const length = html.length;
  let i = 0;
  const pushText = (text: string) => {
    if (!text) return;
    const last = tokens[tokens.length - 1];
    if (last?.type === 'text') last.text += text;
    else tokens.push({ type: 'text', text });
  };
  while (i < length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      pushText(html.slice(i));
      break;
    }
    pushText(html.slice(i, lt));
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? length : end + 3;
    } else if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      const end = html.indexOf('>', lt + 2);
      i = end < 0 ? length : end + 1;
    } else if (next === 0x2f /* / */ && isLetter(html.charCodeAt(lt + 2))) {
      const nameEnd = scanName(html, lt + 2);
      const end = html.indexOf('>', nameEnd);
      tokens.push({ type: 'end', name: html.slice(lt + 2, nameEnd).toLowerCase() });
      i = end < 0 ? length : end + 1;
    } else if (isLetter(next)) {
      const nameEnd = scanName(html, lt + 1);
      const name = html.slice(lt + 1, nameEnd).toLowerCase();
      const tag = scanAttributes(html, nameEnd);
      tokens.push({ type: 'start', name, attrs: tag.attrs, selfClosing: tag.selfClosing });
      i = tag.end;
      if (RAW_TEXT.has(name) && !tag.selfClosing) {
        const close = new RegExp(`</${name}(?=[\\s/>]|$)`, 'gi');
        close.lastIndex = i;
        const found = close.exec(html);
        const stop = found ? found.index : length;
        if (stop > i) tokens.push({ type: 'text', text: html.slice(i, stop) });
        if (found) {
          const end = html.indexOf('>', stop);
          tokens.push({ type: 'end', name });
          i = end < 0 ? length : end + 1;
        } else {
          i = length;
        }
      }
    } else {
      pushText('<');
      i = lt + 1;
    }
  }
  return tokens;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function scanName(html: string, from: number): number {
  let i = from;
  while (i < html.length && !/[\s/>]/.test(html[i] as string)) i++;
  return i;
}

function scanAttributes(
  html: string,
  from: number,
): { attrs: Record<string, string>; selfClosing: boolean; end: number } {
  const attrs: Record<string, string> = {};
  let i = from;
  let selfClosing = false;
  const length = html.length;
  while (i < length) {
    const c = html[i] as string;
    if (c === '>') return { attrs, selfClosing, end: i + 1 };
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/') {
      selfClosing = html[i + 1] === '>';
      i++;
      continue;
    }
    selfClosing = false;
    let nameEnd = i + 1;
    while (nameEnd < length && !/[\s/>=]/.test(html[nameEnd] as string)) nameEnd++;
    const name = html.slice(i, nameEnd).toLowerCase();
    i = nameEnd;
    while (i < length && /\s/.test(html[i] as string)) i++;
    let value = '';
    if (html[i] === '=') {
      i++;
      while (i < length && /\s/.test(html[i] as string)) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        const stop = close < 0 ? length : close;
        value = html.slice(i + 1, stop);
        i = stop + 1;
      } else {
        const start = i;
        while (i < length && !/[\s>]/.test(html[i] as string)) i++;
        value = html.slice(start, i);
      }
    }
    if (!(name in attrs)) attrs[name] = decodeEntities(value);
  }
  return { attrs, selfClosing, end: length };
}

/**
 * For every start tag with a matching end tag, the end tag's index (per element name, innermost first;
 * an unclosed element has none).
 */
export function matchEnds(tokens: Token[]): Map<number, number> {
  const open = new Map<string, number[]>();
  const ends = new Map<number, number>();
  tokens.forEach((token, index) => {
    if (token.type === 'start') {
      if (token.selfClosing || VOID_ELEMENTS.has(token.name)) return;
      const stack = open.get(token.name);
      if (stack) stack.push(index);
      else open.set(token.name, [index]);
    } else if (token.type === 'end') {
      const start = open.get(token.name)?.pop();
      if (start !== undefined) ends.set(start, index);
    }
  });
  return ends;
}

// ---------------------------------------------------------------------------------------------
// Character references

/** HTML 4's Latin-1 names, U+00A0 to U+00FF in order. */
const LATIN1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml'.split(
    ' ',
  );

const NAMED: Record<string, number> = {
  ...Object.fromEntries(LATIN1.map((name, i) => [name, 0xa0 + i])),
  amp: 0x26,
  lt: 0x3c,
  gt: 0x3e,
  quot: 0x22,
  apos: 0x27,
  OElig: 0x152,
  oelig: 0x153,
  Scaron: 0x160,
  scaron: 0x161,
  Yuml: 0x178,
  fnof: 0x192,
  circ: 0x2c6,
  tilde: 0x2dc,
  ensp: 0x2002,
  emsp: 0x2003,
  thinsp: 0x2009,
  zwnj: 0x200c,
  zwj: 0x200d,
  lrm: 0x200e,
  rlm: 0x200f,
  hyphen: 0x2010,
  dash: 0x2010,
  ndash: 0x2013,
  mdash: 0x2014,
  lsquo: 0x2018,
  rsquo: 0x2019,
  sbquo: 0x201a,
  ldquo: 0x201c,
  rdquo: 0x201d,
  bdquo: 0x201e,
  dagger: 0x2020,
  Dagger: 0x2021,
  bull: 0x2022,
  hellip: 0x2026,
  permil: 0x2030,
  prime: 0x2032,
  Prime: 0x2033,
  lsaquo: 0x2039,
  rsaquo: 0x203a,
  oline: 0x203e,
  frasl: 0x2044,
  euro: 0x20ac,
  trade: 0x2122,
  minus: 0x2212,
};

/** Names a browser still decodes without the closing semicolon (`AT&amp T` is rare; `&nbsp` is not). */
const LEGACY = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp', 'copy', 'reg']);

/** What &#128;–&#159; mean on the web: Windows-1252, as the HTML standard says. */
const WINDOWS_1252: Record<number, number> = {
  128: 0x20ac,
  130: 0x201a,
  131: 0x192,
  132: 0x201e,
  133: 0x2026,
  134: 0x2020,
  135: 0x2021,
  136: 0x2c6,
  137: 0x2030,
  138: 0x160,
  139: 0x2039,
  140: 0x152,
  142: 0x17d,
  145: 0x2018,
  146: 0x2019,
  147: 0x201c,
  148: 0x201d,
  149: 0x2022,
  150: 0x2013,
  151: 0x2014,
  152: 0x2dc,
  153: 0x2122,
  154: 0x161,
  155: 0x203a,
  156: 0x153,
  158: 0x17e,
  159: 0x178,
};

const REFERENCE = /&(?:#([0-9]{1,10})|#[xX]([0-9a-fA-F]{1,8})|([A-Za-z][A-Za-z0-9]{0,31}))(;?)/g;

/**
 * Decodes character references: named ones (the HTML 4 set, plus a few HTML 5 names) and numeric ones,
 * decimal or hexadecimal. NUL, surrogates and numbers beyond Unicode become U+FFFD; 128–159 are read as
 * Windows-1252. An unknown name is left as written.
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, dec: string, hex: string, name: string, semi: string) => {
    if (name !== undefined) {
      const code = NAMED[name];
      if (code === undefined || (!semi && !LEGACY.has(name))) return whole;
      return String.fromCodePoint(code);
    }
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex, 16);
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
    return String.fromCodePoint(WINDOWS_1252[code] ?? code);
  });
}

// ---------------------------------------------------------------------------------------------
// Text

/** Elements that start and end a line. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** Elements dropped with everything inside them: not text, or the site's furniture around the text. */
export const SKIPPED = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'title',
  'textarea',
  'select',
  'button',
  'iframe',
  'object',
  'svg',
  'math',
  'canvas',
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'dialog',
]);

export interface TextOptions {
  /** Token range, end exclusive; the whole list by default. */
  from?: number;
  to?: number;
  /** From matchEnds(tokens); computed when absent. */
  ends?: Map<number, number>;
  /**
   * A <b>/<strong> at the start of a line whose text this accepts is put on a line of its own
   * (`<p><strong>NAVY</strong> Acme Corp., …`); otherwise it is inline, as any other inline element.
   */
  ownLine?: (text: string) => boolean;
  /**
   * A <br> after a line this accepts (its text so far) is a space, not a line break: an editor's break
   * inside a sentence (`Reston,<br>Virginia`).
   */
  softBreak?: (line: string) => boolean;
}

/**
 * The text of a token range: one line per block, inline whitespace collapsed to one space, character
 * references decoded, U+00A0 read as a space; empty lines dropped, lines trimmed.
 */
export function tokensToText(tokens: Token[], options: TextOptions = {}): string {
  const from = options.from ?? 0;
  const to = options.to ?? tokens.length;
  const ends = options.ends ?? matchEnds(tokens);
  const lines: string[] = [];
  let line = '';
  const flush = () => {
    const text = line.replace(/[\s\u00a0]+/g, ' ').trim();
    if (text) lines.push(text);
    line = '';
  };
  for (let i = from; i < to; i++) {
    const token = tokens[i] as Token;
    if (token.type === 'text') {
      line += decodeEntities(token.text.replace(/[ \t\n\r\f]+/g, ' '));
      continue;
    }
    const { name } = token;
    if (token.type === 'start') {
      const end = ends.get(i);
      if (SKIPPED.has(name)) {
        // An unclosed one is only its tag: better some furniture than losing the rest of the page.
        if (end !== undefined && end < to) i = end;
        continue;
      }
      if (name === 'br') {
        if (options.softBreak?.(line.replace(/[\s\u00a0]+/g, ' ').trim())) line += ' ';
        else flush();
        continue;
      }
      if (
        (name === 'b' || name === 'strong') &&
        options.ownLine &&
        end !== undefined &&
        end < to &&
        end - i <= 64 &&
        !line.replace(/[\s\u00a0]+/g, '')
      ) {
        const inner = tokensToText(tokens, { from: i + 1, to: end, ends }).replace(/\n/g, ' ');
        if (options.ownLine(inner)) {
          flush();
          line = inner;
          flush();
          i = end;
          continue;
        }
      }
    }
    if (BLOCK.has(name)) flush();
  }
  flush();
  return lines.join('\n');
}

/** The whole document as text. */
export function htmlToText(html: string, options: Omit<TextOptions, 'from' | 'to' | 'ends'> = {}): string {
  return tokensToText(tokenize(html), options);
}
