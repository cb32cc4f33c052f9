/**
 * A TCP proxy on 127.0.0.1 in front of a dependency (PostgreSQL, Redis), for fault tests: `cut()` drops
 * every connection and refuses new ones, as a stopped or unreachable server would; `restore()` accepts
 * again on the same port.
 */
import net, { type NetConnectOpts, type Server, type Socket } from 'node:net';

export class TcpProxy {
  readonly #target: NetConnectOpts;
  readonly #sockets = new Set<Socket>();
  readonly #pairs = new Set<[Socket, Socket]>();
  #server: Server | null = null;
  #hanging = false;
  port = 0;

  private constructor(target: NetConnectOpts) {
    this.#target = target;
  }

  /** A proxy to `host:port`, or to a Unix socket path. */
  static async start(target: NetConnectOpts): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await proxy.#listen(false);
    return proxy;
  }

  /**
   * Drops every connection, then accepts new ones and never answers, as a server that hangs or a
   * network that drops packets would.
   */
  async hang(): Promise<void> {
    await this.cut();
    await this.#listen(true);
  }

  /**
   * Keeps every connection open but forwards nothing more, and accepts new ones that never answer: a
   * server that stops answering on live connections (stopped with SIGSTOP, or a silent network).
   */
  async stall(): Promise<void> {
    for (const [client, upstream] of this.#pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
    this.#pairs.clear();
    // Closing stops the listening socket at once; its callback would wait for the stalled connections.
    this.#server?.close();
    this.#server = null;
    await this.#listen(true);
  }

  /** Accepts and forwards connections again, on the same port. */
  async restore(): Promise<void> {
    if (this.#server && !this.#hanging) return;
    await this.cut();
    await this.#listen(false);
  }

  /** Drops every connection and refuses new ones. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    this.#pairs.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #listen(hanging: boolean): Promise<void> {
    const server = net.createServer((client) => {
      if (!hanging) return this.#pipe(client);
      this.#sockets.add(client);
      client.on('error', () => undefined);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.#server = server;
    this.#hanging = hanging;
  }

  stop(): Promise<void> {
    return this.cut();
  }

  #pipe(client: Socket): void {
    const upstream = net.connect(this.#target);
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.#sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    const pair: [Socket, Socket] = [client, upstream];
    this.#pairs.add(pair);
    client.once('close', () => this.#pairs.delete(pair));
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

/** Where a postgres:// URL's server listens: its Unix socket (`?host=/dir`) or host and port. */
export function postgresTarget(url: string): NetConnectOpts {
  const parsed = new URL(url);
  const port = Number(parsed.port || 5432);
  const socketDir = parsed.searchParams.get('host');
  if (socketDir?.startsWith('/')) return { path: `${socketDir}/.s.PGSQL.${port}` };
  return { host: parsed.hostname, port };
}

/** `url` with its server replaced by the proxy's port on 127.0.0.1 (the database name and user kept). */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('host');
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}
