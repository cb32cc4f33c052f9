/**
 * The documentation holds together: the README stays a five-minute read that starts with the two
 * commands, every relative link between the Markdown documents reaches a file and, with `#anchor`, a
 * heading there (GitHub's slugs), and every setting `loadConfig` reads is in docs/CONFIGURATION.md.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README_MAX_BYTES = 15 * 1024;

const DOCUMENTS = [
  'README.md',
  'sdk/README.md',
  'data/SOURCES.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

/** The text outside fenced code blocks and inline code spans, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id ?? '');
  return found;
}

/** Relative link targets of a document: `[text](target)`, web and mail addresses left out. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of relativeLinks(read(file))) {
    const [pathPart = '', anchor] = target.split('#');
    const resolved = pathPart ? path.normalize(path.join(path.dirname(file), pathPart)) : file;
    if (!existsSync(path.join(ROOT, resolved))) {
      broken.push(`${file}: ${target} (no file ${resolved})`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(decodeURIComponent(anchor)))
      broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
  }
  return broken;
}

describe('documentation', () => {
  test(`the README is at most ${README_MAX_BYTES} bytes and starts with the two commands`, () => {
    const readme = read('README.md');
    assert.ok(
      Buffer.byteLength(readme) <= README_MAX_BYTES,
      `README.md is ${Buffer.byteLength(readme)} bytes`,
    );
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    assert.match(firstBlock, /^npm install && npm start\s/m);
    assert.match(firstBlock, /^npm test\s/m);
    assert.ok(
      readme.indexOf('```sh') < readme.indexOf('\n## '),
      'the commands come before the first section',
    );
  });

  test('the README keeps cluster mode and the live announcements feed documented', () => {
    const readme = read('README.md');
    for (const needed of [
      'DATABASE_URL',
      'REDIS_URL',
      'serve --no-worker',
      'market-intel worker',
      'ANNOUNCEMENTS_LIVE',
      'DOD_CONTRACTS_FEED_URL',
    ])
      assert.ok(readme.includes(needed), needed);
  });

  test('every relative link reaches its file and heading', () => {
    assert.deepEqual(DOCUMENTS.flatMap(brokenLinks), []);
  });

  test('the link check reads headings and links as GitHub does', () => {
    assert.ok(anchors('## Every core: `serve --workers N`\n').has('every-core-serve---workers-n'));
    assert.ok(anchors('## Plans and tiers\n## Plans and tiers\n').has('plans-and-tiers-1'));
    assert.deepEqual(relativeLinks('[a](docs/API.md#x) `[b](c.md)` [d](https://example.com)'), [
      'docs/API.md#x',
    ]);
    assert.ok(!anchors(read('docs/API.md')).has('no-such-heading'));
  });

  test('every setting loadConfig reads is in docs/CONFIGURATION.md', () => {
    const settings = [...read('src/config.ts').matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g)].map(
      (m) => m[1] ?? '',
    );
    assert.ok(settings.length >= 25, `found ${settings.length} settings`);
    const table = read('docs/CONFIGURATION.md');
    assert.deepEqual(
      [...new Set(settings)].filter((name) => !table.includes(`| \`${name}\` |`)),
      [],
    );
  });
});
