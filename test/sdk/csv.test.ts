/** The SDK's incremental CSV reader: RFC 4180 records however the text is cut into chunks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CsvParser } from '../../sdk/src/csv.ts';
import { csvField } from '../../src/sources/csv.ts';

const TRICKY = [
  ['contract_id', 'description', 'value'],
  ['C1', 'plain', '10'],
  ['C2', 'with, comma', ''],
  ['C3', 'say "hi"', '-5'],
  ['C4', 'two\r\nlines and\nan LF', '0'],
  ['C5', '"', '""'],
  ['C6', "'=HYPERLINK(x)", 'ünïcode ✓'],
  ['', '', ''],
];
const TEXT = TRICKY.map((record) => `${record.map(csvField).join(',')}\r\n`).join('');

const parseAll = (chunks: string[]) => {
  const parser = new CsvParser();
  const records = chunks.flatMap((chunk) => parser.push(chunk));
  return [...records, ...parser.end()];
};

test('the server dialect reads back exactly, in one piece', () => {
  assert.match(TEXT, /"two\r\nlines and\nan LF"/, 'the fixture has a quoted line break');
  assert.deepEqual(parseAll([TEXT]), TRICKY);
});

test('every cut into two chunks, and one character at a time, gives the same records', () => {
  for (let cut = 0; cut <= TEXT.length; cut++) {
    assert.deepEqual(parseAll([TEXT.slice(0, cut), TEXT.slice(cut)]), TRICKY, `cut at ${cut}`);
  }
  assert.deepEqual(parseAll([...TEXT]), TRICKY);
});

test('a record completes as soon as its line break arrives, not at the end', () => {
  const parser = new CsvParser();
  assert.deepEqual(parser.push('a,"b\r\n'), [], 'a line break inside quotes ends nothing');
  assert.deepEqual(parser.push('c",d\r'), [['a', 'b\r\nc', 'd']]);
  assert.deepEqual(parser.push('\ne,f'), []);
  assert.deepEqual(parser.end(), [['e', 'f']], 'a last record without CRLF');
});

test('bare LF line ends are taken, empty lines skipped, an unterminated quote refused', () => {
  assert.deepEqual(parseAll(['a,b\n\nc,d\n']), [
    ['a', 'b'],
    ['c', 'd'],
  ]);
  const parser = new CsvParser();
  parser.push('a,"open');
  assert.throws(() => parser.end(), SyntaxError);
});
