/**
 * The announcement parser against the hand-labelled paragraphs (test/fixtures/announcements/labels.jsonl):
 * accuracy per field, and with --errors the paragraphs it gets wrong for one field.
 *
 *   node --import tsx scripts/measure-announcements.ts [--errors FIELD]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  fieldMatches,
  type ParagraphLabel,
  type ParserField,
  parserAccuracy,
} from '../src/evaluation/announcement-parser-eval.ts';
import { parseParagraph } from '../src/sources/announcements.ts';

const { values } = parseArgs({ options: { errors: { type: 'string' } } });
const file = new URL('../test/fixtures/announcements/labels.jsonl', import.meta.url);
const labelled = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as { id: string; text: string; label: ParagraphLabel });
const pairs = labelled.map((row) => ({
  id: row.id,
  text: row.text,
  parsed: parseParagraph(row.text),
  label: row.label,
}));
console.log(`# Announcement parser: ${pairs.length} labelled paragraphs\n`);
console.log('| field | correct | accuracy |\n| --- | ---: | ---: |');
for (const a of parserAccuracy(pairs))
  console.log(`| ${a.field} | ${a.correct}/${a.total} | ${(100 * a.accuracy).toFixed(1)} % |`);
if (values.errors) {
  const field = values.errors as ParserField;
  for (const p of pairs) {
    if (fieldMatches(p.parsed, p.label)[field]) continue;
    console.log(`\n## ${p.id}\n${p.text.slice(0, 600)}`);
    console.log('parsed:', JSON.stringify(p.parsed));
    console.log('label: ', JSON.stringify(p.label));
  }
}
