/**
 * Streamed exports: the body is read as it arrives and never held whole. `ExportBody` is one export's
 * answer — its `ResponseMeta` as soon as the headers are in, then the bytes (`for await` over it, or
 * `body`), or parsed rows (`rows()`): NDJSON lines as the list's items, CSV records (RFC 4180, the
 * server's dialect: a header record, CRLF line ends, quoted fields that may hold line breaks) as
 * objects keyed by the header. Memory stays at one chunk and one row: the next chunk is only read when
 * the caller asks for the next row, so a slow consumer slows the server down (it reads rows in batches
 * as they are taken) instead of filling memory.
 */
import { CsvParser } from './csv.js';
import { ConnectionError, MarketIntelError } from './errors.js';
import type { ResponseMeta } from './response.js';

export type ExportFormat = 'csv' | 'ndjson';

/** The CSV columns of both exports, in order (docs/API.md, "Formats"). */
export const EXPORT_CSV_COLUMNS = [
  'contract_id',
  'ticker',
  'recipient_name',
  'award_date',
  'contract_value',
  'awarding_agency',
  'awarding_sub_agency',
  'description',
  'naics',
  'psc',
  'nlp_classification',
  'match_confidence',
  'match_method',
  'source',
  'announced_at',
  'first_seen_at',
  'available_at',
  'linked_id',
  'link_method',
  'source_url',
  'signal_id',
  'engine_name',
  'engine_version',
  'engine_tier',
  'signal_score',
  'importance_score',
  'confidence_score',
  'risk_score',
  'computed_at',
] as const;

/**
 * One CSV record, by column. Every value is the text as written: numbers and dates unconverted, null
 * as `''`, and a text that starts with `=`, `+`, `-`, `@`, a tab or CR carries the server's leading `'`
 * (its guard against spreadsheet formulas; NDJSON carries values as stored).
 */
export type ExportCsvRow = Record<(typeof EXPORT_CSV_COLUMNS)[number], string>;

const invalid = (message: string, meta: ResponseMeta, cause?: unknown) =>
  new MarketIntelError({
    status: meta.status,
    code: 'invalid_response',
    message,
    requestId: meta.requestId,
    headers: meta.headers,
    cause,
  });

/** One export's answer: `NdjsonRow` is the list item an NDJSON line holds. */
export class ExportBody<Row> implements AsyncIterable<Uint8Array> {
  /** `csv` or `ndjson`, from the answer's `Content-Type`. */
  readonly format: ExportFormat;
  private used = false;

  constructor(
    readonly response: ResponseMeta,
    /** The raw body; read it once, through this, the iterator, `rows()` or `text()`. */
    readonly body: ReadableStream<Uint8Array>,
    /** The request's signal: aborting it ends the download with the signal's reason. */
    private readonly signal?: AbortSignal,
  ) {
    const type = response.headers.get('content-type') ?? '';
    this.format = /^application\/x-ndjson\b/i.test(type) ? 'ndjson' : 'csv';
  }

  /**
   * The body's bytes as they arrive. Stopping early (`break`) cancels the download, which ends the
   * export on the server. A body that breaks off before its end throws a `ConnectionError`.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array, void, undefined> {
    if (this.used) throw new TypeError('an export body can be read once');
    this.used = true;
    const reader = this.body.getReader();
    let bytes = 0;
    let finished = false;
    try {
      for (;;) {
        const chunk = await reader.read().catch((cause: unknown) => {
          throw this.brokenOff(bytes, cause);
        });
        if (chunk.done) break;
        bytes += chunk.value.byteLength;
        yield chunk.value;
      }
      finished = true;
    } finally {
      if (!finished) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }

  /** The rows, parsed as they arrive: list items for NDJSON, `ExportCsvRow`s for CSV. */
  rows(): AsyncGenerator<Row, void, undefined> {
    return (this.format === 'ndjson' ? this.ndjson() : this.csv()) as AsyncGenerator<Row, void, undefined>;
  }

  /** The whole body as one string (held in memory: for small exports). */
  async text(): Promise<string> {
    let text = '';
    for await (const piece of this.decoded()) text += piece;
    return text;
  }

  /** Abandons the body unread, ending the export on the server. */
  async cancel(): Promise<void> {
    if (!this.used) await this.body.cancel();
    this.used = true;
  }

  private async *decoded(): AsyncGenerator<string, void, undefined> {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    try {
      for await (const chunk of this) yield decoder.decode(chunk, { stream: true });
      yield decoder.decode();
    } catch (error) {
      throw error instanceof TypeError ? invalid('the export is not UTF-8', this.response, error) : error;
    }
  }

  private async *ndjson(): AsyncGenerator<unknown, void, undefined> {
    let rest = '';
    let line = 0;
    const parse = (text: string) => {
      line += 1;
      try {
        return JSON.parse(text) as unknown;
      } catch (cause) {
        throw invalid(`NDJSON line ${line} is not JSON`, this.response, cause);
      }
    };
    for await (const piece of this.decoded()) {
      const lines = (rest + piece).split('\n');
      rest = lines.pop() ?? '';
      for (const text of lines) if (text.trim() !== '') yield parse(text);
    }
    if (rest.trim() !== '') yield parse(rest);
  }

  private async *csv(): AsyncGenerator<Record<string, string>, void, undefined> {
    const parser = new CsvParser();
    const read: { header: string[] | null } = { header: null };
    for await (const piece of this.decoded()) yield* this.csvRows(read, parser.push(piece));
    let last: string[][];
    try {
      last = parser.end();
    } catch (cause) {
      throw cause instanceof SyntaxError ? invalid(cause.message, this.response, cause) : cause;
    }
    yield* this.csvRows(read, last);
  }

  /** The first record is the header; each later one becomes an object keyed by it. */
  private *csvRows(read: { header: string[] | null }, records: string[][]) {
    for (const record of records) {
      if (read.header === null) read.header = record;
      else yield this.csvRow(read.header, record);
    }
  }

  private csvRow(header: string[], record: string[]): Record<string, string> {
    if (record.length !== header.length) {
      const message = `a CSV record has ${record.length} fields, the header ${header.length}`;
      throw invalid(message, this.response);
    }
    return Object.fromEntries(header.map((name, i) => [name, record[i] ?? '']));
  }

  private brokenOff(bytes: number, cause: unknown): unknown {
    if (this.signal?.aborted) return this.signal.reason;
    if (cause instanceof MarketIntelError) return cause;
    return new ConnectionError({
      status: 0,
      code: 'connection_error',
      message: `the export broke off after ${bytes} bytes: ${cause instanceof Error ? cause.message : String(cause)}`,
      requestId: this.response.requestId,
      headers: this.response.headers,
      cause,
    });
  }
}
