/**
 * Threads for a large file import: the importing thread reads and parses the file and hands each chunk
 * of awards to a free thread (import-worker.ts), which resolves and classifies it while the others
 * work, then writes it when its turn comes. Turns follow the file's order, one chunk written at a time,
 * so the database sees the chunks exactly as a single-threaded import writes them (an award id repeated
 * in a later chunk is written after the earlier one). Why: docs/EVALUATION.md, "Ingest at 50,000
 * awards/s (issue 35)".
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AwardRecord } from '../domain/types.ts';
import {
  type PoolReply,
  type PoolRequest,
  packAwards,
  type WorkerSetup,
  type WrittenChunk,
} from './import-protocol.ts';

/** The worker's module beside this one: `.ts` when run through tsx, `.js` from the compiled dist/. */
const WORKER_URL = new URL(`./import-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * A thread running the worker's module. Compiled, it is started directly. Through tsx, a thread does
 * not inherit the TypeScript loader `--import tsx` registered here (Node 20), so a one-line bootstrap
 * loads the module with tsx's own `tsImport`.
 */
function startThread(setup: WorkerSetup): Worker {
  if (!WORKER_URL.pathname.endsWith('.ts')) return new Worker(WORKER_URL, { workerData: setup });
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const url = JSON.stringify(WORKER_URL.href);
  return new Worker(`import(${api}).then(({ tsImport }) => tsImport(${url}, ${url}))`, {
    eval: true,
    workerData: setup,
  });
}

interface Pending<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

function pending<T>(): Pending<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Observed by whoever awaits it; a failure meanwhile must not count as unhandled.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

class PoolThread {
  readonly worker: Worker;
  readonly ready = pending<void>();
  /** The chunk this thread holds (one at a time), until it is written. */
  chunk: number | null = null;
  scoring: Pending<{ contracts: number; created: number }> | null = null;
  /** Settles when the thread has ended, however (a thread that crashed has ended before `close`). */
  readonly exited: Promise<void>;

  constructor(
    setup: WorkerSetup,
    private readonly onReply: (thread: PoolThread, reply: PoolReply) => void,
    private readonly onFailure: (error: Error) => void,
  ) {
    this.worker = startThread(setup);
    this.worker.on('message', (reply: PoolReply) => this.onReply(this, reply));
    this.worker.on('error', (error) => this.onFailure(error));
    this.exited = new Promise((resolve) =>
      this.worker.on('exit', (code) => {
        if (code !== 0) this.onFailure(new Error(`an import thread exited with code ${code}`));
        resolve();
      }),
    );
  }

  send(request: PoolRequest): void {
    this.worker.postMessage(request);
  }
}

/** A failure reported by a thread, rethrown here with its SQLSTATE. */
class ThreadError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    stack?: string,
  ) {
    super(message);
    if (stack) this.stack = stack;
  }
}

export class ImportPool {
  private readonly threads: PoolThread[];
  private failure: Error | null = null;
  private readonly failed = pending<never>();
  private nextSeq = 0;
  /** Per chunk: the thread has resolved it, and it has been written. */
  private readonly resolved = new Map<number, Pending<void>>();
  private readonly written = new Map<number, Pending<WrittenChunk>>();
  private freed = pending<void>();
  private historyLoaded = 0;
  private onHistoryLoaded: (() => void) | null = null;

  private constructor(setup: WorkerSetup, size: number) {
    this.threads = Array.from(
      { length: size },
      () =>
        new PoolThread(
          setup,
          (thread, reply) => this.handle(thread, reply),
          (error) => this.fail(error),
        ),
    );
  }

  /** `size` threads, each connected and holding its pipeline context; fails if any of them cannot start. */
  static async start(setup: WorkerSetup, size: number): Promise<ImportPool> {
    const pool = new ImportPool(setup, size);
    try {
      await Promise.race([Promise.all(pool.threads.map((t) => t.ready.promise)), pool.failed.promise]);
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  get size(): number {
    return this.threads.length;
  }

  /**
   * Hands `awards` to a free thread (waiting for one) and returns once it is handed over; `written`
   * settles when the chunk has been written, after every chunk handed over before it.
   */
  async store(awards: readonly AwardRecord[]): Promise<{ written: Promise<WrittenChunk> }> {
    let thread = this.threads.find((t) => t.chunk === null);
    while (!thread) {
      await Promise.race([this.freed.promise, this.failed.promise]);
      thread = this.threads.find((t) => t.chunk === null);
    }
    const seq = this.nextSeq++;
    const resolved = pending<void>();
    const written = pending<WrittenChunk>();
    this.resolved.set(seq, resolved);
    this.written.set(seq, written);
    thread.chunk = seq;
    // Its turn: resolved, and the chunk before it written (a failure there fails this one too).
    const before = this.written.get(seq - 1)?.promise ?? Promise.resolve();
    Promise.all([resolved.promise, before]).then(
      () => thread.send({ type: 'write', seq }),
      (error: Error) => written.reject(error),
    );
    thread.send({ type: 'store', seq, awards: packAwards(awards) });
    return { written: Promise.race([written.promise, this.failed.promise]) };
  }

  /**
   * Scores the contracts changed since `since`, the tickers of `perTicker` shared out so each thread
   * gets about as many contracts; `onHistoryLoaded` runs once every thread has read its first group's
   * trailing history.
   */
  async score(
    since: Date,
    perTicker: readonly { ticker: string; n: number }[],
    onHistoryLoaded: () => void,
  ): Promise<{ contracts: number; created: number }> {
    const shares = shareOut(perTicker, this.threads.length);
    this.historyLoaded = 0;
    this.onHistoryLoaded = onHistoryLoaded;
    const runs = this.threads.map((thread, i) => {
      thread.scoring = pending();
      thread.send({ type: 'score', since: since.toISOString(), perTicker: shares[i] ?? [] });
      return thread.scoring.promise;
    });
    const results = await Promise.race([Promise.all(runs), this.failed.promise]);
    return results.reduce(
      (sum, r) => ({ contracts: sum.contracts + r.contracts, created: sum.created + r.created }),
      {
        contracts: 0,
        created: 0,
      },
    );
  }

  async close(): Promise<void> {
    await Promise.all(
      this.threads.map(async (thread) => {
        thread.send({ type: 'close' });
        // A thread that does not close its connections within a few seconds is stopped.
        const timer = setTimeout(() => thread.worker.terminate(), 5000);
        await thread.exited;
        clearTimeout(timer);
      }),
    );
  }

  private handle(thread: PoolThread, reply: PoolReply): void {
    switch (reply.type) {
      case 'ready':
        thread.ready.resolve();
        return;
      case 'resolved':
        this.resolved.get(reply.seq)?.resolve();
        return;
      case 'stored': {
        const { type: _type, seq, ...chunk } = reply;
        this.resolved.delete(seq);
        this.written.get(seq)?.resolve(chunk);
        // Kept until the next chunk's turn has read it.
        this.written.delete(seq - 1);
        thread.chunk = null;
        this.freed.resolve();
        this.freed = pending();
        return;
      }
      case 'history-loaded':
        if (++this.historyLoaded === this.threads.length) this.onHistoryLoaded?.();
        return;
      case 'scored':
        thread.scoring?.resolve({ contracts: reply.contracts, created: reply.created });
        return;
      case 'error':
        this.fail(new ThreadError(reply.message, reply.code, reply.stack));
        return;
    }
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.failed.reject(error);
    for (const thread of this.threads) thread.ready.reject(error);
  }
}

/**
 * Tickers shared out among `n` threads, largest first to the least loaded, each share in ticker order
 * (the order scoring groups them in).
 */
export function shareOut(
  perTicker: readonly { ticker: string; n: number }[],
  n: number,
): { ticker: string; n: number }[][] {
  const shares = Array.from({ length: n }, () => ({
    load: 0,
    tickers: [] as { ticker: string; n: number }[],
  }));
  for (const row of [...perTicker].sort((a, b) => b.n - a.n || (a.ticker < b.ticker ? -1 : 1))) {
    const least = shares.reduce((min, share) => (share.load < min.load ? share : min));
    least.tickers.push(row);
    least.load += row.n;
  }
  return shares.map((share) =>
    share.tickers.sort((a, b) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0)),
  );
}
