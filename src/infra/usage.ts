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
 * A user's dashboard reads are counted the same way under the user's id (`recordDashboard`): ids are
 * random uuids, so a user's series never mixes with a key's, and the usage view reads it by that id.
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
    if (!this.#pending.lastUsed.has(keyId)) checkId(keyId);
    this.#count(keyId, status, at, true);
  }

  /** One dashboard read of a signed-in user: counted under the user's id; no key's last use moves. */
  recordDashboard(userId: string, status: number, at: Date | number = Date.now()): void {
    checkId(userId);
    this.#count(userId, status, at, false);
  }

  #count(id: string, status: number, at: Date | number, isKey: boolean): void {
    const time = typeof at === 'number' ? at : at.getTime();
    const minute = Math.floor(time / MINUTE_MS) * MINUTE_MS;
    add(
      this.#pending,
      { keyId: id, minute, requests: 1, errors: status >= 400 ? 1 : 0 },
      isKey ? time : null,
    );
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
      for (const cell of cells) add(this.#pending, cell, batch.lastUsed.get(cell.keyId) ?? null);
      this.#onError(error);
    }
  }
}

function checkId(id: string): void {
  if (!UUID.test(id)) throw new TypeError(`usage id is not a uuid: ${id}`);
}

function emptyBatch(): Batch {
  return { cells: new Map(), lastUsed: new Map() };
}

/** Adds a cell; `usedAt` moves the key's last use, null for a user's dashboard cell. */
function add(batch: Batch, cell: Cell, usedAt: number | null): void {
  const id = `${cell.keyId}|${cell.minute}`;
  const current = batch.cells.get(id);
  if (current) {
    current.requests += cell.requests;
    current.errors += cell.errors;
  } else {
    batch.cells.set(id, { ...cell });
  }
  if (usedAt === null) return;
  const last = batch.lastUsed.get(cell.keyId);
  if (last === undefined || usedAt > last) batch.lastUsed.set(cell.keyId, usedAt);
}
