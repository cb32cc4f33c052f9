import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The embedded database holds API key hashes, sessions and webhook secrets: only the service's own
 * user may read it. Directories are kept at 0700 and files at 0600.
 *
 * A umask cannot do this. PGlite's file system sets each file's mode itself with chmod, not through
 * the umask: the files its initdb lays down come out 0666 under any umask. So the tree is tightened
 * explicitly, once the database has opened (after initdb) and again after it closes (files written
 * while it ran). Between the two, the 0700 directory already keeps other users out.
 */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Creates `dir` at 0700, or tightens it to 0700 when it exists with a looser mode. */
export async function makePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  tighten(dir, DIR_MODE);
}

/**
 * `dir` and every directory under it to 0700, every file to 0600; symbolic links are left alone.
 * Synchronous: it runs only while nothing else is served (right after opening, right after closing),
 * and a thousand `lstat`s run several times faster in a loop than through the thread pool.
 */
export function restrictTree(dir: string): void {
  tighten(dir, DIR_MODE);
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory() || entry.isFile()) {
      tighten(path.join(entry.parentPath, entry.name), entry.isDirectory() ? DIR_MODE : FILE_MODE);
    }
  }
}

/** Only removes permissions: a read-only file stays read-only. A file gone meanwhile needs nothing. */
function tighten(file: string, allowed: number): void {
  try {
    const mode = lstatSync(file).mode & 0o777;
    if (mode & ~allowed) chmodSync(file, mode & allowed);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
