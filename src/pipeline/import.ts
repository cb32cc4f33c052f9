/**
 * Bulk files into the store: award files (bulk-download CSV or a JSON array of such records, either
 * optionally gzipped) through the pipeline in chunks, and candle CSVs; then the passes over
 * stored contracts that follow an import (scoring what is unscored or changed).
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { AwardRecord, Engine } from '../domain/types.ts';
import { BULK_COLUMNS, normalizeBulkItem, normalizeBulkRecord } from '../sources/awards.ts';
import { parseCandlesCsv } from '../sources/candles.ts';
import { CsvError, columnPicker, csvRecordBatches } from '../sources/csv.ts';
import type { Db } from '../store/db.ts';
import { type Deferral, deferIndexes, restoreIndexes } from '../store/deferred-indexes.ts';
import { upsertCandles } from '../store/writes.ts';
import type { PipelineContext } from './context.ts';
import {
  type IngestCounts,
  ingestAwards,
  type ScoredContract,
  scoreContracts,
  storedAmong,
  yieldToIo,
  zeroCounts,
} from './ingest.ts';

/** The file is not in a format this module reads (wrong header, not JSON, not gzip). */
export class FileFormatError extends Error {}

export type FileRejection = { line: number; message: string } | { index: number; message: string };

export interface AwardFileResult extends Omit<IngestCounts, 'rejected'> {
  format: 'csv' | 'json';
  /** The first MAX_REPORTED rejections; `rejectedTotal` counts them all. */
  rejected: FileRejection[];
  rejectedTotal: number;
  /** Contracts scored; once, after the whole file is stored, so trailing statistics see all of it. */
  scored: number;
}

export interface ImportOptions {
  /** Awards stored per pipeline call. */
  chunkSize?: number;
  /**
   * The smallest import, in awards, that builds the list indexes of contracts and signals at its end
   * instead of writing through them — when it also brings at least as many awards as `contracts`
   * holds. Estimated from the file's size when the first chunk is read. `Infinity` never defers.
   */
  deferIndexesFrom?: number;
  log?: (line: string) => void;
}

const MAX_REPORTED = 1000;
const CHUNK = 50_000;
/** Smaller imports write through the list indexes: dropping and rebuilding them would not repay itself. */
const DEFER_INDEXES_FROM = 100_000;
const REQUIRED_COLUMNS = ['contract_award_unique_key', 'recipient_name', 'award_base_action_date'];
const VALUE_COLUMNS = ['current_total_value_of_award', 'total_obligated_amount'];

/** How far through the file reading is, in bytes of the file as stored (compressed, if it is). */
interface ReadProgress {
  size: number;
  bytesRead: number;
}

/** Decoded text of a file, gunzipped when its first bytes say gzip (whatever its name). */
async function* textChunks(path: string, progress?: ReadProgress): AsyncGenerator<string> {
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

async function readAll(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

/** The format from the name (`.csv`, `.json`, optionally `.gz`), else from the first character. */
function detectFormat(path: string, firstChunk: string): 'csv' | 'json' {
  const name = path.toLowerCase().replace(/\.gz$/, '');
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.json')) return 'json';
  return /^\uFEFF?\s*[[{]/.test(firstChunk) ? 'json' : 'csv';
}

type Item = { ok: true; award: AwardRecord } | { ok: false; rejection: FileRejection };

/** The awards (or rejections) of the file, a text chunk's worth at a time. */
async function* csvItems(chunks: AsyncIterable<string>): AsyncGenerator<Item[]> {
  let header: string[] | null = null;
  let pick: ((fields: readonly string[]) => Record<string, string>) | null = null;
  try {
    for await (const records of csvRecordBatches(chunks)) {
      const items: Item[] = [];
      for (const { line, fields } of records) {
        if (!header || !pick) {
          header = fields.map((f) => f.trim());
          checkHeader(header);
          pick = columnPicker(header, BULK_COLUMNS);
          continue;
        }
        if (fields.length !== header.length) {
          items.push(reject({ line, message: `expected ${header.length} fields, found ${fields.length}` }));
          continue;
        }
        const result = normalizeBulkRecord(pick(fields));
        items.push(result.ok ? result : reject({ line, message: result.message }));
      }
      yield items;
    }
  } catch (error) {
    // An unterminated quote swallows the rest of the file: report it where it starts and stop.
    if (!(error instanceof CsvError)) throw error;
    yield [
      reject({ line: error.line, message: 'unterminated quoted field; the rest of the file is skipped' }),
    ];
  }
}

function checkHeader(header: string[]): void {
  const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (!VALUE_COLUMNS.some((c) => header.includes(c))) missing.push(VALUE_COLUMNS.join(' or '));
  if (missing.length > 0) {
    throw new FileFormatError(`not a bulk-download award CSV: the header lacks ${missing.join(', ')}`);
  }
}

/**
 * A JSON array is one document, so it is parsed whole (V8 caps a string near 512 MB: larger sets
 * belong in CSV, which streams). Records still go through the pipeline in chunks.
 */
async function* jsonItems(chunks: AsyncIterable<string>): AsyncGenerator<Item[]> {
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
    yield records.slice(start, start + JSON_BATCH).map((value, i): Item => {
      const result = normalizeBulkItem(value);
      return result.ok ? result : reject({ index: start + i, message: result.message });
    });
  }
}

const JSON_BATCH = 1000;

const reject = (rejection: FileRejection): Item => ({ ok: false, rejection });

async function* withFirst(first: string, rest: AsyncIterator<string>): AsyncGenerator<string> {
  yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/**
 * Imports a bulk-download award CSV or a JSON array of bulk-column records (`.gz` accepted). Bad rows
 * are reported with their CSV line or JSON index and skipped; the rest goes through the pipeline in
 * chunks, so a file of any size is never held whole in memory.
 */
export async function importAwardFile(
  ctx: PipelineContext,
  path: string,
  options: ImportOptions = {},
): Promise<AwardFileResult> {
  const progress: ReadProgress = { size: 0, bytesRead: 0 };
  const chunks = textChunks(path, progress);
  const first = await chunks.next();
  const text = first.done ? '' : first.value;
  const format = detectFormat(path, text);
  const source = withFirst(text, chunks);
  const result: AwardFileResult = { format, ...zeroCounts(), rejected: [], rejectedTotal: 0, scored: 0 };
  const runStart = ctx.now();
  let pending: AwardRecord[] = [];
  const leftovers: string[] = [];
  // The contracts to score, kept from the store step (≈ 200 bytes each) unless there are too many; then
  // they are read back from the database in groups.
  let toScore: ScoredContract[] | null = [];
  const keep = (contracts: readonly ScoredContract[]) => {
    if (toScore && toScore.length + contracts.length <= GROUP) toScore.push(...contracts);
    else toScore = null;
  };
  // Decided before the first chunk is stored, from the file's size and how many records its first
  // bytes held; the indexes named are built again below, and by the next start if this one stops.
  let deferred = null as Deferral | null;
  let read = 0;
  // One chunk is stored while the next one is read and parsed, so the server works while node parses.
  let storing: Promise<void> = Promise.resolve();
  const flush = async (last: boolean) => {
    if (pending.length === 0) return;
    const chunk = pending;
    pending = [];
    await storing;
    if (deferred === null) {
      const estimate = last ? read : Math.round((progress.size * read) / Math.max(1, progress.bytesRead));
      deferred = await deferForImport(ctx, estimate, options.deferIndexesFrom ?? DEFER_INDEXES_FROM);
      if (deferred.names.length > 0)
        options.log?.(
          `import: ≈ ${estimate} awards: the ${deferred.names.length} list indexes of contracts and signals are built at the end`,
        );
    }
    storing = (async () => {
      const { stored, unscored } = await storedAmong(ctx, chunk);
      leftovers.push(...unscored);
      addCounts(result, await ingestAwards(ctx, chunk, { score: false, onUnscored: keep, stored }));
      options.log?.(`import: ${result.received} records read, ${result.rejectedTotal} rejected`);
    })();
    // Awaited at the next flush or after the last chunk; this only keeps a failure from counting as unhandled meanwhile.
    storing.catch(() => undefined);
  };
  // Contracts' indexes are built while the signals are scored, once scoring has read the trailing
  // history (it reads no contracts after that, and writes none); signals' after.
  let contractIndexes = null as Promise<void> | null;
  const buildContractIndexes = () => {
    if (!deferred?.names.length || contractIndexes) return;
    contractIndexes = buildIndexes(ctx.db, 'contracts', options.log);
    contractIndexes.catch(() => undefined);
  };
  try {
    for await (const items of format === 'csv' ? csvItems(source) : jsonItems(source)) {
      for (const item of items) {
        // Let the chunk being stored send its next statement now and then.
        if (++read % 1000 === 0) await yieldToIo();
        if (item.ok) pending.push(item.award);
        else {
          result.received += 1;
          result.rejectedTotal += 1;
          if (result.rejected.length < MAX_REPORTED) result.rejected.push(item.rejection);
        }
        if (pending.length >= (options.chunkSize ?? CHUNK)) await flush(false);
      }
    }
    await flush(true);
    await storing;
    await scoreImported(
      ctx,
      result,
      { toScore, leftovers, since: runStart },
      buildContractIndexes,
      options.log,
    );
    buildContractIndexes(); // when there was nothing to score
    await contractIndexes;
    if (deferred?.names.length) await buildIndexes(ctx.db, 'signals', options.log);
  } catch (error) {
    await contractIndexes?.catch(() => undefined);
    // If the database itself is what failed, the record stays and the next start builds them.
    if (deferred?.names.length) await restoreIndexes(ctx.db).catch(() => undefined);
    throw error;
  } finally {
    await deferred?.release();
  }
  return result;
}

/**
 * Scoring after the last chunk gives every chunk the trailing statistics of the whole file, as one
 * pipeline run would. Leftovers of an earlier import that stopped before scoring are unchanged now,
 * so they are named separately.
 */
async function scoreImported(
  ctx: PipelineContext,
  result: AwardFileResult,
  kept: { toScore: ScoredContract[] | null; leftovers: string[]; since: Date },
  onHistoryLoaded: () => void,
  log?: (line: string) => void,
): Promise<void> {
  const { toScore, leftovers } = kept;
  const selections: StoredSelection[] = [];
  if (toScore === null) selections.push({ kind: 'changed-since', since: kept.since });
  else if (toScore.length > 0) {
    const engines = engineList(ctx);
    const total = toScore.length;
    log?.(`score: ${engines}: ${total} contracts to score`);
    result.signals_created += await scoreContracts(ctx, toScore, {
      onHistoryLoaded,
      onProgress: (_stage, done) => {
        if (done === total || done % 50_000 === 0) log?.(`score: ${engines}: ${done}/${total} contracts`);
      },
    });
    result.scored += total;
  }
  if (leftovers.length > 0) selections.push({ kind: 'ids', ids: leftovers });
  for (const selection of selections) {
    const scored = await scoreStored(ctx, selection, log);
    result.scored += scored.contracts;
    result.signals_created += scored.created;
  }
}

/**
 * Defers the list indexes when the import is large (`from` awards or more) and at least the size of
 * what `contracts` holds: building an index over existing and new rows then costs less than writing
 * each new row through it.
 */
async function deferForImport(ctx: PipelineContext, estimate: number, from: number): Promise<Deferral> {
  const none: Deferral = { names: [], release: async () => {} };
  if (estimate < from) return none;
  const [held] = await ctx.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM (SELECT 1 FROM contracts LIMIT $1) AS held',
    [estimate + 1],
  );
  if ((held?.n ?? 0) > estimate) return none;
  return deferIndexes(ctx.db, ['contracts', 'signals']);
}

async function buildIndexes(
  db: Db,
  table: 'contracts' | 'signals',
  log?: (line: string) => void,
): Promise<void> {
  const start = performance.now();
  const built = await restoreIndexes(db, [table]);
  if (built.length > 0)
    log?.(`indexes: built ${built.join(', ')} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

function addCounts(into: AwardFileResult, c: IngestCounts): void {
  into.received += c.received;
  into.inserted += c.inserted;
  into.updated += c.updated;
  into.matched += c.matched;
  into.unmatched += c.unmatched;
}

/**
 * Imports a candle CSV (`date,open,high,low,close[,adj_close],volume`) for one ticker. Bad rows are
 * reported with their line and skipped. Read whole: decades of daily bars are a few hundred kB.
 */
export async function importCandleFile(
  db: Db,
  path: string,
  ticker: string,
): Promise<{ ticker: string; imported: number; rejected: { line: number; message: string }[] }> {
  const text = await readAll(textChunks(path));
  let parsed: ReturnType<typeof parseCandlesCsv>;
  try {
    parsed = parseCandlesCsv(text);
  } catch (error) {
    throw new FileFormatError((error as Error).message);
  }
  const { candles, rejected } = parsed;
  const symbol = ticker.toUpperCase();
  for (let i = 0; i < candles.length; i += 5000) {
    await upsertCandles(db, symbol, candles.slice(i, i + 5000));
  }
  return { ticker: symbol, imported: candles.length, rejected };
}

/** Which stored, matched contracts to (re)score. */
export type StoredSelection =
  | { kind: 'changed-since'; since: Date }
  | { kind: 'ids'; ids: readonly string[] }
  | { kind: 'unscored' }
  | { kind: 'all' };

/**
 * Contracts per scoreContracts call: it loads every award of their tickers once, and each call ends by
 * waiting for its last writes, so fewer, larger groups keep the server busy (≈ 200 bytes per contract).
 */
const GROUP = 250_000;

/**
 * Scores stored contracts with `ctx.engines`: `unscored` takes, per engine, the contracts without a
 * signal for its current version; `all` every matched contract; `changed-since` those written since;
 * `ids` those named.
 */
export async function scoreStored(
  ctx: PipelineContext,
  selection: StoredSelection,
  log?: (line: string) => void,
): Promise<{ contracts: number; created: number }> {
  if (selection.kind !== 'unscored') return scoreWhere(ctx, condition(selection), log);
  const total = { contracts: 0, created: 0 };
  for (const engine of ctx.engines) {
    const one = await scoreWhere({ ...ctx, engines: [engine] }, unscoredBy(engine), log);
    total.contracts += one.contracts;
    total.created += one.created;
  }
  return total;
}

interface Condition {
  sql: string;
  params: unknown[];
}

function condition(selection: Exclude<StoredSelection, { kind: 'unscored' }>): Condition {
  if (selection.kind === 'all') return { sql: 'TRUE', params: [] };
  if (selection.kind === 'ids') return { sql: 'c.id = ANY($1::text[])', params: [selection.ids] };
  return { sql: 'c.updated_at >= $1::timestamptz', params: [selection.since.toISOString()] };
}

function unscoredBy(engine: Engine): Condition {
  return {
    sql: `NOT EXISTS (SELECT 1 FROM signals s WHERE s.contract_id = c.id AND s.engine_name = $1 AND s.engine_version = $2)`,
    params: [engine.name, engine.version],
  };
}

async function scoreWhere(
  ctx: PipelineContext,
  where: Condition,
  log?: (line: string) => void,
): Promise<{ contracts: number; created: number }> {
  const perTicker = await ctx.db.query<{ ticker: string; n: number }>(
    `SELECT c.ticker, count(*)::int AS n FROM contracts c WHERE c.ticker IS NOT NULL AND ${where.sql}
     GROUP BY c.ticker ORDER BY c.ticker`,
    where.params,
  );
  const total = perTicker.reduce((sum, row) => sum + row.n, 0);
  const engines = engineList(ctx);
  if (total > 0) log?.(`score: ${engines}: ${total} contracts to score`);
  let done = 0;
  let created = 0;
  for (const tickers of groupTickers(perTicker)) {
    const contracts = await ctx.db.query<ScoredContract>(
      `SELECT c.id, c.ticker, c.contract_value AS value, c.award_date AS "awardDate",
         c.awarding_agency AS "awardingAgency", c.nlp_classification AS classification,
         c.match_confidence AS "matchConfidence",
         NOT EXISTS (SELECT 1 FROM signals s WHERE s.contract_id = c.id) AS unscored
       FROM contracts c WHERE c.ticker = ANY($${where.params.length + 1}::text[]) AND ${where.sql}
       ORDER BY c.id`,
      [...where.params, tickers],
    );
    created += await scoreContracts(ctx, contracts);
    done += contracts.length;
    log?.(`score: ${engines}: ${done}/${total} contracts`);
  }
  return { contracts: done, created };
}

const engineList = (ctx: PipelineContext): string =>
  ctx.engines.map((e) => `${e.name} ${e.version}`).join(', ');

function groupTickers(perTicker: readonly { ticker: string; n: number }[]): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const { ticker, n } of perTicker) {
    if (current.length > 0 && size + n > GROUP) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(ticker);
    size += n;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

export interface UnmatchedRecipient {
  name_norm: string;
  sample_name: string;
  award_count: number;
  total_value: number;
}

/** The curation list: recipients no ticker was found for, largest total value first. */
export function listUnmatched(
  db: Db,
  page: { limit: number; offset: number },
): Promise<UnmatchedRecipient[]> {
  return db.query<UnmatchedRecipient>(
    `SELECT name_norm, sample_name, award_count, total_value FROM unmatched_recipients
     ORDER BY total_value DESC, name_norm LIMIT $1 OFFSET $2`,
    [page.limit, page.offset],
  );
}
