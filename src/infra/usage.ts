import type { Queryable } from '../store/db.ts';
import { addUsage, type UsageCell } from '../store/usage.ts';

const MINUTE_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Cell = UsageCell;

interface Batch {
  cells: Map<string, Cell>;
  lastUsed: Map<string, number>;
}

export interface UsageRecorderOptions {
  /** Called when a flush fails; the batch is kept and retried by the next flush. */
  onError?: (error: unknown) => void;
}

/**
 * Counts keyed requests per key per UTC minute in memory and writes them in batches:
 * recording never touches the database; `flush()` (every 5 s once started, and on close) does.
 */
export class UsageRecorder {
  readonly #db: Queryable;
  readonly #onError: (error: unknown) => void;
  #pending: Batch = emptyBatch();
  /** Flushes run one after another, so close() also waits for one already under way. */
  #flushing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;

  constructor(db: Queryable, options: UsageRecorderOptions = {}) {
    this.#db = db;
    this.#onError =
      options.onError ??
      ((error) => process.emitWarning(`usage flush failed: ${String(error)}`, 'UsageRecorderWarning'));
  }

  /** (key, minute) cells waiting for the next flush. */
  get pendingCells(): number {
    return this.#pending.cells.size;
  }

  record(keyId: string, status: number, at: Date | number = Date.now()): void {
    // A malformed id would make every later batch fail, so it is refused here rather than at flush;
    // an id already in the batch passed this check.
    if (!this.#pending.lastUsed.has(keyId) && !UUID.test(keyId)) {
      throw new TypeError(`usage key id is not a uuid: ${keyId}`);
    }
    const time = typeof at === 'number' ? at : at.getTime();
    const minute = Math.floor(time / MINUTE_MS) * MINUTE_MS;
    add(this.#pending, { keyId, minute, requests: 1, errors: status >= 400 ? 1 : 0 }, time);
  }

  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce());
    return this.#flushing;
  }

  start(intervalMs = 5000): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.flush();
  }

  async #flushOnce(): Promise<void> {
    const batch = this.#pending;
    if (batch.cells.size === 0) return;
    // Swapped before the await: requests recorded while the write is in flight go to the next batch.
    this.#pending = emptyBatch();
    const cells = [...batch.cells.values()];
    const keys = [...batch.lastUsed];
    try {
      await addUsage(this.#db, cells, keys);
    } catch (error) {
      for (const cell of cells) add(this.#pending, cell, batch.lastUsed.get(cell.keyId) ?? cell.minute);
      this.#onError(error);
    }
  }
}

function emptyBatch(): Batch {
  return { cells: new Map(), lastUsed: new Map() };
}

function add(batch: Batch, cell: Cell, usedAt: number): void {
  const id = `${cell.keyId}|${cell.minute}`;
  const current = batch.cells.get(id);
  if (current) {
    current.requests += cell.requests;
    current.errors += cell.errors;
  } else {
    batch.cells.set(id, { ...cell });
  }
  const last = batch.lastUsed.get(cell.keyId);
  if (last === undefined || usedAt > last) batch.lastUsed.set(cell.keyId, usedAt);
}
