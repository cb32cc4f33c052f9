/**
 * Rebuilds test/fixtures/announcements/pages/: the rows of the fixture days (FIXTURE_DAYS in
 * test/support/fake-dod.ts) copied unchanged from the shared announcements file into paragraphs.csv,
 * and one HTML page a day built from them by buildDayPage.
 *
 *   node --import tsx scripts/build-dod-fixture-pages.ts [--shared FILE]
 *
 * Without --shared, paragraphs.csv is kept and only the pages are rebuilt.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildDayPage, FIXTURE_DAYS, fixtureParagraphs } from '../test/support/fake-dod.ts';

const PAGES = new URL('../test/fixtures/announcements/pages/', import.meta.url);
const { values } = parseArgs({ options: { shared: { type: 'string' } } });

if (values.shared) {
  const lines = readFileSync(values.shared, 'utf8').split('\n');
  const days = new Set(FIXTURE_DAYS.map((d) => d.date));
  // One row a line in that file (no paragraph holds a line break), so rows are cut by their first field.
  const rows = lines.slice(1).filter((line) => days.has(line.slice(0, 10)));
  writeFileSync(new URL('paragraphs.csv', PAGES), `${[lines[0], ...rows].join('\n')}\n`);
}
const byDay = fixtureParagraphs();
for (const { date, style } of FIXTURE_DAYS) {
  const paragraphs = byDay.get(date);
  if (!paragraphs) throw new Error(`no paragraphs for ${date} in paragraphs.csv`);
  writeFileSync(new URL(`${date}.html`, PAGES), buildDayPage(date, paragraphs, style));
  process.stdout.write(`${date}: ${paragraphs.length} paragraphs, ${style.layout}, ${style.encoding}\n`);
}
