/**
 * What a server does to its database before it serves: migrate, and load the demo data into an empty
 * one. Kept apart from the HTTP app, so that a cluster's primary, which runs this and serves nothing,
 * does not load the app.
 */
import type { Config } from './config.ts';
import { isEmpty } from './pipeline/empty.ts';
import type { ServeOptions } from './server.ts';
import type { Db } from './store/db.ts';
import { migrate } from './store/migrate.ts';

/** Migrates, and seeds an empty database when asked; closes `db` when either fails. */
export async function prepare(
  db: Db,
  config: Config,
  options: Pick<ServeOptions, 'seedIfEmpty'>,
): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const applied = await migrate(db);
    if (applied.length) log(`migrated: ${applied.join(', ')}`);
    if (options.seedIfEmpty && (await isEmpty(db))) {
      log('empty database: loading the demo data (runs once)');
      // Loaded only here: the pipeline is most of a start's module loading, and later starts skip it.
      const { seed } = await import('./pipeline/seed.ts');
      await seed(db, { signalThreshold: config.signalThreshold, log });
    }
  } catch (error) {
    await db.close();
    throw error;
  }
}
