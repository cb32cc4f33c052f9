import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Scheduler, startIngestScheduler } from './pipeline/scheduler.ts';
import { isEmpty, seed } from './pipeline/seed.ts';
import type { Db } from './store/db.ts';
import { openDb } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { DeliveryWorker } from './webhooks/worker.ts';

export interface ServeOptions {
  /** Seeds the demo data into an empty database (the default for `npm start`). */
  seedIfEmpty: boolean;
  /** Runs the webhook delivery worker in this process (false for `serve --no-worker`). */
  worker: boolean;
}

/** Opens storage, migrates, seeds an empty database, listens, and shuts down cleanly on SIGINT/SIGTERM. */
export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const db: Db = await openDb(config);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const applied = await migrate(db);
    if (applied.length) log(`migrated: ${applied.join(', ')}`);
    if (options.seedIfEmpty && (await isEmpty(db))) {
      log('empty database: loading the demo data (runs once)');
      await seed(db, { signalThreshold: config.signalThreshold, log });
    }
  } catch (error) {
    await db.close();
    throw error;
  }
  const app = await buildApp({ config, db, webhooks: { worker: options.worker } });
  let closing = false;
  let scheduler: Scheduler | null = null;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    try {
      await scheduler?.stop();
      await app.close();
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
  if (options.worker && !closing) {
    scheduler = startIngestScheduler(db, config, {
      info: (message) => app.log.info(message),
      error: (message) => app.log.error(message),
    });
  }
}

/**
 * The `worker` role: only the webhook delivery worker, no HTTP. In cluster mode any number run beside
 * `serve --no-worker` instances. SIGINT/SIGTERM stop claiming and wait for the attempts in flight.
 */
export async function runWorker(config: Config): Promise<void> {
  const db: Db = await openDb(config);
  const { default: pino } = await import('pino');
  const log = pino({ level: config.logLevel });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const worker = new DeliveryWorker({ db, config, log });
  await worker.start();
  log.info({ mode: db.kind, pid: process.pid }, 'webhook worker started');
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
  await db.close();
  clearTimeout(timer);
}
