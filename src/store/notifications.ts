import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** Channels the triggers of migration 015 notify, and the bus's own round trips. */
export const CHANNELS = {
  /** A key, its owner's plan or admin flag changed: `key:<id>`, `user:<id>` or `all`. */
  keys: 'mi_keys',
  /** A table the read endpoints answer from changed; the payload names it. */
  data: 'mi_data',
  /** Tokens this process sends itself (`sync`). */
  sync: 'mi_sync',
} as const;

export interface BusLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface BusOptions {
  url: string;
  log?: BusLog;
  /** First delay before reconnecting; it doubles on each failure up to `maxRetryMs`. Default 100 ms. */
  retryMs?: number;
  /** Default 5 s. */
  maxRetryMs?: number;
  /** How often the connection proves it still delivers (a round trip through the server). Default 2 s. */
  heartbeatMs?: number;
  /** A round trip slower than this drops the connection. Default 2 s. */
  roundTripMs?: number;
}

type Handler = (payload: string) => void;

const silent: BusLog = { info: () => undefined, warn: () => undefined };
const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

/**
 * One PostgreSQL connection that LISTENs and hands notifications to subscribers. It is healthy while
 * connected with every channel subscribed at connection time listened to; anything that trusts what it
 * was last told (a cache) must be bypassed while it is not, and must forget what it holds each time
 * health changes (`onHealthChange`): notifications sent during a gap are lost. Lost connections are
 * retried with backoff; a heartbeat round trip catches connections that died without an error.
 */
export class NotificationBus {
  private client: pg.Client | null = null;
  private up = false;
  private closed = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private firstAttempt: Promise<void> | null = null;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly watchers = new Set<(healthy: boolean) => void>();
  /** Round trips in flight: token → settle. */
  private readonly pending = new Map<string, (arrived: boolean) => void>();
  /** The round trip in flight (sync), and the one callers arriving meanwhile share. */
  private inFlight: Promise<boolean> | null = null;
  private next: Promise<boolean> | null = null;
  private readonly log: BusLog;
  /** The listening session's server process id, while connected (tests terminate it). */
  pid: number | null = null;

  constructor(private readonly options: BusOptions) {
    this.log = options.log ?? silent;
    this.handlers.set(CHANNELS.sync, new Set([(token) => this.pending.get(token)?.(true)]));
  }

  get healthy(): boolean {
    return this.up;
  }

  /** Connects in the background; resolves after the first attempt, whatever its outcome. */
  start(): Promise<void> {
    if (!this.firstAttempt) {
      this.firstAttempt = this.connect();
      this.heartbeat = setInterval(() => void this.sync(), this.options.heartbeatMs ?? 2_000);
      this.heartbeat.unref();
    }
    return this.firstAttempt;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.drop(this.client, null);
  }

  /** Calls `handler` with each payload on `channel`; returns the unsubscribe. */
  subscribe(channel: string, handler: Handler): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      // A channel added while connected is listened to at once; health does not wait for it.
      const client = this.client;
      if (client && this.up) {
        client.query(`LISTEN ${quote(channel)}`).catch((error: Error) => void this.drop(client, error));
      }
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  /** Called with the new state each time health changes. */
  onHealthChange(watcher: (healthy: boolean) => void): () => void {
    this.watchers.add(watcher);
    return () => {
      this.watchers.delete(watcher);
    };
  }

  /**
   * Resolves true once every notification committed before the call has been handed to subscribers:
   * a token sent through the server comes back after them (the queue is in commit order). false when
   * unhealthy or too slow, and a slow round trip drops the connection.
   *
   * One round trip at a time: callers arriving while one is in flight share the next one, sent when it
   * settles (the one in flight may have passed the server before their commits). Every successful
   * write request calls this (caching.ts), and one query per caller on the single listening connection
   * queued behind each other there (pg warns of concurrent queries on one client) and each cost a
   * round trip.
   */
  sync(): Promise<boolean> {
    if (!this.inFlight) {
      const trip = this.roundTrip();
      this.inFlight = trip;
      void trip.finally(() => {
        if (this.inFlight === trip) this.inFlight = null;
      });
      return trip;
    }
    this.next ??= this.inFlight.then(() => {
      this.next = null;
      // A round trip another caller started after the one awaited here is as good as a new one.
      return this.inFlight ?? this.sync();
    });
    return this.next;
  }

  /** One token through the server and back. */
  private async roundTrip(): Promise<boolean> {
    const client = this.client;
    if (!client || !this.up) return false;
    const token = randomUUID();
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), this.options.roundTripMs ?? 2_000);
      const settle = (ok: boolean) => {
        clearTimeout(timer);
        this.pending.delete(token);
        resolve(ok);
      };
      this.pending.set(token, settle);
    });
    client
      .query('SELECT pg_notify($1, $2)', [CHANNELS.sync, token])
      .catch((error: Error) => void this.drop(client, error));
    const ok = await arrived;
    if (!ok) void this.drop(client, new Error('notification round trip timed out'));
    return ok;
  }

  private async connect(): Promise<void> {
    const { default: pgModule } = await import('pg');
    if (this.closed) return;
    const client = new pgModule.Client({
      connectionString: this.options.url,
      application_name: 'market-intel notifications',
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
    });
    this.client = client;
    client.on('notification', (message) => {
      if (client !== this.client) return;
      for (const handler of this.handlers.get(message.channel) ?? []) {
        try {
          handler(message.payload ?? '');
        } catch (error) {
          this.log.warn({ err: error, channel: message.channel }, 'notification handler failed');
        }
      }
    });
    client.on('error', (error) => void this.drop(client, error));
    client.on('end', () => void this.drop(client, new Error('connection ended')));
    try {
      await client.connect();
      const rows = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Channels subscribed while this ran are listened to before the bus counts as healthy.
      const listened = new Set<string>();
      for (let missing = [...this.handlers.keys()]; missing.length; ) {
        await client.query(missing.map((c) => `LISTEN ${quote(c)}`).join('; '));
        for (const channel of missing) listened.add(channel);
        missing = [...this.handlers.keys()].filter((c) => !listened.has(c));
      }
      if (client !== this.client || this.closed) return;
      this.pid = rows.rows[0]?.pid ?? null;
      if (this.attempt > 0) this.log.info({ pid: this.pid }, 'notifications: listening again');
      this.attempt = 0;
      this.setHealthy(true);
    } catch (error) {
      void this.drop(client, error as Error);
    }
  }

  /** Forgets a connection (once), turns unhealthy and schedules the next attempt; resolves when it is closed. */
  private drop(client: pg.Client | null, error: Error | null): Promise<void> {
    if (!client || client !== this.client) return Promise.resolve();
    this.client = null;
    this.pid = null;
    client.removeAllListeners('notification');
    client.removeAllListeners('end');
    client.on('error', () => undefined);
    const ended = client.end().catch(() => undefined);
    for (const settle of [...this.pending.values()]) settle(false);
    this.setHealthy(false);
    if (this.closed) return ended;
    const delay = Math.min(
      (this.options.retryMs ?? 100) * 2 ** this.attempt,
      this.options.maxRetryMs ?? 5_000,
    );
    this.attempt += 1;
    this.log.warn({ err: error, retryInMs: delay }, 'notifications: connection lost; caches bypassed');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
    return ended;
  }

  private setHealthy(healthy: boolean): void {
    if (this.up === healthy) return;
    this.up = healthy;
    for (const watcher of this.watchers) watcher(healthy);
  }
}

const shared = new Map<string, { bus: NotificationBus; users: number }>();

/**
 * The process's bus for a database: every app and worker on one connection string shares one
 * connection. `release` closes it after its last user.
 */
export function acquireBus(
  url: string,
  log?: BusLog,
): { bus: NotificationBus; release: () => Promise<void> } {
  let entry = shared.get(url);
  if (!entry) {
    entry = { bus: new NotificationBus({ url, log }), users: 0 };
    shared.set(url, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    bus: held.bus,
    release: async () => {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      shared.delete(url);
      await held.bus.close();
    },
  };
}
