/**
 * Which host user the embedded PostgreSQL runs as. PostgreSQL refuses root, and it must not be root in
 * disguise either: a query that reaches the server's own powers (the superuser's `pg_read_file`,
 * `COPY … TO PROGRAM`) acts with the server process's uid. So a service running as root runs PostgreSQL
 * as a dedicated unprivileged system user, created when missing; any other service user runs it as
 * itself. See docs/EMBEDDED-POSTGRES.md ("Who PostgreSQL runs as").
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The system user a root service runs PostgreSQL as. */
export const SERVICE_USER = 'market-intel-pg';

export type RunAs = { mode: 'self' } | { mode: 'user'; name: string; uid: number; gid: number };

export class EmbeddedPostgresError extends Error {}

/** The system commands asked about users answer at once. */
const PROBE = { timeout: 10_000 };

/** Root: the dedicated system user (created if missing); anyone else: themselves. */
export async function chooseRunAs(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return { mode: 'self' };
  return { mode: 'user', name: SERVICE_USER, ...(await ensureUser(SERVICE_USER)) };
}

/** The uid that owns PostgreSQL's files and socket under `runAs`. */
export function ownerUid(runAs: RunAs): number {
  return runAs.mode === 'user' ? runAs.uid : (process.getuid?.() ?? 0);
}

function lookUp(name: string): { uid: number; gid: number } | null {
  const found = spawnSync('getent', ['passwd', name], { ...PROBE, encoding: 'utf8' });
  if (found.status !== 0) return null;
  const [, , uid, gid] = found.stdout.trim().split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** In /usr/sbin, which a service's PATH may lack. */
const useradd = () => (fs.existsSync('/usr/sbin/useradd') ? '/usr/sbin/useradd' : 'useradd');
const USERADD = ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent'];

/**
 * The user's ids, creating it (a system user with its own group, no home, no login shell) when
 * missing. Two services starting at once may race for /etc/passwd's lock: the loser looks again.
 */
async function ensureUser(name: string): Promise<{ uid: number; gid: number }> {
  let failure = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = lookUp(name);
    if (existing) return unprivileged(name, existing);
    const made = spawnSync(useradd(), [...USERADD, '--shell', '/usr/sbin/nologin', name], {
      ...PROBE,
      encoding: 'utf8',
    });
    failure = (made.error?.message ?? made.stderr ?? '').trim();
    if (made.status === 0) continue;
    await sleep(100 * (attempt + 1));
  }
  throw new EmbeddedPostgresError(
    `PostgreSQL cannot run as root, and the system user '${name}' it runs as could not be created ` +
      `(useradd: ${failure || 'failed'}): create it (useradd ${USERADD.join(' ')} --shell /usr/sbin/nologin ` +
      `${name}), run the service as another user, or set DATABASE_URL`,
  );
}

function unprivileged(name: string, ids: { uid: number; gid: number }): { uid: number; gid: number } {
  if (ids.uid === 0 || ids.gid === 0) {
    throw new EmbeddedPostgresError(
      `the user '${name}' that PostgreSQL runs as has uid ${ids.uid} and gid ${ids.gid}: it must be an ` +
        'unprivileged user (neither uid nor gid 0)',
    );
  }
  return ids;
}

/**
 * DATA_DIR, created if missing. PostgreSQL's user needs passage (search permission, not listing) to
 * reach its cluster inside; a DATA_DIR of the service's own that lacks it gets `o+x`.
 */
export function makeDataDir(dataDir: string, runAs: RunAs): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: runAs.mode === 'user' ? 0o711 : 0o700 });
  if (runAs.mode !== 'user') return;
  const stat = fs.statSync(dataDir);
  if (stat.uid === process.getuid?.() && !(stat.mode & 0o001))
    fs.chmodSync(dataDir, (stat.mode & 0o7777) | 0o001);
}

/**
 * Fails, naming the blocking directory, when `runAs`'s user cannot reach each of `dirs`. After
 * embedded-reach.ts has placed the binaries and the cluster this holds, unless the state directory
 * itself was made private.
 */
export function assertReachable(runAs: RunAs, dirs: { path: string; what: string }[]): void {
  if (runAs.mode !== 'user') return;
  for (const dir of dirs) {
    if (canEnter(runAs, dir.path)) continue;
    throw new EmbeddedPostgresError(
      `PostgreSQL runs as the system user '${runAs.name}' (the service runs as root), which cannot reach ` +
        `${dir.what} ${dir.path}: ${firstBlocked(runAs, dir.path)} is private. Give that user search ` +
        'permission there, or set DATABASE_URL',
    );
  }
}

/** Whether `runAs`'s user can enter `dir` (search permission on it and every directory above). */
export function canEnter(runAs: { uid: number; gid: number }, dir: string): boolean {
  const ids = { uid: runAs.uid, gid: runAs.gid };
  return spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', dir], { ...ids, ...PROBE, cwd: '/' }).status === 0;
}

/** The outermost directory on the way to `dir` that `runAs` cannot enter. */
function firstBlocked(runAs: { uid: number; gid: number }, dir: string): string {
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const prefix = `/${parts.slice(0, i).join('/')}`;
    if (!canEnter(runAs, prefix)) return prefix;
  }
  return dir;
}

/**
 * Hands an existing cluster to `runAs`'s user: earlier versions ran PostgreSQL as root in a user
 * namespace (its files root's), or as the `postgres` user. Only while no postmaster runs on it (the
 * caller holds DATA_DIR's lock and has stopped any orphan). The top directory changes last, so a start
 * interrupted midway walks the whole tree again.
 */
export function adoptCluster(cluster: string, runAs: RunAs, log: (line: string) => void): void {
  if (runAs.mode !== 'user' || !fs.existsSync(cluster)) return;
  const top = fs.lstatSync(cluster);
  if (top.uid === runAs.uid && top.gid === runAs.gid) return;
  log(`handing ${cluster} (owned by uid ${top.uid}) to the PostgreSQL user ${runAs.name}`);
  // Tablespaces and a moved WAL directory are links to the cluster's data elsewhere.
  for (const linked of [path.join(cluster, 'pg_wal'), ...entries(path.join(cluster, 'pg_tblspc'))]) {
    if (fs.lstatSync(linked, { throwIfNoEntry: false })?.isSymbolicLink())
      chownTree(fs.realpathSync(linked), runAs);
  }
  chownContents(cluster, runAs);
  fs.lchownSync(cluster, runAs.uid, runAs.gid);
}

function entries(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : [];
}

/** `dir` and its contents (symbolic links themselves, never their targets), children first. */
function chownTree(dir: string, ids: { uid: number; gid: number }): void {
  chownContents(dir, ids);
  fs.lchownSync(dir, ids.uid, ids.gid);
}

function chownContents(dir: string, ids: { uid: number; gid: number }): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(file, ids);
    else fs.lchownSync(file, ids.uid, ids.gid);
  }
}
