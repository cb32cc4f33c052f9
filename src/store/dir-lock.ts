import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export class DataDirBusyError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded PostgreSQL in ${dir} is run by another market-intel server (pid ${pid}): stop that ` +
        'server first, or use another DATA_DIR. One-off commands (migrate, users, ingest…) connect to it ' +
        'while it runs.',
    );
  }
}

/** The lock files this process holds. */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims a data directory for this process: it then starts and stops the embedded server there. A lock
 * left by a dead process is taken over; a live owner makes this fail at once rather than wait.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, 'market-intel.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      held.add(file);
      return async () => {
        held.delete(file);
        await rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      // Our own pid in a lock this process does not hold: a dead process's, its pid reused.
      const ours = owner === process.pid && !held.has(file);
      if (Number.isInteger(owner) && owner > 0 && !ours && alive(owner)) {
        throw new DataDirBusyError(dir, owner);
      }
      await rm(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}
