/** run() refused a task: the queue already holds as many waiting tasks as it may. */
export class QueueFullError extends Error {}

export interface WorkQueueStats {
  /** Tasks started since the queue was made. */
  started: number;
  running: number;
  waiting: number;
  /** Most tasks running at once since the queue was made or resetPeak() was called. */
  peak: number;
}

/**
 * Runs at most `concurrency` tasks at once; up to `maxWaiting` more wait their turn in order, and beyond
 * that run() refuses at once with QueueFullError, so a flood is turned away instead of piling up.
 */
export class WorkQueue {
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  #started = 0;
  #peak = 0;

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.#acquire();
    this.#started += 1;
    this.#peak = Math.max(this.#peak, this.#running);
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  stats(): WorkQueueStats {
    return {
      started: this.#started,
      running: this.#running,
      waiting: this.#waiting.length,
      peak: this.#peak,
    };
  }

  resetPeak(): void {
    this.#peak = this.#running;
  }

  #acquire(): Promise<void> {
    if (this.#running < this.concurrency) {
      this.#running += 1;
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.maxWaiting)
      return Promise.reject(new QueueFullError('work queue is full'));
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the slot straight to the next waiting task, so `running` never exceeds the bound. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running -= 1;
  }
}
