import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../bench/common.ts';
import { CsvParser, type CsvRecord } from '../../src/sources/csv.ts';
import { ReferenceCsvParser } from '../support/csv-reference.ts';

interface Parser {
  push(chunk: string): CsvRecord[];
  end(): CsvRecord[];
}

/** Records, or the error message, from feeding `chunks` one by one. */
function run(parser: Parser, chunks: readonly string[]): CsvRecord[] | string {
  const out: CsvRecord[] = [];
  try {
    for (const chunk of chunks) out.push(...parser.push(chunk));
    out.push(...parser.end());
    return out;
  } catch (error) {
    return (error as Error).message;
  }
}

const ALPHABET = ['a', 'b', ',', ',', '"', '"', '""', '\r', '\n', '\r\n', ' ', 'é', '\uFEFF', '😀'];

test('parses random CSV-like text exactly as the character-at-a-time reference, at any chunking', () => {
  const { rand } = seededRandom(42);
  const pick = () => ALPHABET[Math.floor(rand() * ALPHABET.length)] ?? '';
  for (let round = 0; round < 3000; round++) {
    const length = Math.floor(rand() * 40);
    let text = '';
    for (let i = 0; i < length; i++) text += pick();
    const chunks: string[] = [];
    for (let at = 0; at < text.length; ) {
      const size = rand() < 0.3 ? text.length : 1 + Math.floor(rand() * 6);
      chunks.push(text.slice(at, at + size));
      at += size;
    }
    if (rand() < 0.2) chunks.splice(Math.floor(rand() * (chunks.length + 1)), 0, '');
    const expected = run(new ReferenceCsvParser(), chunks);
    assert.deepEqual(run(new CsvParser(), chunks), expected, JSON.stringify(chunks));
    assert.deepEqual(run(new CsvParser(), [text]), expected, JSON.stringify(text));
  }
});
