/**
 * Load for bench:events: closed loop (autocannon, N connections as fast as answers come) and open loop
 * (a constant arrival rate). Latencies are kept raw, per response and every status, in ms with sub-ms
 * precision.
 */

import { connect as connectTcp, type Socket } from 'node:net';
import autocannon, { type Request, type Result } from 'autocannon';

/** One request of a run: a path and the API key it carries (none for a bare server). */
export interface Shot {
  path: string;
  key?: string;
}

export interface Measured {
  label: string;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Non-2xx statuses and their counts, e.g. `429×12`. */
  statuses: string;
  /** The first body of a non-2xx answer, if any. */
  sampleError?: string;
  /**
   * Open loop only: how late the generator sent requests after their due time, ms (its timer firing
   * late, its own work): at p99 and at most. Lateness counts in the latency, so a generator falling
   * behind shows here, not as the server's.
   */
  sendLate?: { p99: number; max: number };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function measured(
  label: string,
  latencies: number[],
  seconds: number,
  statuses: Map<string, number>,
  errors: number,
  sampleError: string | undefined,
): Measured {
  const sorted = Float64Array.from(latencies).sort();
  const non2xx = [...statuses].filter(([code]) => !code.startsWith('2'));
  return {
    label,
    rps: latencies.length / seconds,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? (sorted[sorted.length - 1] ?? 0) : Number.NaN,
    requests: latencies.length,
    non2xx: non2xx.reduce((n, [, count]) => n + count, 0),
    errors,
    statuses: non2xx.map(([code, count]) => `${code}×${count}`).join(' '),
    sampleError,
  };
}

/**
 * A full collection of this process (the load generator) before each run, when node has --expose-gc
 * (the bench:events and bench:tail scripts pass it): otherwise a major GC of the generator's heap, grown
 * by the runs before, could fall inside the next one and hold its sends and reads — measured once at 37.5
 * ms at the start of an open loop, counted as the server's latency (docs/EVALUATION.md, "The open
 * loop's start"). App and bare runs alike.
 */
function collectGenerator(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const toRequest = (shot: Shot): Request => ({
  method: 'GET',
  path: shot.path,
  headers: shot.key ? { 'x-api-key': shot.key } : {},
});

/**
 * Closed loop: `connections` keep-alive connections, each sending its next request when the previous
 * answered. Connection k walks shots k, k + connections, k + 2·connections, …: together they cover the
 * list, and they do not ask for the same URL at the same moment (which would flatter a cache). Each
 * connection gets only its share because autocannon copies and pre-renders a client's whole list when
 * it makes the connection, which for long lists delays the first requests by up to a second.
 */
export async function closedLoop(
  label: string,
  port: number,
  shots: Shot[],
  options: { connections: number; duration: number; onAnswer?: (sentMs: number, latencyMs: number) => void },
): Promise<Measured> {
  collectGenerator();
  const share = (k: number) => {
    const slot = k % Math.min(options.connections, shots.length);
    return shots.filter((_, i) => i % options.connections === slot).map(toRequest);
  };
  const latencies: number[] = [];
  let sampleError: string | undefined;
  let client = 0;
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: options.connections,
    duration: options.duration,
    requests: share(0),
    timeout: 10,
    setupClient: (c) => {
      if (client > 0) c.setRequests(share(client));
      client++;
      c.on('body', (body: Buffer) => {
        if (sampleError === undefined && body.subarray(0, 9).toString() === '{"error":') {
          sampleError = body.toString().slice(0, 300);
        }
      });
    },
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    options.onAnswer?.(performance.now() - responseTime, responseTime);
  });
  const result: Result = await instance;
  const statuses = new Map(
    Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count] as const),
  );
  return measured(label, latencies, result.duration, statuses, result.errors, sampleError);
}

/**
 * The open loop's warm-up: `seconds` of the same open loop, unmeasured, as each closed loop has one.
 * The first moments of a new load are a transition (new connections, each heap adjusting to the new
 * allocation rate); before the warm-up most open loops, app and bare, began with 0.1–0.6 s of slow
 * answers, traced to a major GC of the server at the lull between loads and to the generator's own GC
 * (docs/EVALUATION.md, "The open loop's start").
 */
export async function openWarmUp(
  port: number,
  shots: Shot[],
  options: { connections: number; seconds: number; rate: number },
): Promise<void> {
  if (options.seconds <= 0) return;
  await openLoop('open warm-up', port, shots, {
    connections: options.connections,
    duration: options.seconds,
    rate: options.rate,
    collect: false,
  });
}

/** One keep-alive connection of the open loop, reading answers by Content-Length. */
interface Conn {
  socket: Socket;
  /** Header bytes received so far of the answer being read. */
  head: Buffer;
  /** Body bytes still to come; -1 while the header is incomplete. */
  remaining: number;
  status: number;
  body: Buffer[];
  /** Due time of the request in flight; -1 when the connection is free. */
  due: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** The open loop's read buffer, shared by its connections (each read is handled before the next). */
const READ_BUFFER = Buffer.alloc(256 * 1024);

/**
 * Open loop at a constant rate: request i is due at start + i / rate, whatever the earlier ones did,
 * and its latency counts from that due time, so queueing behind a stall is not hidden (autocannon's
 * own rate limiting sends each second's requests in one burst). Up to `connections` keep-alive
 * connections; a request due while all are busy waits for the first free one (its wait counts).
 *
 * Raw sockets and a Content-Length reader rather than an HTTP client: the generator shares the CPU
 * with the server and its own delays count as the server's latency. With undici it was the bottleneck
 * above about 8,000 req/s here (the bare server's p99 at half load rose to 90 ms).
 */
export async function openLoop(
  label: string,
  port: number,
  shots: Shot[],
  options: {
    connections: number;
    duration: number;
    rate: number;
    /** Called per answer with its due time (performance.now()'s clock) and latency, ms (bench:tail). */
    onAnswer?: (dueMs: number, latencyMs: number) => void;
    /** A full collection of the generator first (default true; a warm-up skips it, its run does it). */
    collect?: boolean;
  },
): Promise<Measured> {
  if (options.collect !== false) collectGenerator();
  const requests = shots.map((shot) =>
    Buffer.from(
      `GET ${shot.path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n` +
        `${shot.key ? `x-api-key: ${shot.key}\r\n` : ''}\r\n`,
    ),
  );
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  let errors = 0;
  let sampleError: string | undefined;
  const interval = 1000 / options.rate;
  const start = performance.now();
  const end = start + options.duration * 1000;
  const total = Math.ceil((options.duration * 1000) / interval);
  let next = 0;
  let answered = 0;
  const waiting: number[] = [];
  const free: Conn[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });

  // How late each request went out after its due time (the tick that sent it ran late).
  const lateness = new Float64Array(total);
  let sent = 0;
  const send = (conn: Conn, i: number) => {
    conn.due = start + i * interval;
    conn.head = Buffer.alloc(0);
    conn.remaining = -1;
    conn.body = [];
    conn.socket.write(requests[i % requests.length] as Buffer);
  };
  const settle = () => {
    answered += 1;
    if (answered === total) finish();
  };
  const release = (conn: Conn) => {
    conn.due = -1;
    const queued = waiting.shift();
    if (queued === undefined) free.push(conn);
    else send(conn, queued);
  };
  const complete = (conn: Conn) => {
    const latency = performance.now() - conn.due;
    latencies.push(latency);
    options.onAnswer?.(conn.due, latency);
    const code = String(conn.status);
    statuses.set(code, (statuses.get(code) ?? 0) + 1);
    if (conn.status >= 300 && sampleError === undefined) {
      sampleError = Buffer.concat(conn.body).toString().slice(0, 300);
    }
    settle();
    release(conn);
  };
  const onData = (conn: Conn, chunk: Buffer) => {
    let data = chunk;
    while (data.length > 0 && conn.due >= 0) {
      if (conn.remaining < 0) {
        const head = conn.head.length ? Buffer.concat([conn.head, data]) : data;
        const at = head.indexOf(HEADER_END);
        if (at < 0) {
          // A copy: `data` is a view of the read buffer, which the next read overwrites.
          conn.head = Buffer.from(head);
          return;
        }
        const text = head.subarray(0, at).toString('latin1');
        conn.status = Number(text.slice(9, 12));
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
        conn.remaining = length ? Number(length[1]) : 0;
        data = head.subarray(at + 4);
      }
      const take = Math.min(conn.remaining, data.length);
      if (conn.status >= 300 && sampleError === undefined)
        conn.body.push(Buffer.from(data.subarray(0, take)));
      conn.remaining -= take;
      data = data.subarray(take);
      if (conn.remaining === 0) complete(conn);
    }
  };
  const connect = (): Promise<Conn> =>
    new Promise((resolve, reject) => {
      // Every read lands in one buffer, reused. A Buffer per read (62.7 kB per events?limit=50 answer)
      // is external memory, whose growth set off a full collection of this process every 120–260 ms
      // (V8's "external memory pressure"): 160–265 µs of the generator's CPU per answer, more than a core
      // at half load, and its queue counted as both servers' latency (docs/EVALUATION.md, "An eighth
      // pass"). onData copies what it keeps. `conn` is read only once connected, after it is built.
      const socket = connectTcp({
        port,
        host: '127.0.0.1',
        noDelay: true,
        onread: {
          buffer: READ_BUFFER,
          callback: (n) => {
            onData(conn, READ_BUFFER.subarray(0, n));
            return true;
          },
        },
      });
      const conn: Conn = {
        socket,
        head: Buffer.alloc(0),
        remaining: -1,
        status: 0,
        body: [],
        due: -1,
      };
      socket.once('connect', () => resolve(conn));
      socket.once('error', reject);
      socket.on('close', () => {
        // The loop goes on with the other connections; a request in flight here is an error.
        const at = free.indexOf(conn);
        if (at >= 0) free.splice(at, 1);
        if (conn.due < 0) return;
        errors += 1;
        conn.due = -1;
        settle();
      });
    });
  const conns = await Promise.all(Array.from({ length: options.connections }, connect));
  for (const conn of conns) conn.socket.on('error', () => undefined);
  free.push(...conns);

  const tick = () => {
    const now = performance.now();
    for (; next < total && start + next * interval <= now; next++) {
      if (sent < total) lateness[sent++] = now - (start + next * interval);
      const conn = free.pop();
      if (conn) send(conn, next);
      else waiting.push(next);
    }
    if (next < total) setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
  };
  tick();
  // Answers still missing 10 s after the last was due (every connection lost, say) count as errors.
  const deadline = new Promise<void>((resolve) =>
    setTimeout(resolve, options.duration * 1000 + 10_000).unref(),
  );
  await Promise.race([done, deadline]);
  errors += total - answered;
  const elapsed = (performance.now() - start) / 1000;
  for (const conn of conns) conn.socket.destroy();
  const result = measured(
    label,
    latencies,
    Math.max(elapsed, (end - start) / 1000),
    statuses,
    errors,
    sampleError,
  );
  const late = lateness.subarray(0, sent).sort();
  return { ...result, sendLate: { p99: percentile(late, 99), max: late[late.length - 1] ?? 0 } };
}
