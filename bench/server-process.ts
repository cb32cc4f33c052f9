/**
 * The server as `npm start` runs it, in a process of its own: the command line comes from package.json's
 * `start` script, so the benchmarks measure whatever that script does (the embedded PostgreSQL, the
 * workers) without importing the storage layer. Also the clean-up registry
 * that stops children and removes scratch state on success, failure and Ctrl-C.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresProcs, processTree, sameProcess } from './proc-mem.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

// ---------------------------------------------------------------- clean-up on any exit

const cleanups: Array<() => Promise<void>> = [];
let interrupted = false;

/** Registers fn to run (last registered first) at runCleanups(), on SIGINT/SIGTERM too; returns its remover. */
export function onCleanup(fn: () => Promise<void>): () => void {
  cleanups.push(fn);
  return () => {
    const i = cleanups.indexOf(fn);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

/** How many clean-ups are registered: runCleanups(depth) later runs only those registered since. */
export const cleanupDepth = (): number => cleanups.length;

/** A signal came: the run is being torn down, its results are not to be reported. */
export const wasInterrupted = (): boolean => interrupted;

export async function runCleanups(depth = 0): Promise<void> {
  while (cleanups.length > depth) {
    const fn = cleanups.pop();
    await fn?.().catch((error: unknown) => process.stderr.write(`clean-up failed: ${String(error)}\n`));
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping servers and removing scratch state (again: quit at once)…\n`);
    void runCleanups().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- command lines

/** The node arguments of a package.json script that runs `node …` (e.g. `start`, `cli`). */
export function scriptArgv(name: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = (pkg.scripts[name] ?? '').trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`package.json script "${name}" does not start with node`);
  return words.slice(1);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The environment of a bench child: ours without DATABASE_URL/REDIS_URL/PORT unless given in `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'DATA_DIR', 'SECRET_KEY'])
    delete base[name];
  return { ...base, ...env };
}

/** `npm run cli -- …args` with `env`; resolves stdout, rejects with stderr on a non-zero exit. */
export function runCli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...scriptArgv('cli'), ...args],
      { cwd: ROOT, env: childEnv(env), maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`market-intel ${args.slice(0, 2).join(' ')} failed: ${stderr || error}`));
        else resolve(stdout);
      },
    );
  });
}

// ---------------------------------------------------------------- the server

export interface ServerOptions {
  label: string;
  /** Environment on top of ours (DATA_DIR, DATABASE_URL, SECRET_KEY, REDIS_URL, LOG_LEVEL…). */
  env: Record<string, string>;
  /** Extra `serve` arguments (`--workers N`). */
  args?: string[];
  /** Node options before the script's (`--cpu-prof`; a cluster's workers inherit them). */
  nodeArgs?: string[];
  /** A command node runs under, with its arguments (`valgrind --tool=callgrind …`); its pid is node's. */
  wrapper?: string[];
  /** Where stdout and stderr go (a file, read back for errors). */
  logFile: string;
  /** For the embedded target: postgres processes working in it belong to this server. */
  dataDir?: string;
  timeoutMs?: number;
}

export interface RunningServer {
  port: number;
  pid: number;
  /** Spawn to the first 200 of /api/v1/health, ms. */
  readyMs: number;
  proc: ChildProcess;
  /** Node processes: the server and its descendants running node. */
  nodePids(): number[];
  /** The embedded PostgreSQL's processes (descendants, or working in dataDir); [] without one. */
  embeddedPostgresPids(): number[];
  /** SIGTERM, then SIGKILL of its process group and of leftover embedded postgres processes. */
  stop(): Promise<{ code: number | null; signal: string | null; stopMs: number }>;
  logTail(): Promise<string>;
}

/** GET /api/v1/health answers 200 (1 s per attempt). */
async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * Spawns `node <start script args> [args]` on a free PORT in its own process group, and waits for
 * /api/v1/health to answer 200 (polled every 50 ms). Rejects, with the log's tail, if it exits first.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const port = await freePort();
  const log = openSync(options.logFile, 'a');
  const started = performance.now();
  const [command = process.execPath, ...wrapperArgs] = [...(options.wrapper ?? []), process.execPath];
  const argv = [...wrapperArgs, ...(options.nodeArgs ?? []), ...scriptArgv('start'), ...(options.args ?? [])];
  const proc = spawn(command, argv, {
    cwd: ROOT,
    env: childEnv({ HOST: '127.0.0.1', ...options.env, PORT: String(port) }),
    stdio: ['ignore', log, log],
    detached: true,
  });
  closeSync(log);
  const pid = proc.pid ?? 0;
  let exit: { code: number | null; signal: string | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    proc.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  /** Every process seen under this server (pid → start time), so that none outlives stop(). */
  const seen = new Map<number, number>();
  const nodePids = () =>
    processTree(pid, seen)
      .filter((p) => p.comm === 'node')
      .map((p) => p.pid);
  const embeddedPostgresPids = () => {
    const tree = processTree(pid, seen).filter((p) => p.comm === 'postgres');
    const inDir = options.dataDir ? postgresProcs(options.dataDir) : [];
    for (const p of inDir) seen.set(p.pid, p.start);
    return [...new Set([...tree, ...inDir].map((p) => p.pid))];
  };
  const logTail = async () =>
    (await readFile(options.logFile, 'utf8').catch(() => '')).trim().split('\n').slice(-20).join('\n');
  let stopping: ReturnType<RunningServer['stop']> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      const t0 = performance.now();
      embeddedPostgresPids();
      if (!exit) proc.kill('SIGTERM');
      const killer = setTimeout(() => killGroup(pid), 15_000);
      const result = await exited;
      clearTimeout(killer);
      const stopMs = performance.now() - t0;
      killGroup(pid);
      await killLeftovers(seen);
      return { ...result, stopMs };
    })();
    return stopping;
  };
  const removeCleanup = onCleanup(async () => {
    await stop();
  });
  const deadline = started + (options.timeoutMs ?? 600_000);
  while (!exit && performance.now() < deadline) {
    if (await healthy(port)) {
      const readyMs = performance.now() - started;
      return {
        port,
        pid,
        readyMs,
        proc,
        nodePids,
        embeddedPostgresPids,
        logTail,
        stop: async () => {
          removeCleanup();
          return stop();
        },
      };
    }
    await sleep(50);
  }
  const result = await Promise.race([exited, stop()]);
  removeCleanup();
  throw new Error(
    `${options.label}: the server ${exit ? `exited (${result.code ?? result.signal})` : 'never answered 200 on /api/v1/health'} ` +
      `before it was healthy; log tail:\n${await logTail()}`,
  );
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone.
  }
}

/** Processes seen under a server that survived it (an embedded postgres left behind): TERM, then KILL. */
async function killLeftovers(seen: Map<number, number>): Promise<void> {
  const alive = () => [...seen].filter(([pid, start]) => sameProcess(pid, start)).map(([pid]) => pid);
  if (!alive().length) return;
  for (const p of alive()) signalPid(p, 'SIGTERM');
  for (let i = 0; i < 50 && alive().length; i++) await sleep(100);
  for (const p of alive()) signalPid(p, 'SIGKILL');
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}
