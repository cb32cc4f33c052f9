import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CsvError,
  CsvParser,
  columnPicker,
  csvRecordBatches,
  csvRecords,
  parseCsv,
  rowToObject,
  toCsv,
} from '../../src/sources/csv.ts';

test('plain LF records with header', () => {
  const { header, rows } = parseCsv('a,b,c\n1,2,3\n4,5,6\n');
  assert.deepEqual(header, ['a', 'b', 'c']);
  assert.deepEqual(rows, [
    { line: 2, fields: ['1', '2', '3'] },
    { line: 3, fields: ['4', '5', '6'] },
  ]);
});

test('quoted fields: commas, escaped quotes, empty quoted and unquoted fields', () => {
  const { rows } = parseCsv('h1,h2,h3,h4\n"x, y","say ""hi""",,""\n');
  assert.deepEqual(rows[0]?.fields, ['x, y', 'say "hi"', '', '']);
});

test('CRLF, LF and lone CR line endings, no trailing newline', () => {
  const { header, rows } = parseCsv('a,b\r\n1,2\n3,4\r5,6');
  assert.deepEqual(header, ['a', 'b']);
  assert.deepEqual(rows, [
    { line: 2, fields: ['1', '2'] },
    { line: 3, fields: ['3', '4'] },
    { line: 4, fields: ['5', '6'] },
  ]);
});

test('newlines inside quotes are kept and counted for the next record line', () => {
  const text = 'id,text\n1,"first\nsecond\r\nthird"\n2,plain\n3,"cr\ronly"\n4,x\n';
  const { rows } = parseCsv(text);
  assert.deepEqual(rows, [
    { line: 2, fields: ['1', 'first\nsecond\r\nthird'] },
    { line: 5, fields: ['2', 'plain'] },
    { line: 6, fields: ['3', 'cr\ronly'] },
    { line: 8, fields: ['4', 'x'] },
  ]);
});

test('blank lines are skipped but still counted; a BOM is dropped', () => {
  const { header, rows } = parseCsv('\uFEFFa,b\n\n1,2\r\n\r\n3,4\n\n');
  assert.deepEqual(header, ['a', 'b']);
  assert.deepEqual(rows, [
    { line: 3, fields: ['1', '2'] },
    { line: 5, fields: ['3', '4'] },
  ]);
});

test('a record with a single empty field is not a blank line', () => {
  const { rows } = parseCsv('a\n""\nx\n');
  assert.deepEqual(rows, [
    { line: 2, fields: [''] },
    { line: 3, fields: ['x'] },
  ]);
});

test('lenient: quote inside unquoted field and text after closing quote are literal', () => {
  const { rows } = parseCsv('a,b\n5" pipe,"ab"cd\n');
  assert.deepEqual(rows[0]?.fields, ['5" pipe', 'abcd']);
});

test('unterminated quote throws CsvError with the record line', () => {
  assert.throws(
    () => parseCsv('a,b\n1,2\n3,"never closed\nmore\n'),
    (e: unknown) => e instanceof CsvError && e.line === 3 && /unterminated/.test(e.message),
  );
});

test('incremental parsing gives the same records for every chunk split point', () => {
  const text = 'a,b\r\n"x\r\ny","q""q"\r\n\r\n3,4\r5,"6\n"\n';
  const expected = parseCsv(text);
  for (let cut = 0; cut <= text.length; cut++) {
    const p = new CsvParser();
    const recs = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut)), ...p.end()];
    assert.deepEqual(recs.slice(1), expected.rows, `split at ${cut}`);
    assert.deepEqual(recs[0]?.fields, expected.header);
  }
});

test('csvRecords streams from async chunks one character at a time', async () => {
  const text = 'h\n"a\nb"\nc\n';
  async function* chars(): AsyncGenerator<string> {
    for (const ch of text) yield ch;
  }
  const out = [];
  for await (const r of csvRecords(chars())) out.push(r);
  assert.deepEqual(out, [
    { line: 1, fields: ['h'] },
    { line: 2, fields: ['a\nb'] },
    { line: 4, fields: ['c'] },
  ]);
});

test('csvRecordBatches gives the records of each chunk as one array; an error comes after the records before it', async () => {
  async function* chunks(...parts: string[]): AsyncGenerator<string> {
    yield* parts;
  }
  const batches = [];
  for await (const b of csvRecordBatches(chunks('h\n1\n2', '\n3\n', '4\n')))
    batches.push(b.map((r) => r.fields[0]));
  assert.deepEqual(batches, [['h', '1'], ['2', '3'], ['4']]);
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const b of csvRecordBatches(chunks('h\n1\n', '2\n"open')))
      seen.push(...b.map((r) => r.fields[0] ?? ''));
  }, CsvError);
  assert.deepEqual(seen, ['h', '1', '2']);
});

test('columnPicker keeps only the named columns present, the first of a repeated name', () => {
  const pick = columnPicker(['a', 'x', 'b', 'a', 'y'], ['b', 'a', 'missing']);
  assert.deepEqual(pick(['1', '2', '3', '4', '5']), { b: '3', a: '1' });
  assert.deepEqual(pick(['1']), { b: '', a: '1' });
});

test('rowToObject pads missing fields, ignores extras, first duplicate header wins', () => {
  assert.deepEqual(rowToObject(['a', 'b', 'a'], ['1']), { a: '1', b: '' });
  assert.deepEqual(rowToObject(['a'], ['1', '2']), { a: '1' });
});

test('toCsv round-trips through parseCsv', () => {
  const rows = [
    ['plain', 'with,comma', 'with "quote"', 'multi\nline', ''],
    ['x', 'y', 'z', '\r\n', 'end'],
  ];
  const text = toCsv(['a', 'b', 'c', 'd', 'e'], rows);
  const parsed = parseCsv(text);
  assert.deepEqual(
    parsed.rows.map((r) => r.fields),
    rows,
  );
});
