/**
 * Load for bench:events: closed loop (autocannon, N connections as fast as answers come) and open loop
 * (a constant arrival rate). Latencies are kept raw, per response and every status, in ms with sub-ms
 * precision.
 */
import autocannon, { type Request, type Result } from 'autocannon';
import { Pool } from 'undici';

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
  options: { connections: number; duration: number },
): Promise<Measured> {
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
  });
  const result: Result = await instance;
  const statuses = new Map(
    Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count] as const),
  );
  return measured(label, latencies, result.duration, statuses, result.errors, sampleError);
}

/**
 * Open loop at a constant rate: request i is due at start + i / rate, whatever the earlier ones did,
 * and its latency counts from that due time, so queueing behind a stall is not hidden (autocannon's
 * own rate limiting sends each second's requests in one burst). Up to `connections` connections.
 */
export async function openLoop(
  label: string,
  port: number,
  shots: Shot[],
  options: { connections: number; duration: number; rate: number },
): Promise<Measured> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: options.connections, pipelining: 1 });
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  let errors = 0;
  let sampleError: string | undefined;
  const interval = 1000 / options.rate;
  const start = performance.now();
  const end = start + options.duration * 1000;
  const pending: Promise<void>[] = [];
  for (let i = 0; ; i++) {
    const due = start + i * interval;
    if (due >= end) break;
    const wait = due - performance.now();
    if (wait > 0.5) await new Promise((resolve) => setTimeout(resolve, wait));
    const shot = shots[i % shots.length] as Shot;
    const request = pool
      .request({ method: 'GET', path: shot.path, headers: shot.key ? { 'x-api-key': shot.key } : {} })
      .then(async (res) => {
        // A 2xx body is read as bytes, not decoded: the load generator shares the CPU with the server,
        // and its own delays count as the server's latency (measured from the due time).
        if (res.statusCode < 300 || sampleError !== undefined) await res.body.arrayBuffer();
        else sampleError = (await res.body.text()).slice(0, 300);
        latencies.push(performance.now() - due);
        const code = String(res.statusCode);
        statuses.set(code, (statuses.get(code) ?? 0) + 1);
      })
      .catch(() => {
        errors++;
      });
    pending.push(request);
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  return measured(label, latencies, elapsed, statuses, errors, sampleError);
}
