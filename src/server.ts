import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import type { LimiterChannel } from './infra/ipc-limiter.ts';
import type { RateLimiter } from './infra/limiter.ts';
import { startAnnouncementPoller } from './pipeline/live-scheduler.ts';
import { type Scheduler, startIngestScheduler } from './pipeline/scheduler.ts';
import { prepare, progress } from './prepare.ts';
import type { Db } from './store/db.ts';
import { openDb } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { DeliveryWorker } from './webhooks/worker.ts';

export interface ServeOptions {
  /** Seeds the demo data into an empty database (the default for `npm start`). */
  seedIfEmpty: boolean;
  /**
   * Delivers webhooks and runs the ingest schedule — in this process, or in one worker of a cluster
   * (false for `serve --no-worker`).
   */
  worker: boolean;
}

/** Opens storage, migrates, seeds an empty database, listens, and shuts down cleanly on SIGINT/SIGTERM. */
export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const db: Db = await openDb(config, { log: progress });
  await prepare(db, config, options);
  await listen(config, db, { background: options.worker });
}

export interface ListenOptions {
  /** Delivers webhooks and runs the ingest schedule in this process (one process of a cluster). */
  background: boolean;
  /** Used instead of the app's own limiter (a cluster worker's IPC limiter); closed at shutdown. */
  limiter?: RateLimiter;
  /** A cluster worker's channel to the primary, for the instance's /metrics. */
  clusterChannel?: LimiterChannel;
}

/**
 * Builds the app on a prepared `db`, listens, starts the background work when asked, and on
 * SIGINT/SIGTERM stops it, drains the requests in flight, closes `db` and exits 0.
 */
export async function listen(config: Config, db: Db, options: ListenOptions): Promise<void> {
  const app = await buildApp({
    config,
    // Requests and webhook deliveries never wait on a statement past QUERY_TIMEOUT_MS; the scheduled
    // ingest below, and the admin API's, run without that deadline.
    db: db.withDeadline(config.queryTimeoutMs),
    limiter: options.limiter,
    clusterChannel: options.clusterChannel,
    webhooks: { worker: options.background },
  });
  let closing = false;
  let scheduler: Scheduler | null = null;
  let poller: Scheduler | null = null;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    try {
      await scheduler?.stop();
      await poller?.stop();
      await app.close();
      await options.limiter?.close();
      await db.close();
    } finally {
      clearTimeout(timer);
      process.exit(0);
    }
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  // Scheduled ingest is background work: it runs where the worker runs, not on `serve --no-worker`.
  if (options.background && !closing) {
    scheduler = startIngestScheduler(
      db,
      config,
      {
        info: (message) => app.log.info(message),
        error: (message) => app.log.error(message),
      },
      (counts) => app.metrics.ingested('schedule', counts),
    );
    poller = startAnnouncementPoller(db, config, logger(app.log), { metrics: app.metrics.announcements });
    app.log.info(
      { ingestSchedule: scheduler !== null, announcementsLive: poller !== null },
      'webhook delivery runs in this process',
    );
  }
}

/**
 * The `worker` role: only the webhook delivery worker, no HTTP. In cluster mode any number run beside
 * `serve --no-worker` instances. SIGINT/SIGTERM stop claiming and wait for the attempts in flight.
 */
export async function runWorker(config: Config): Promise<void> {
  const db: Db = await openDb(config, { log: progress });
  const { default: pino } = await import('pino');
  const log = pino({ level: config.logLevel });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const worker = new DeliveryWorker({ db: db.withDeadline(config.queryTimeoutMs), config, log });
  await worker.start();
  const poller = startAnnouncementPoller(db, config, logger(log));
  log.info({ pid: process.pid }, 'webhook worker started');
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'webhook worker stopping');
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  const timer = setTimeout(() => process.exit(1), 2 * config.webhookTimeoutMs + 5_000).unref();
  await worker.stop();
  await poller?.stop();
  await db.close();
  clearTimeout(timer);
}

/** A pino logger as the schedulers log: one line a message. */
function logger(log: {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}): { info(message: string): void; warn(message: string): void; error(message: string): void } {
  return {
    info: (message) => log.info(message),
    warn: (message) => log.warn(message),
    error: (message) => log.error(message),
  };
}
