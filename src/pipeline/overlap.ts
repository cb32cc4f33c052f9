/** How the pipeline keeps node and the database server busy at the same time. */
import { availableParallelism } from 'node:os';

/**
 * Overlaps the CPU work of the next batch (resolve, classify, score) with the database writes of
 * earlier ones. With depth 1 at most one write is in flight and writes start — and their results are
 * handled — in batch order, exactly as if each were awaited in turn. The batches of one run touch
 * disjoint rows (distinct award ids; the signals of distinct contracts), so with a greater depth several
 * are written at once and their results handled as they complete (the callers only add them up).
 */
export class WritePipeline {
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(private readonly depth = writeDepth()) {}

  /** Waits until fewer than `depth` writes are in flight, then starts `write` without waiting for it. */
  async enqueue<T>(write: () => Promise<T>, handle: (result: T) => void): Promise<void> {
    while (this.inFlight.size >= this.depth) await Promise.race(this.inFlight);
    this.rethrow();
    const pending: Promise<void> = write()
      .then(handle)
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.inFlight.delete(pending));
    this.inFlight.add(pending);
  }

  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
    this.rethrow();
  }

  private rethrow(): void {
    if (this.failure) throw this.failure.error;
  }
}

/**
 * Batches in flight: writing costs the server about as much CPU as node spends preparing the rows, so
 * the server gets up to one backend per core (at least two, at most four; the pool has ten connections).
 */
function writeDepth(): number {
  return Math.min(4, Math.max(2, availableParallelism()));
}

/**
 * Resolving, classifying and scoring are synchronous; a batch of them would hold the event loop for
 * tens of milliseconds while the writes in flight wait to send their next statement. Yielding every 50
 * awards (about a millisecond of work) lets those transactions move on, so node and the server work at
 * the same time.
 */
export const YIELD_EVERY = 50;
export const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
