import type { Config } from './config.ts';
import { type Db, openDb } from './store/db.ts';

/** A run that could not finish for a reason outside the arguments (exit 1, message, no stack). */
export class CommandFailed extends Error {}

/** Progress and results of the commands go to stderr; stdout carries only what a script would read. */
export const say = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** The database of `config` for one command (embedded: attaching to a running server's), closed after. */
export async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb(config, { attach: true, log: say });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}
