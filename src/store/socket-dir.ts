/**
 * Where the embedded PostgreSQL's socket lives, and the check every client makes before connecting to
 * it. With trust authentication the socket directory is the only gate: whoever can put a socket there
 * receives the service's connections (and every API key hash, session and webhook secret they carry).
 *
 * The socket sits in the cluster directory unless that path is too long for a socket; then in a fresh
 * directory made by mkdtemp in /tmp (never a predictable name another user could make first), removed
 * when the server stops. A directory is trusted only when it is a real directory (not a symbolic link),
 * owned by PostgreSQL's user, closed to everyone else (mode 0700), and its parent cannot be used to
 * swap it (not writable by others, unless sticky as /tmp is).
 */
import fs from 'node:fs';
import path from 'node:path';
import { EmbeddedPostgresError } from './embedded-user.ts';

/** Names the socket file only (`.s.PGSQL.5432`): no TCP port is bound. */
export const SOCKET_PORT = 5432;
/** sockaddr_un's path limit. */
const MAX_SOCKET_PATH = 107;
/** Short, and every user can make directories there (the sticky bit keeps them from others' hands). */
const FALLBACK_PARENT = '/tmp';
const FALLBACK_PREFIX = 'market-intel-pg-';

export class UnsafeSocketDirError extends EmbeddedPostgresError {}

/** The cluster directory, or a new private one when the socket's path there would be too long. */
export function makeSocketDir(cluster: string, owner: { uid: number; gid: number } | null): string {
  if (Buffer.byteLength(path.join(cluster, `.s.PGSQL.${SOCKET_PORT}`)) <= MAX_SOCKET_PATH) return cluster;
  const dir = fs.mkdtempSync(path.join(FALLBACK_PARENT, FALLBACK_PREFIX)); // mode 0700, ours
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  return dir;
}

/** Removes a socket directory `makeSocketDir` made (never the cluster, nor anything not ours). */
export function removeSocketDir(dir: string, cluster: string, ownerUid: number): void {
  if (!isFallback(dir) || path.resolve(dir) === path.resolve(cluster)) return;
  try {
    verifySocketDir(dir, ownerUid);
  } catch {
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

function isFallback(dir: string): boolean {
  return path.dirname(dir) === FALLBACK_PARENT && path.basename(dir).startsWith(FALLBACK_PREFIX);
}

/**
 * Throws UnsafeSocketDirError, saying why, unless `dir` is a directory (not a link) owned by
 * `ownerUid`, mode 0700 or tighter, in a parent that others cannot rename it out of.
 */
export function verifySocketDir(dir: string, ownerUid: number): void {
  const why = unsafe(dir, ownerUid);
  if (why === null) return;
  throw new UnsafeSocketDirError(
    `refusing PostgreSQL's socket directory ${dir}: ${why}. It may have been made or replaced by another ` +
      'user to receive this service’s connections; stop the server, remove it, and start again',
  );
}

function unsafe(dir: string, ownerUid: number): string | null {
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!stat) return 'it does not exist';
  if (stat.isSymbolicLink()) return 'it is a symbolic link';
  if (!stat.isDirectory()) return 'it is not a directory';
  if (stat.uid !== ownerUid) return `it is owned by uid ${stat.uid}, not PostgreSQL's user (uid ${ownerUid})`;
  const mode = stat.mode & 0o7777;
  if (mode & 0o077) return `its mode is ${octal(mode)}: open to other users (0700 expected)`;
  const parent = fs.statSync(path.dirname(dir));
  if (parent.mode & 0o002 && !(parent.mode & 0o1000)) {
    return `its parent ${path.dirname(dir)} is writable by every user (mode ${octal(parent.mode & 0o7777)})`;
  }
  return null;
}

const octal = (mode: number) => `0${mode.toString(8)}`;
