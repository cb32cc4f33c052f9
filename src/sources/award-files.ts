/**
 * Award files → award records: a bulk-download CSV or a JSON array of bulk-column records, either
 * optionally gzipped, read as a stream of text chunks and yielded a batch of records at a time, each
 * an award or a rejection with its CSV line or JSON index.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { AwardRecord } from '../domain/types.ts';
import {
  type AwardItem,
  BULK_COLUMNS,
  collect,
  itemAt,
  normalizeBulkItem,
  normalizeBulkRecord,
  type Rejection,
} from './awards.ts';
import { CsvError, columnPicker, csvRecordBatches } from './csv.ts';

/** The file is not in a format this module reads (wrong header, not JSON, not gzip). */
export class FileFormatError extends Error {}

export type AwardFormat = 'csv' | 'json';

/** How far through the file reading is, in bytes of the file as stored (compressed, if it is). */
export interface ReadProgress {
  size: number;
  bytesRead: number;
}

const REQUIRED_COLUMNS = ['contract_award_unique_key', 'recipient_name', 'award_base_action_date'];
const VALUE_COLUMNS = ['current_total_value_of_award', 'total_obligated_amount'];
const JSON_BATCH = 1000;

/** Decoded text of a file, gunzipped when its first bytes say gzip (whatever its name). */
export async function* textChunks(path: string, progress?: ReadProgress): AsyncGenerator<string> {
  const head = Buffer.alloc(2);
  const handle = await open(path, 'r');
  try {
    await handle.read(head, 0, 2, 0);
    if (progress) progress.size = (await handle.stat()).size;
  } finally {
    await handle.close();
  }
  const raw = createReadStream(path);
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  const source = gzip ? pipeline(raw, createGunzip(), () => undefined) : raw;
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const bytes of source) {
      if (progress) progress.bytesRead = raw.bytesRead;
      const text = decoder.decode(bytes as Buffer, { stream: true });
      if (text) yield text;
    }
  } catch (error) {
    const code = String((error as NodeJS.ErrnoException).code ?? '');
    if (code.startsWith('Z_'))
      throw new FileFormatError(`not a valid gzip file: ${(error as Error).message}`);
    throw error;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

export async function readAll(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

/**
 * The records of an award file: its format (from the name — `.csv`, `.json`, optionally `.gz` — else
 * from the first character) and its items, a text chunk's worth at a time.
 */
export async function awardFile(
  path: string,
  progress?: ReadProgress,
): Promise<{ format: AwardFormat; items: AsyncGenerator<AwardItem[]> }> {
  const chunks = textChunks(path, progress);
  const first = await chunks.next();
  const text = first.done ? '' : first.value;
  const format = detectFormat(path, text);
  return { format, items: awardItems(withFirst(text, chunks), format) };
}

/** The items of award text in `format`, a batch at a time. */
export function awardItems(chunks: AsyncIterable<string>, format: AwardFormat): AsyncGenerator<AwardItem[]> {
  return format === 'csv' ? csvItems(chunks) : jsonItems(chunks);
}

function detectFormat(path: string, firstChunk: string): AwardFormat {
  const name = path.toLowerCase().replace(/\.gz$/, '');
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.json')) return 'json';
  return /^\uFEFF?\s*[[{]/.test(firstChunk) ? 'json' : 'csv';
}

async function* withFirst(first: string, rest: AsyncIterator<string>): AsyncGenerator<string> {
  yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

async function* csvItems(chunks: AsyncIterable<string>): AsyncGenerator<AwardItem[]> {
  let header: string[] | null = null;
  let pick: ((fields: readonly string[]) => Record<string, string>) | null = null;
  try {
    for await (const records of csvRecordBatches(chunks)) {
      const items: AwardItem[] = [];
      for (const { line, fields } of records) {
        if (!header || !pick) {
          header = fields.map((f) => f.trim());
          checkHeader(header);
          pick = columnPicker(header, BULK_COLUMNS);
          continue;
        }
        if (fields.length !== header.length) {
          items.push(reject(line, `expected ${header.length} fields, found ${fields.length}`));
          continue;
        }
        items.push(itemAt(normalizeBulkRecord(pick(fields)), { line }));
      }
      yield items;
    }
  } catch (error) {
    // An unterminated quote swallows the rest of the file: report it where it starts and stop.
    if (!(error instanceof CsvError)) throw error;
    yield [reject(error.line, 'unterminated quoted field; the rest of the file is skipped')];
  }
}

const reject = (line: number, message: string): AwardItem => ({ ok: false, rejection: { line, message } });

function checkHeader(header: string[]): void {
  const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (!VALUE_COLUMNS.some((c) => header.includes(c))) missing.push(VALUE_COLUMNS.join(' or '));
  if (missing.length > 0) {
    throw new FileFormatError(`not a bulk-download award CSV: the header lacks ${missing.join(', ')}`);
  }
}

/**
 * A JSON array is one document, so it is parsed whole (V8 caps a string near 512 MB: larger sets
 * belong in CSV, which streams). Records are still yielded in batches.
 */
async function* jsonItems(chunks: AsyncIterable<string>): AsyncGenerator<AwardItem[]> {
  const text = await readAll(chunks);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FileFormatError(`not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed))
    throw new FileFormatError('not an award JSON file: expected an array of records');
  const records: unknown[] = parsed;
  for (let start = 0; start < records.length; start += JSON_BATCH) {
    yield records
      .slice(start, start + JSON_BATCH)
      .map((value, i) => itemAt(normalizeBulkItem(value), { index: start + i }));
  }
}

/** Award text already in memory, read by the same reader as a file, its items collected. */
export async function readAwardText(
  text: string,
  format: AwardFormat,
): Promise<{ awards: AwardRecord[]; rejected: Rejection[] }> {
  const items: AwardItem[] = [];
  // One loop, not push(...batch): a file read whole is one batch, and a million arguments overflow the stack.
  for await (const batch of awardItems(once(text), format)) for (const item of batch) items.push(item);
  return collect(items);
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}
