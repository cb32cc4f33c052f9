import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { isEmpty, seed } from './pipeline/seed.ts';
import type { Db } from './store/db.ts';
import { openDb } from './store/db.ts';
import { migrate } from './store/migrate.ts';

export interface ServeOptions {
  /** Seeds the demo data into an empty database (the default for `npm start`). */
  seedIfEmpty: boolean;
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
  const app = await buildApp({ config, db });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    try {
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
}
