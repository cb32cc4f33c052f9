import type { Config } from '../config.ts';
import type { AttemptOutcome } from '../infra/metrics.ts';
import type { Db } from '../store/db.ts';
import { acquireBus } from '../store/notifications.ts';
import {
  type Claimed,
  claimDue,
  DELIVERY_CHANNEL,
  type EndpointPolicy,
  finishAttempt,
  type Outcome,
  SUSPENDED_ERROR,
} from '../store/webhooks.ts';
import { Sender } from './delivery.ts';
import { deliveryBody, eventIdOf } from './outbox.ts';
import { openSecret } from './secrets.ts';
import { type HostResolver, systemResolver, TargetPolicy } from './target.ts';

export interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WorkerOptions {
  db: Db;
  config: Config;
  log?: WorkerLog;
  resolve?: HostResolver;
  /** Attempts this worker sends at once, not counting those in the slow lane (default 16). */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint, across workers (default 4; 1 while it is failing). */
  endpointConcurrency?: number;
  /** How often an idle worker looks for due deliveries (default 250 ms). */
  pollMs?: number;
  /** Counts each attempt by outcome (the app's /metrics; absent for the `worker` role). */
  metrics?: { webhookAttempt(outcome: AttemptOutcome, seconds: number): void };
}

/** How an attempt ended, for the metrics: its status, else what its error says. */
export function attemptOutcome(result: {
  ok: boolean;
  sent: boolean;
  statusCode: number | null;
  error: string | null;
}): AttemptOutcome {
  if (result.ok) return 'succeeded';
  if (!result.sent || result.error?.startsWith('refused')) return 'refused';
  if (result.statusCode !== null) return 'http_error';
  if (result.error?.startsWith('timeout')) return 'timeout';
  return 'connection_error';
}

const silent: WorkerLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * A claim outlives the longest attempt (the timeout) by a margin for recording its outcome; after it, a
 * delivery whose worker died is due again.
 */
export const leaseMs = (timeoutMs: number): number => 2 * timeoutMs + 1_000;

/**
 * An attempt still waiting for its receiver after this long gives its slot back and waits in the slow
 * lane, so receivers that hang until the timeout cannot use up the slots healthy ones need.
 */
export const SLOW_AFTER_MS = 1_000;
/** The slow lane holds at most this many times `concurrency` attempts; when full, nothing new is claimed. */
const SLOW_LANE_FACTOR = 4;

/**
 * The delivery worker: claims due deliveries (FOR UPDATE SKIP LOCKED, so any number of workers share
 * the outbox and never send one delivery twice at once), sends each signed, and records the outcome:
 * succeeded, retried after the configured schedule, or failed after the last attempt.
 * Delivery is at least once: a worker killed mid-send leaves its claim to expire, and the receiver may
 * then see the same X-Service-Delivery id again.
 */
export class DeliveryWorker {
  private readonly sender: Sender;
  /** Every attempt in flight; `fast` are those holding one of the `concurrency` slots. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly fast = new Set<Promise<void>>();
  private readonly log: WorkerLog;
  private readonly concurrency: number;
  private readonly policy: EndpointPolicy;
  /** The loop found no free slot: a finishing attempt wakes it. */
  private full = false;
  private readonly pollMs: number;
  private readonly maxAttempts: number;
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  /** A wake-up that came while the loop was busy: the next sleep returns at once. */
  private woken = false;
  /** Stops listening and lets the process's bus go. */
  private unlisten: (() => Promise<void>) | null = null;

  constructor(private readonly options: WorkerOptions) {
    const { config } = options;
    this.sender = new Sender({
      policy: new TargetPolicy(config.webhookAllowCidrs),
      resolve: options.resolve ?? systemResolver,
      timeoutMs: config.webhookTimeoutMs,
      caFile: config.webhookCaFile,
    });
    this.log = options.log ?? silent;
    this.concurrency = options.concurrency ?? 16;
    this.policy = {
      concurrency: options.endpointConcurrency ?? 4,
      scheduleMs: config.webhookRetryScheduleMs,
      suspendAfterMs: config.webhookSuspendAfterMs,
    };
    this.pollMs = options.pollMs ?? 250;
    this.maxAttempts = config.webhookRetryScheduleMs.length + 1;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.options.db.url) await this.listen(this.options.db.url);
    this.loop = this.run();
  }

  /** Stops claiming, waits for the attempts in flight to be sent and recorded, closes connections. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    await this.sender.close();
    await this.unlisten?.();
  }

  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  private async run(): Promise<void> {
    const lease = leaseMs(this.options.config.webhookTimeoutMs);
    let failures = 0;
    const slowCapacity = SLOW_LANE_FACTOR * this.concurrency;
    const freeSlots = () =>
      this.inFlight.size - this.fast.size < slowCapacity ? this.concurrency - this.fast.size : 0;
    while (this.running) {
      const free = freeSlots();
      let claimed: Claimed[] = [];
      if (free > 0) {
        try {
          claimed = await claimDue(this.options.db, free, lease, this.policy.concurrency);
          failures = 0;
        } catch (error) {
          failures += 1;
          this.log.error({ err: error }, 'webhook worker: claiming deliveries failed');
        }
      }
      for (const job of claimed) this.track(this.deliver(job));
      // A full batch means more may be due; otherwise wait for the poll, a notification or a free slot.
      this.full = freeSlots() <= 0;
      if (claimed.length === 0 || claimed.length < free || this.full) {
        await this.sleep(this.pollMs * Math.min(2 ** failures, 40));
      }
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    this.fast.add(work);
    const slow = setTimeout(() => {
      // Into the slow lane: the slot is free for another attempt.
      if (this.fast.delete(work) && this.full) this.wake();
    }, SLOW_AFTER_MS);
    void work.finally(() => {
      clearTimeout(slow);
      this.inFlight.delete(work);
      this.fast.delete(work);
      if (this.full) this.wake();
    });
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || !this.running) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        finish();
      };
    });
  }

  private async deliver(job: Claimed): Promise<void> {
    const result = await this.attempt(job);
    this.options.metrics?.webhookAttempt(attemptOutcome(result), result.durationMs / 1000);
    const refused = job.webhook_disabled || job.webhook_suspended;
    const last = refused || job.attempts >= this.maxAttempts;
    const schedule = this.options.config.webhookRetryScheduleMs;
    const outcome: Outcome = {
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      error: result.error,
      next: result.ok ? 'succeeded' : last ? 'failed' : 'pending',
      retryInMs: schedule[Math.min(job.attempts, schedule.length) - 1] ?? 0,
      reachedEndpoint: !refused && result.sent,
    };
    try {
      const finished = await finishAttempt(this.options.db, job, outcome, this.policy);
      if (!finished.moved)
        this.log.warn(
          { delivery: job.id },
          'webhook worker: claim superseded; outcome kept in attempts only',
        );
      if (finished.suspended)
        this.log.warn(
          { webhook: job.webhook_id, failedInARow: finished.streak },
          'webhook worker: endpoint suspended after failing continuously; its owner can re-enable it',
        );
    } catch (error) {
      // The claim expires and the delivery is attempted again: at least once, never lost.
      this.log.error({ err: error, delivery: job.id }, 'webhook worker: recording an attempt failed');
    }
  }

  /** One attempt; `sent` is false when it was refused before anything went to the receiver. */
  private async attempt(job: Claimed) {
    const refused = (error: string) => ({ ok: false, sent: false, statusCode: null, error, durationMs: 0 });
    if (job.webhook_disabled) return refused('webhook deleted');
    if (job.webhook_suspended) return refused(SUSPENDED_ERROR);
    let secrets: string[];
    try {
      const { secretKey } = this.options.config;
      // The previous secret comes only while its overlap window lasts (claimDue).
      const sealed = job.previous_secret === null ? [job.secret] : [job.secret, job.previous_secret];
      secrets = sealed.map((stored) => openSecret(stored, job.webhook_id, secretKey));
    } catch (error) {
      return refused((error as Error).message);
    }
    const result = await this.sender.send({
      url: job.url,
      event: job.event,
      deliveryId: job.id,
      eventId: eventIdOf(job.payload, job.id),
      secrets,
      body: deliveryBody(job.payload, job.id),
    });
    return { ...result, sent: true };
  }

  /**
   * PostgreSQL: deliveries committed by any process wake this worker at once, through the process's
   * notification bus (polling remains the net while it reconnects).
   */
  private async listen(url: string): Promise<void> {
    const { bus, release } = acquireBus(url, this.log);
    const unsubscribe = bus.subscribe(DELIVERY_CHANNEL, () => this.wake());
    this.unlisten = async () => {
      unsubscribe();
      await release();
    };
    await bus.start();
    if (!bus.healthy) this.log.warn({}, 'webhook worker: LISTEN unavailable; polling until it reconnects');
  }
}
