import type { Queryable } from '../store/db.ts';
import { addUsage, type UsageCell } from '../store/usage.ts';

const MINUTE_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Cell = UsageCell;

/**
 * One id's counts in a batch: a cell per minute (one, unless the minute turned or records came out of
 * order), each with its key's last use in that minute. Every request lands here, so nothing of it is
 * allocated per request: the counters and `lastUsed` (number fields, written in place) change, no
 * string or cell is built. (A Map from id to time boxed a fresh number at every request and kept it
 * until the key's next one — garbage that outlived the young generation and paced the server's major
 * GCs.)
 */
interface Tally {
  cells: Cell[];
  /** The cell counted last: where the next request of the same minute goes. */
  current: Cell;
}

type Batch = Map<string, Tally>;

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
  #pending: Batch = new Map();
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
    let cells = 0;
    for (const tally of this.#pending.values()) cells += tally.cells.length;
    return cells;
  }

  record(keyId: string, status: number, at: Date | number = Date.now()): void {
    this.#count(keyId, status, at, true);
  }

  /** One dashboard read of a signed-in user: counted under the user's id; no key's last use moves. */
  recordDashboard(userId: string, status: number, at: Date | number = Date.now()): void {
    this.#count(userId, status, at, false);
  }

  #count(id: string, status: number, at: Date | number, isKey: boolean): void {
    const time = typeof at === 'number' ? at : at.getTime();
    const minute = Math.floor(time / MINUTE_MS) * MINUTE_MS;
    // A malformed id would make every later batch fail, so it is refused here rather than at flush;
    // an id already in the batch passed this check.
    const tally = this.#pending.get(id) ?? newTally(this.#pending, id, minute);
    const cell = tally.current.minute === minute ? tally.current : cellOf(tally, id, minute);
    cell.requests += 1;
    if (status >= 400) cell.errors += 1;
    if (isKey && time > cell.lastUsed) cell.lastUsed = time;
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
    if (batch.size === 0) return;
    // Swapped before the await: requests recorded while the write is in flight go to the next batch.
    this.#pending = new Map();
    const cells: Cell[] = [];
    for (const tally of batch.values()) cells.push(...tally.cells);
    try {
      await addUsage(this.#db, cells);
    } catch (error) {
      for (const [id, tally] of batch) mergeBack(this.#pending, id, tally);
      this.#onError(error);
    }
  }
}

function checkId(id: string): void {
  if (!UUID.test(id)) throw new TypeError(`usage id is not a uuid: ${id}`);
}

const newCell = (keyId: string, minute: number): Cell => ({
  keyId,
  minute,
  requests: 0,
  errors: 0,
  lastUsed: Number.NEGATIVE_INFINITY,
});

/** The tally of an id new to the batch (checked first), with a cell for `minute`. */
function newTally(batch: Batch, id: string, minute: number): Tally {
  checkId(id);
  const cell = newCell(id, minute);
  const tally: Tally = { cells: [cell], current: cell };
  batch.set(id, tally);
  return tally;
}

/** The tally's cell for `minute`, made if there is none; it becomes the current one. */
function cellOf(tally: Tally, id: string, minute: number): Cell {
  let cell = tally.cells.find((c) => c.minute === minute);
  if (!cell) {
    cell = newCell(id, minute);
    tally.cells.push(cell);
  }
  tally.current = cell;
  return cell;
}

/** Adds a batch's tally whose write failed back into `batch`, to be written by the next flush. */
function mergeBack(batch: Batch, id: string, failed: Tally): void {
  for (const old of failed.cells) {
    const tally = batch.get(id) ?? newTally(batch, id, old.minute);
    const cell = cellOf(tally, id, old.minute);
    cell.requests += old.requests;
    cell.errors += old.errors;
    if (old.lastUsed > cell.lastUsed) cell.lastUsed = old.lastUsed;
  }
}
