import { Readable } from 'node:stream';
import type { RowCursor } from '../store/db.ts';
import type { ExportRow } from '../store/export.ts';

export interface ExportStreamOptions {
  /** Bytes before the first row (the CSV header). */
  head: string;
  /** The rows read before the response started (so that a failure there was still an ordinary error). */
  first: ExportRow[];
  /** Rows per FETCH: a batch shorter than this is the last. */
  batchRows: number;
  /**
   * Awaited before each batch goes out, with its row count: the key's checks and the rate limit's
   * charge (it may wait; `signal` aborts when the stream is destroyed meanwhile). A rejection ends the
   * export.
   */
  beforeBatch: (rows: number, signal: AbortSignal) => Promise<void>;
  /** A batch's text as sent (NDJSON widens stored rationales); default as the database wrote it. */
  transform?: (text: string) => string;
  /**
   * The client must take the previous batch within this: a reader that stops reading is cut off and the
   * connection given back, rather than held while it sleeps.
   */
  stallMs: number;
  /**
   * The whole export's time limit, from the stream's start: it runs whatever the export is waiting for
   * (the client, the database, the rate limit), so no export holds its slot longer.
   */
  deadlineMs: number;
}

/**
 * A cursor's rows as a byte stream, one batch in memory at a time: the next FETCH is issued only when
 * the consumer (the HTTP response) asks for more, so a slow client slows the query down instead of
 * filling memory. Destroying the stream (the client went away, a stall, an error) closes the cursor,
 * which ends the query and returns its connection to the pool.
 */
export class ExportStream extends Readable {
  #pending: ExportRow[] | null;
  #stall: NodeJS.Timeout | null = null;
  readonly #deadline: NodeJS.Timeout;
  readonly #ended = new AbortController();
  #busy = false;
  #rows = 0;

  constructor(
    private readonly cursor: RowCursor<ExportRow>,
    private readonly options: ExportStreamOptions,
  ) {
    // One batch is already more than the high-water mark: nothing is read ahead of the client.
    super({ highWaterMark: 16 * 1024 });
    this.#pending = options.first;
    this.push(options.head);
    this.#deadline = setTimeout(() => {
      this.destroy(new Error(`export deadline: still running after ${options.deadlineMs} ms`));
    }, options.deadlineMs);
    this.#deadline.unref();
  }

  /** Rows handed to the consumer so far. */
  get rows(): number {
    return this.#rows;
  }

  override _read(): void {
    this.#clearStall();
    if (this.#busy) return;
    this.#busy = true;
    this.#next().then(
      ({ text, last }) => {
        this.#busy = false;
        if (this.destroyed) return;
        if (text) this.push(text);
        if (last) this.push(null);
        // Waiting for the client now, unless pushing already asked for the next batch.
        else if (!this.#busy) this.#armStall();
      },
      (error: Error) => this.destroy(error),
    );
  }

  /** The next batch's text, charged for; the cursor closed when it is the last. */
  async #next(): Promise<{ text: string; last: boolean }> {
    const rows = this.#pending ?? (await this.cursor.read());
    this.#pending = null;
    const last = rows.length < this.options.batchRows;
    let text = '';
    if (rows.length > 0 && !this.destroyed) {
      await this.options.beforeBatch(rows.length, this.#ended.signal);
      for (const row of rows) text += row.line;
      if (this.options.transform) text = this.options.transform(text);
      this.#rows += rows.length;
    }
    // Given back before the client has read the end: the connection is not held for the tail.
    if (last) await this.cursor.close();
    return { text, last };
  }

  #armStall(): void {
    this.#clearStall();
    this.#stall = setTimeout(() => {
      this.destroy(new Error(`export stalled: the client took nothing for ${this.options.stallMs} ms`));
    }, this.options.stallMs);
    this.#stall.unref();
  }

  #clearStall(): void {
    if (this.#stall) clearTimeout(this.#stall);
    this.#stall = null;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#clearStall();
    clearTimeout(this.#deadline);
    this.#ended.abort();
    this.cursor.close().then(
      () => callback(error),
      (closeError: Error) => callback(error ?? closeError),
    );
  }
}
