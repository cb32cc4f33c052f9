import {
  type BackoffDecision,
  type BackoffPolicy,
  type LimitDecision,
  type LimiterState,
  LimiterUnavailableError,
  type RateLimiter,
} from './limiter.ts';
import type { MemoryLimiter } from './memory-limiter.ts';

/**
 * The rate limiter of `serve --workers N` without Redis: the primary process holds the one
 * MemoryLimiter and every worker asks it over the cluster's IPC channel, so a key's window is counted
 * once however many workers serve it, exactly as in a single process (the primary decides one request
 * at a time, in arrival order).
 *
 * Messages are JSON arrays, cheaper to encode than objects, led by LIMITER_TAG so both ends tell them
 * from other IPC traffic:
 *   request  [tag, id, HIT, bucket, limit, windowMs, now|null]
 *            [tag, id, BACKOFF, bucket, free, baseMs, maxMs, windowMs, now|null, peek 0|1]
 *            [tag, id, RESET, bucket]
 *   reply    HIT [tag, id, allowed 0|1, remaining, resetAt]; BACKOFF [tag, id, allowed 0|1, retryAt];
 *            RESET [tag, id, 1]; a failure [tag, id, -1, message]
 * `now` null means the primary's clock (one machine, one clock).
 *
 * Requests made in one turn of a worker's event loop travel as one batch, `[BATCH_TAG, request…]`,
 * answered by one `[BATCH_TAG, reply…]` in the same order; the primary still decides them one by one,
 * in arrival order. Why: docs/EVALUATION.md#ipc-limiter-batches
 */
export const LIMITER_TAG = 'mi:rl';
export const LIMITER_BATCH_TAG = 'mi:rl*';

const HIT = 0;
const BACKOFF = 1;
const RESET = 2;
const FAILED = -1;

/** A worker's end of the channel: `processChannel()` in a cluster worker, a pair of fakes in tests. */
export interface LimiterChannel {
  send(message: unknown): void;
  /** false once the channel has closed: nothing sent would arrive. */
  readonly connected: boolean;
  /** Subscribes to incoming messages and to the channel's end; returns the unsubscribe. */
  listen(onMessage: (message: unknown) => void, onClose: () => void): () => void;
}

/**
 * A failed write needs no handling of its own: its call times out (or the channel's end fails it).
 * Without a callback the failure would be an 'error' event on `process`, fatal with no listener.
 */
const ignoreSendError = () => {};

/** This process's IPC channel to its parent (the cluster primary). */
export function processChannel(): LimiterChannel {
  if (!process.send) throw new Error('no IPC channel: this process was not forked');
  return {
    send: (message) => process.send?.(message, undefined, undefined, ignoreSendError),
    get connected() {
      return process.connected;
    },
    listen(onMessage, onClose) {
      process.on('message', onMessage);
      process.on('disconnect', onClose);
      return () => {
        process.off('message', onMessage);
        process.off('disconnect', onClose);
      };
    },
  };
}

export interface IpcLimiterOptions {
  /** How long a call waits for the primary before it fails with LimiterUnavailableError (default 1 s). */
  timeoutMs?: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** performance.now() after which the call fails. */
  deadline: number;
  op: number;
  /** hit(): the limit asked for, which the reply leaves out. */
  limit: number;
}

/**
 * A worker's RateLimiter: each call is one request to the primary, matched to its reply by id. Calls
 * that get no answer within the timeout, or that are made once the channel has closed, fail with
 * LimiterUnavailableError (a 503): fail closed, never hang. One interval timer expires them all, so a
 * call costs no timer of its own.
 */
export class IpcLimiter implements RateLimiter {
  readonly #channel: LimiterChannel;
  readonly #timeoutMs: number;
  /** Insertion order is deadline order (one timeout for all), so expiry stops at the first live call. */
  readonly #pending = new Map<number, Pending>();
  readonly #timer: NodeJS.Timeout;
  readonly #unlisten: () => void;
  readonly #tickMs: number;
  #lastTick = performance.now();
  #nextId = 0;
  #closed = false;
  #channelLost = false;
  /** Requests of this turn of the event loop, sent together by #flush. */
  #outbox: unknown[][] = [];
  #flushing: NodeJS.Immediate | null = null;

  constructor(channel: LimiterChannel, options: IpcLimiterOptions = {}) {
    this.#channel = channel;
    this.#timeoutMs = options.timeoutMs ?? 1000;
    this.#unlisten = channel.listen(
      (message) => this.#answer(message),
      () => {
        this.#channelLost = true;
        this.#failAll('the cluster primary closed the channel');
      },
    );
    this.#tickMs = Math.max(5, this.#timeoutMs / 4);
    this.#timer = setInterval(() => this.#expire(), this.#tickMs);
    this.#timer.unref();
  }

  state(): LimiterState {
    return this.#closed || this.#channelLost
      ? { ok: false, store: 'cluster primary', detail: 'the channel to the cluster primary is closed' }
      : { ok: true, store: 'cluster primary' };
  }

  /** Calls waiting for their reply. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  hit(bucket: string, limit: number, windowMs: number, now?: number): Promise<LimitDecision> {
    const id = this.#id();
    return this.#ask(id, HIT, limit, [LIMITER_TAG, id, HIT, bucket, limit, windowMs, now ?? null]);
  }

  backoff(bucket: string, policy: BackoffPolicy, now?: number, peek = false): Promise<BackoffDecision> {
    const id = this.#id();
    const { free, baseMs, maxMs, windowMs } = policy;
    const message = [
      LIMITER_TAG,
      id,
      BACKOFF,
      bucket,
      free,
      baseMs,
      maxMs,
      windowMs,
      now ?? null,
      peek ? 1 : 0,
    ];
    return this.#ask(id, BACKOFF, 0, message);
  }

  reset(bucket: string): Promise<void> {
    const id = this.#id();
    return this.#ask(id, RESET, 0, [LIMITER_TAG, id, RESET, bucket]);
  }

  /** Stops listening; calls still waiting fail with LimiterUnavailableError. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    clearInterval(this.#timer);
    if (this.#flushing) clearImmediate(this.#flushing);
    this.#outbox = [];
    this.#unlisten();
    this.#failAll('the rate limiter is closed');
    return Promise.resolve();
  }

  #id(): number {
    // Small integers are the cheapest Map keys; wrapping is safe long before 2^30 calls are in flight.
    this.#nextId = (this.#nextId + 1) & 0x3fffffff;
    return this.#nextId;
  }

  #ask<T>(id: number, op: number, limit: number, message: unknown[]): Promise<T> {
    if (this.#closed) return Promise.reject(new LimiterUnavailableError('the rate limiter is closed'));
    // Checked first: sending on a closed channel would raise an 'error' event instead of throwing.
    if (!this.#channel.connected) {
      return Promise.reject(
        new LimiterUnavailableError('the rate limiter is unavailable: the cluster primary is gone'),
      );
    }
    const deadline = performance.now() + this.#timeoutMs;
    // While calls wait, their deadline keeps the process alive, as a timer of their own would.
    if (this.#pending.size === 0) this.#timer.ref();
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, deadline, op, limit });
      this.#outbox.push(message);
      // After this turn's I/O callbacks: every request they made goes in the same message.
      this.#flushing ??= setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    this.#flushing = null;
    const outbox = this.#outbox;
    this.#outbox = [];
    // A closed channel has failed the calls already (onClose), and sending would raise an 'error' event.
    if (outbox.length === 0 || !this.#channel.connected) return;
    this.#channel.send(outbox.length === 1 ? outbox[0] : [LIMITER_BATCH_TAG, ...outbox]);
  }

  #answer(message: unknown): void {
    if (!Array.isArray(message)) return;
    if (message[0] === LIMITER_BATCH_TAG) {
      for (let i = 1; i < message.length; i++) this.#answerOne(message[i]);
    } else this.#answerOne(message);
  }

  #answerOne(message: unknown): void {
    if (!Array.isArray(message) || message[0] !== LIMITER_TAG) return;
    const id = message[1] as number;
    const pending = this.#pending.get(id);
    // Unknown: its call timed out already; the primary's late decision stands, the caller saw a 503.
    if (!pending) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#timer.unref();
    const status = message[2] as number;
    if (status === FAILED) {
      pending.reject(new Error(`the cluster primary's rate limiter failed: ${String(message[3])}`));
    } else if (pending.op === HIT) {
      const decision: LimitDecision = {
        allowed: status === 1,
        limit: pending.limit,
        remaining: message[3] as number,
        resetAt: message[4] as number,
      };
      pending.resolve(decision);
    } else if (pending.op === BACKOFF) {
      const decision: BackoffDecision = { allowed: status === 1, retryAt: message[3] as number };
      pending.resolve(decision);
    } else {
      pending.resolve(undefined);
    }
  }

  #expire(): void {
    const now = performance.now();
    const late = now - this.#lastTick > 2 * this.#tickMs;
    this.#lastTick = now;
    // This process was blocked (a long task, a GC pause): replies may be waiting unread behind this
    // timer. They are read before the next tick, which then expires only what is really unanswered.
    if (late) return;
    for (const [id, pending] of this.#pending) {
      if (pending.deadline > now) break;
      this.#pending.delete(id);
      pending.reject(
        new LimiterUnavailableError(
          `the rate limiter did not answer within ${this.#timeoutMs} ms (cluster primary busy or stuck)`,
        ),
      );
    }
    if (this.#pending.size === 0) this.#timer.unref();
  }

  #failAll(reason: string): void {
    const error = new LimiterUnavailableError(`the rate limiter is unavailable: ${reason}`);
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#timer.unref();
  }
}

/** Where the host sends a reply: a cluster Worker in the primary. */
export interface LimiterPeer {
  send(message: unknown): unknown;
  isConnected(): boolean;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const nowOf = (value: unknown): number => (isNumber(value) ? value : Date.now());

/**
 * The primary's side: answers the workers' requests from one MemoryLimiter, synchronously, in the
 * order they arrive, so every worker sees the same windows.
 */
export class LimiterHost {
  readonly limiter: MemoryLimiter;
  /** Reused for every backoff request: backoffSync() does not keep it. */
  readonly #policy: BackoffPolicy = { free: 0, baseMs: 0, maxMs: 0, windowMs: 0 };

  constructor(limiter: MemoryLimiter) {
    this.limiter = limiter;
  }

  /**
   * Answers `message` to `peer` when it is a limiter request or a batch of them (one reply, or one
   * batch of replies in the same order); false when it is some other message.
   */
  handle(message: unknown, peer: LimiterPeer): boolean {
    if (!Array.isArray(message)) return false;
    let reply: unknown[] | null;
    if (message[0] === LIMITER_BATCH_TAG) {
      reply = [LIMITER_BATCH_TAG];
      for (let i = 1; i < message.length; i++) {
        const one = this.#answer(message[i]);
        if (one) reply.push(one);
      }
    } else if (message[0] === LIMITER_TAG) reply = this.#answer(message);
    else return false;
    // A worker that has gone no longer waits for its answer; sending would raise an 'error' event.
    if (reply && peer.isConnected()) peer.send(reply);
    return true;
  }

  close(): Promise<void> {
    return this.limiter.close();
  }

  /** The reply to one request; null when it has no usable id (nobody to answer). */
  #answer(message: unknown): unknown[] | null {
    if (!Array.isArray(message) || message[0] !== LIMITER_TAG) return null;
    const id = message[1];
    if (!isNumber(id)) return null;
    try {
      return this.#decide(id, message);
    } catch (error) {
      return [LIMITER_TAG, id, FAILED, error instanceof Error ? error.message : String(error)];
    }
  }

  #decide(id: number, message: unknown[]): unknown[] {
    const op = message[2];
    const bucket = message[3];
    if (typeof bucket !== 'string') throw new TypeError('bucket must be a string');
    if (op === HIT) {
      const limit = message[4];
      const windowMs = message[5];
      if (!isNumber(limit) || !isNumber(windowMs)) throw new TypeError('limit and window must be numbers');
      const d = this.limiter.hitSync(bucket, limit, windowMs, nowOf(message[6]));
      return [LIMITER_TAG, id, d.allowed ? 1 : 0, d.remaining, d.resetAt];
    }
    if (op === BACKOFF) {
      const free = message[4];
      const baseMs = message[5];
      const maxMs = message[6];
      const windowMs = message[7];
      if (!isNumber(free) || !isNumber(baseMs) || !isNumber(maxMs) || !isNumber(windowMs)) {
        throw new TypeError('the backoff policy must be numbers');
      }
      const policy = this.#policy;
      policy.free = free;
      policy.baseMs = baseMs;
      policy.maxMs = maxMs;
      policy.windowMs = windowMs;
      const d = this.limiter.backoffSync(bucket, policy, nowOf(message[8]), message[9] === 1);
      return [LIMITER_TAG, id, d.allowed ? 1 : 0, d.retryAt];
    }
    if (op === RESET) {
      this.limiter.resetSync(bucket);
      return [LIMITER_TAG, id, 1];
    }
    throw new TypeError(`unknown limiter operation ${String(op)}`);
  }
}
