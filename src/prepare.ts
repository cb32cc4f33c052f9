/**
 * What a server does to its database before it serves: migrate, and load the demo data into an empty
 * one. Kept apart from the HTTP app, so that a cluster's primary, which runs this and serves nothing,
 * does not load the app.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CommandFailed } from './cli-errors.ts';
import type { Config } from './config.ts';
import { predictMissing } from './pipeline/predict.ts';
import type { Db } from './store/db.ts';
import { isEmpty, vacuumAnalyze } from './store/market.ts';
import { migrate } from './store/migrate.ts';

/** A server's progress lines before it logs as JSON: opening the database, migrating, seeding. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Migrates, and seeds an empty database when asked; closes `db` when either fails. */
export async function prepare(db: Db, config: Config, options: { seedIfEmpty: boolean }): Promise<void> {
  try {
    const applied = await migrate(db);
    if (applied.length) progress(`migrated: ${applied.join(', ')}`);
    if (options.seedIfEmpty && (await isEmpty(db))) {
      progress('empty database: loading the demo data (runs once)');
      await seedInChild(db.url, config);
      await settle(db);
    }
    // Stored events the prediction engine has not predicted yet (an upgrade, a new model version).
    const predicted = await predictMissing(db);
    if (predicted) progress(`predicted: ${predicted} announcement events`);
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * Vacuums and analyses the freshly loaded demo data while the first start waits anyway. Left to
 * autovacuum, every table the seed wrote met its thresholds at once, and its first round, a minute into
 * serving, took a core for up to a second: the answers due meanwhile waited (docs/EVALUATION.md, "The
 * first autovacuum after the seed"). Until then the planner also had no statistics for them.
 */
async function settle(db: Db): Promise<void> {
  const started = performance.now();
  await vacuumAnalyze(db);
  progress(`demo data vacuumed and analysed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const SEED_TIMEOUT_MS = 600_000;

/** The CLI's entry point: `serve` starts its seed and its cluster workers through it. */
export const CLI_BIN = fileURLToPath(new URL('../bin/market-intel.js', import.meta.url));

/**
 * `market-intel seed` in a process of its own, on this database: what the pipeline builds and keeps
 * (name indexes, engines' tables, about 100 MB) goes with it instead of staying in the server for its
 * whole life. Its progress lines go to our stderr.
 */
function seedInChild(databaseUrl: string, config: Config): Promise<void> {
  const child = spawn(process.execPath, [CLI_BIN, 'seed'], {
    // The demo data loads in seconds; a stuck load fails the start instead of holding it forever.
    timeout: SEED_TIMEOUT_MS,
    env: { ...process.env, DATABASE_URL: databaseUrl, SIGNAL_THRESHOLD: String(config.signalThreshold) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new CommandFailed(`loading the demo data failed (${signal ?? `exit ${code}`}); see above`));
    });
  });
}
