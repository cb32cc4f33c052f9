import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export class DataDirBusyError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded database in ${dir} is in use by another market-intel process (pid ${pid}). ` +
        'PGlite is single-process: stop that server first, or make the change through the admin API ' +
        '(/api/v1/admin/…) of the running server.',
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims the PGlite directory for this process. A lock left by a dead process is taken over;
 * a live owner makes this fail at once rather than corrupt the files or wait.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, 'market-intel.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirBusyError(dir, owner);
      }
      await rm(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}
