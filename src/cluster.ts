/**
 * `serve --workers N`: one primary process and N HTTP workers (node:cluster) listening on one port.
 *
 * The primary migrates and seeds once, then forks the workers and tells each its configuration (the
 * one it resolved: a worker reads no environment or arguments of its own) and whether it is the one
 * that delivers webhooks and runs the ingest schedule. Without Redis it also holds the rate limiter,
 * answering the workers over IPC (infra/ipc-limiter.ts); it does nothing else, so those answers stay
 * fast — the background work goes to a worker, not here. A worker that exits unasked is logged and
 * replaced (the replacement takes over its role); SIGINT/SIGTERM stop every worker the way a single
 * `serve` stops, then the primary exits 0.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { pino } from 'pino';
import { CommandFailed } from './cli-errors.ts';
import { type Config, ConfigError, MAX_HTTP_WORKERS } from './config.ts';
import { MetricsHost } from './infra/cluster-metrics.ts';
import { IpcLimiter, LimiterHost, processChannel } from './infra/ipc-limiter.ts';
import { MemoryLimiter } from './infra/memory-limiter.ts';
import { CLI_BIN, prepare, progress } from './prepare.ts';
import type { ServeOptions } from './server.ts';
import { type Db, openDb } from './store/db.ts';

/** A worker asks for its assignment once it listens for it (messages sent earlier could be lost). */
const HELLO = 'mi:hello';
/** [ASSIGN, config, background]: the primary's answer. */
const ASSIGN = 'mi:serve';
/** How long stopping workers may take before they are killed (a worker's own limit is 10 s). */
const STOP_GRACE_MS = 15_000;
/** A worker that ran this long, listening, is replaced at once; one that died sooner is crash-looping. */
const STEADY_MS = 10_000;
/** Replacements of crash-looping workers wait 250 ms, 500 ms, … at most this. */
const MAX_RESTART_DELAY_MS = 10_000;

/**
 * How many HTTP workers `serve` runs: `--workers`, else HTTP_WORKERS, else one per core — less one when
 * PostgreSQL runs on the same machine (embedded mode, or a DATABASE_URL naming this host or a socket).
 * Why: docs/EVALUATION.md#http-workers-per-core
 */
export function workerCount(config: Config, flag: string | undefined): number {
  let requested = config.httpWorkers;
  if (flag !== undefined) {
    const value = Number(flag);
    if (!/^\d+$/.test(flag) || value < 1 || value > MAX_HTTP_WORKERS) {
      throw new ConfigError('--workers', `expected 1..${MAX_HTTP_WORKERS}, got "${flag}"`);
    }
    requested = value;
  }
  const cores = availableParallelism();
  return requested ?? (databaseIsLocal(config.databaseUrl) ? Math.max(1, cores - 1) : cores);
}

/** Embedded (no URL), or a URL whose host is a loopback address, `localhost` or a Unix socket directory. */
export function databaseIsLocal(databaseUrl: string | null): boolean {
  if (databaseUrl === null) return true;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return false;
  }
  // libpq takes a socket directory as ?host=/path (and an empty host means the default socket).
  const host = decodeURIComponent(url.searchParams.get('host') ?? url.hostname).toLowerCase();
  return (
    host === '' ||
    host.startsWith('/') ||
    host === 'localhost' ||
    host === '[::1]' ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

interface Seat {
  /** Delivers webhooks and runs the ingest schedule; passed on to a replacement. */
  background: boolean;
  worker: Worker | null;
  /** Has listened at least once (the cluster is up once every seat has). */
  listened: boolean;
  /** Workers in a row that died before running steadily: the next replacement waits longer. */
  failures: number;
  restart: NodeJS.Timeout | null;
}

/**
 * What a worker runs with: the primary's config on the database it prepared, and a 1/N share of the
 * response cache's budget (the budget is the server's, not each process's).
 */
export function workerConfig(config: Config, databaseUrl: string | null, workers: number): Config {
  return { ...config, databaseUrl, responseCacheBytes: Math.floor(config.responseCacheBytes / workers) };
}

/** The cluster primary. Resolves once every worker listens; rejects if one dies before it does. */
export async function serveCluster(config: Config, options: ServeOptions, workers: number): Promise<void> {
  const log = pino({ level: config.logLevel });
  // Workers are forked at once and load the app while this process starts the database and migrates;
  // each gets its assignment when both are done. The handle stays open while the cluster runs: what it
  // owns (a connection pool, the embedded server) outlives the workers that use the same database.
  const preparing = openDb(config, { log: progress }).then(async (db) => {
    await prepare(db, config, options);
    return db;
  });
  preparing.catch(() => undefined);
  const host = config.redisUrl ? null : new LimiterHost(new MemoryLimiter());
  // A scrape of any worker collects every listening worker's series here.
  const listeningWorkers = new Set<Worker>();
  const metrics = new MetricsHost(() => [...listeningWorkers]);
  cluster.setupPrimary({ exec: CLI_BIN, args: ['serve'] });

  const seats: Seat[] = Array.from({ length: workers }, (_, i) => ({
    background: options.worker && i === 0,
    worker: null,
    listened: false,
    failures: 0,
    restart: null,
  }));
  let up = false;
  let closing = false;
  let started: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    started = { resolve, reject };
  });

  const fork = (seat: Seat) => {
    const worker = cluster.fork();
    const pid = worker.process.pid;
    const forkedAt = Date.now();
    seat.worker = worker;
    let listening = false;
    worker.on('message', (message: unknown) => {
      if (host?.handle(message, worker)) return;
      if (metrics.handle(message, worker)) return;
      if (Array.isArray(message) && message[0] === HELLO) {
        // Workers connect to the same database: the embedded server this process started, or DATABASE_URL's.
        void preparing.then((db) => {
          if (worker.isConnected())
            worker.send([ASSIGN, workerConfig(config, db.url, workers), seat.background]);
        });
      }
    });
    worker.on('error', (error: Error) => log.warn({ err: error, worker: pid }, 'HTTP worker channel error'));
    worker.on('listening', (address) => {
      listening = true;
      listeningWorkers.add(worker);
      if (up) {
        log.info({ worker: pid, background: seat.background }, 'replacement HTTP worker listening');
        return;
      }
      seat.listened = true;
      // The first worker serves as soon as it can; the others load once it listens (below).
      if (seat === seats[0]) for (const other of seats.slice(1)) if (!other.worker && !closing) fork(other);
      if (seats.every((s) => s.listened)) {
        up = true;
        const pids = seats.map((s) => s.worker?.process.pid);
        log.info({ address, workers: pids }, `${workers} HTTP workers listening`);
        started?.resolve();
      }
    });
    worker.on('exit', (code: number | null, signal: string | null) => {
      listeningWorkers.delete(worker);
      if (seat.worker === worker) seat.worker = null;
      if (closing) return;
      if (!up) {
        started?.reject(
          new CommandFailed(
            `HTTP worker ${pid} exited (${signal ?? `code ${code}`}) before listening; see its error above`,
          ),
        );
        return;
      }
      const steady = listening && Date.now() - forkedAt >= STEADY_MS;
      if (steady) seat.failures = 0;
      const delay = steady ? 0 : Math.min(MAX_RESTART_DELAY_MS, 250 * 2 ** seat.failures++);
      log.error(
        { worker: pid, code, signal, background: seat.background, restartInMs: delay },
        'HTTP worker exited; starting a replacement',
      );
      seat.restart = setTimeout(() => {
        seat.restart = null;
        if (!closing) fork(seat);
      }, delay);
    });
  };

  /** SIGTERM to every worker, SIGKILL to those still running after `graceMs`; true when all stopped in time. */
  const stopWorkers = (graceMs: number) =>
    new Promise<boolean>((resolve) => {
      for (const seat of seats) if (seat.restart) clearTimeout(seat.restart);
      const live = seats.flatMap((s) => (s.worker && !s.worker.isDead() ? [s.worker] : []));
      let left = live.length;
      if (left === 0) {
        resolve(true);
        return;
      }
      const timer = setTimeout(() => {
        for (const worker of live) if (!worker.isDead()) worker.process.kill('SIGKILL');
        resolve(false);
      }, graceMs);
      for (const worker of live) {
        worker.once('exit', () => {
          left -= 1;
          if (left > 0) return;
          clearTimeout(timer);
          resolve(true);
        });
        // Not worker.kill(): it cuts the IPC channel first, and a stopping worker still asks the limiter.
        worker.process.kill('SIGTERM');
      }
    });

  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down the HTTP workers');
    const stopped = await stopWorkers(STOP_GRACE_MS);
    if (!stopped) log.error('HTTP workers did not stop in time; killed');
    await host?.close();
    await (await preparing.catch(() => null))?.close();
    process.exit(stopped ? 0 : 1);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  log.info(
    { workers, limiter: config.redisUrl ? 'redis' : 'primary', background: options.worker },
    `starting ${workers} HTTP workers`,
  );
  // One worker first: loading the app is most of a start, and workers loading side by side (with the
  // database starting and, the first time, the demo data loading) all finish later than one alone.
  // The rest start once it listens. Why: docs/EVALUATION.md#start-up-and-memory
  fork(seats[0] as Seat);
  ready.catch(() => undefined);
  let db: Db | null = null;
  try {
    db = await preparing;
    await ready;
  } catch (error) {
    closing = true;
    await stopWorkers(5000);
    await host?.close();
    await db?.close();
    throw error;
  }
}

/**
 * A forked worker: asks the primary for its assignment, then serves as a single `serve` does, with
 * the primary's limiter over IPC unless Redis holds the limits.
 */
export async function runServeWorker(): Promise<void> {
  const { config, background } = await assignment();
  const db = await openDb(config);
  const channel = processChannel();
  const limiter = config.redisUrl ? undefined : new IpcLimiter(channel);
  const { listen } = await import('./server.ts');
  await listen(config, db, { background, limiter, clusterChannel: channel });
}

function assignment(): Promise<{ config: Config; background: boolean }> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (!Array.isArray(message) || message[0] !== ASSIGN) return;
      process.off('message', onMessage);
      resolve({ config: message[1] as Config, background: message[2] === true });
    };
    process.on('message', onMessage);
    // If the primary is gone the channel closes, and a cluster worker exits on that by itself.
    process.send?.([HELLO]);
  });
}
