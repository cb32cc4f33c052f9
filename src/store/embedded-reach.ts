/**
 * Places PostgreSQL's binaries and cluster where its unprivileged user (embedded-user.ts) can reach them
 * when the installation or DATA_DIR sits under a private directory (a clone in /root, 0700), without
 * opening that directory: a verified copy of the binaries, and the cluster kept in the state directory
 * with a marker in DATA_DIR naming it. See docs/EMBEDDED-POSTGRES.md ("Installations and DATA_DIRs
 * PostgreSQL's user cannot reach").
 *
 * Everything placed here is run or trusted by root's service, so a local user must not be able to plant
 * or swap it: the state directory and the binaries' copy are root's and writable by nobody else, checked
 * with lstat (no link followed) at every start; copies are built in a private sibling and renamed into
 * place, so a concurrent start sees a complete copy or none.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { canEnter, EmbeddedPostgresError, type RunAs } from './embedded-user.ts';

/** Root's default state directory for the embedded PostgreSQL. */
export const STATE_DIR = '/var/lib/market-intel';
/** In DATA_DIR: the path of its cluster when that is kept in the state directory. */
export const CLUSTER_MARKER = 'postgres.location';
/** The cluster's directory under DATA_DIR when PostgreSQL's user can reach DATA_DIR. */
const CLUSTER_DIR = 'postgres';
const CLUSTERS = 'clusters';
/** 128 bits of the hash: the cluster's socket path stays well within the 107-byte limit. */
const NAME_LENGTH = 32;

export class UnsafeStateDirError extends EmbeddedPostgresError {}

/**
 * The package directory (holding `native/`) whose binaries `runAs`'s user can run: the installed one
 * when reachable, else a verified copy in `stateDir`, made on first need.
 */
export function reachableBinaries(
  packageDir: string,
  runAs: RunAs,
  stateDir: string,
  log: (line: string) => void,
): string {
  if (runAs.mode !== 'user' || canEnter(runAs, path.join(packageDir, 'native', 'bin'))) return packageDir;
  const version = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version;
  const copy = path.join(stateDir, `postgres-${version}-${treeHash(path.join(packageDir, 'native'))}`);
  makeRootDir(stateDir);
  if (!fs.existsSync(copy)) {
    if (buildCopy(packageDir, copy))
      log(`copied the PostgreSQL binaries to ${copy}: ${runAs.name} cannot reach ${packageDir}`);
  }
  verifyTree(copy);
  return copy;
}

/** The regular files' relative paths and contents (links are derived from pg-symlinks.json). */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const paths = files.map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
  for (const file of paths) hash.update(`${file}\0`).update(fs.readFileSync(path.join(dir, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Copies native/ into a private sibling, closes it to writers, renames it into place. False if beaten. */
function buildCopy(packageDir: string, copy: string): boolean {
  const staging = fs.mkdtempSync(`${copy}.tmp-`); // 0700 until complete
  try {
    fs.cpSync(path.join(packageDir, 'native'), path.join(staging, 'native'), {
      recursive: true,
      filter: (source) => !fs.lstatSync(source).isSymbolicLink(),
    });
    for (const file of [staging, ...walk(staging)]) {
      const stat = fs.lstatSync(file);
      fs.lchownSync(file, 0, 0);
      if (!stat.isSymbolicLink()) fs.chmodSync(file, stat.isDirectory() ? 0o755 : stat.mode & 0o755);
    }
    restoreLibraryLinks(staging);
    fs.renameSync(staging, copy);
    return true;
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && fs.existsSync(copy)) return false;
    throw error;
  }
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map((entry) => path.join(dir, String(entry)));
}

/** Refuses a copy any of whose files is not root's or is writable by others (links: their owner). */
function verifyTree(copy: string): void {
  verifyRootDir(copy);
  for (const file of walk(copy)) {
    const stat = fs.lstatSync(file);
    if (stat.uid !== 0 || (!stat.isSymbolicLink() && stat.mode & 0o022)) {
      throw unsafe(copy, `${file} is owned by uid ${stat.uid}, mode ${octal(stat.mode & 0o7777)}`);
    }
  }
}

/**
 * Where DATA_DIR's cluster is, for a process that does not hold DATA_DIR's lock (a command attaching to
 * a running server): the marker's path, else DATA_DIR/postgres.
 */
export function locateCluster(dataDir: string, stateDir: string): string {
  return readMarker(dataDir, stateDir) ?? path.join(dataDir, CLUSTER_DIR);
}

/**
 * Where DATA_DIR's cluster is, deciding it on first need, under DATA_DIR's lock: DATA_DIR/postgres when
 * `runAs`'s user can reach DATA_DIR, else `stateDir/clusters/<hash of DATA_DIR's real path>` named by a
 * marker in DATA_DIR. A cluster an earlier version left in a private DATA_DIR is moved there.
 */
export function placeCluster(
  dataDir: string,
  runAs: RunAs,
  stateDir: string,
  log: (line: string) => void,
): string {
  const inside = path.join(dataDir, CLUSTER_DIR);
  const marked = readMarker(dataDir, stateDir);
  if (marked) makeRootDir(path.dirname(marked));
  if (marked || runAs.mode !== 'user' || canEnter(runAs, dataDir)) return marked ?? inside;
  const name = createHash('sha256').update(fs.realpathSync(dataDir)).digest('hex').slice(0, NAME_LENGTH);
  const cluster = path.join(stateDir, CLUSTERS, name);
  makeRootDir(path.dirname(cluster));
  if (fs.existsSync(path.join(inside, 'PG_VERSION')) && !fs.existsSync(cluster)) {
    log(`moving the PostgreSQL cluster ${inside} to ${cluster}`);
    moveTree(inside, cluster);
  }
  const marker = path.join(dataDir, CLUSTER_MARKER);
  fs.writeFileSync(`${marker}.tmp`, `${cluster}\n`, { mode: 0o600 });
  fs.renameSync(`${marker}.tmp`, marker);
  log(
    `${runAs.name} cannot reach DATA_DIR ${dataDir}: its PostgreSQL cluster is ${cluster} (named in ${marker})`,
  );
  return cluster;
}

function readMarker(dataDir: string, stateDir: string): string | null {
  const marker = path.join(dataDir, CLUSTER_MARKER);
  let named: string;
  try {
    named = fs.readFileSync(marker, 'utf8').trim();
  } catch {
    return null;
  }
  const expected = new RegExp(`^[0-9a-f]{${NAME_LENGTH}}$`);
  if (path.dirname(named) !== path.join(stateDir, CLUSTERS) || !expected.test(path.basename(named))) {
    throw new EmbeddedPostgresError(
      `${marker} names ${named}, not a cluster in ${path.join(stateDir, CLUSTERS)}: restore it or remove it`,
    );
  }
  return named;
}

/** A rename within a file system; across file systems, a copy renamed into place, then the original removed. */
function moveTree(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  const staging = `${to}.moving-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.cpSync(from, staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  fs.renameSync(staging, to);
  fs.rmSync(from, { recursive: true, force: true });
}

/** Creates `dir` and its missing parents (0755, root's), then verifies the whole path. */
function makeRootDir(dir: string): void {
  const first = fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  // Whatever the umask: PostgreSQL's user needs passage through the new ones.
  if (first) {
    for (let made = dir; made.startsWith(first); made = path.dirname(made)) fs.chmodSync(made, 0o755);
  }
  verifyRootDir(dir);
}

/**
 * Each component of `dir`, from /, is a real directory owned by root and writable by no one else; an
 * ancestor may be world-writable if sticky (/tmp), where others cannot rename root's entries.
 */
function verifyRootDir(dir: string): void {
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const prefix = `/${parts.slice(0, i).join('/')}`;
    const stat = fs.lstatSync(prefix);
    const writable = stat.mode & 0o022 && !(i < parts.length && stat.mode & 0o1000);
    if (!stat.isDirectory() || stat.uid !== 0 || writable) {
      const what = stat.isSymbolicLink()
        ? 'a symbolic link'
        : `owned by uid ${stat.uid}, mode ${octal(stat.mode & 0o7777)}`;
      throw unsafe(dir, `${prefix} is ${what}`);
    }
  }
}

function unsafe(dir: string, why: string): UnsafeStateDirError {
  return new UnsafeStateDirError(
    `refusing ${dir}: ${why}. Everything there must be root's and writable by root alone, or another ` +
      'user could plant what the service runs; remove it and start again',
  );
}

const octal = (mode: number) => `0${mode.toString(8)}`;

/**
 * The package lists the shared-library links its binaries need (`libpq.so.5` → `libpq.so.5.18`…) in
 * native/pg-symlinks.json; npm tarballs cannot hold them. Creates the missing ones; idempotent.
 */
export function restoreLibraryLinks(packageDir: string): number {
  let entries: { source: string; target: string }[];
  try {
    entries = JSON.parse(fs.readFileSync(path.join(packageDir, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return 0;
  }
  let created = 0;
  for (const { source, target } of entries) {
    const link = path.join(packageDir, target);
    const want = path.relative(path.dirname(link), path.join(packageDir, source));
    let current: string | null = null;
    try {
      current = fs.readlinkSync(link);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EINVAL') continue; // a regular file already: leave it
      if (code !== 'ENOENT') throw error;
    }
    if (current === want) continue;
    if (current !== null) fs.unlinkSync(link);
    try {
      fs.symlinkSync(want, link);
      created += 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // a concurrent start made it
    }
  }
  return created;
}
