/**
 * What asking the cluster primary for a rate-limit decision costs (`serve --workers N` without Redis):
 * calls/s of the IpcLimiter in a forked worker against this process holding the MemoryLimiter, beside
 * the MemoryLimiter called in the worker's own process. Each way one call at a time (latency bound:
 * the round trip) and with `--inflight` calls outstanding (throughput, as many requests in flight).
 * Buckets rotate over --buckets keys at the API's developer limit (600 a minute).
 *
 *   npm run bench:ipc-limiter -- [--seconds 3] [--inflight 64] [--buckets 1000]
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { IpcLimiter, LimiterHost, processChannel } from '../src/infra/ipc-limiter.ts';
import type { RateLimiter } from '../src/infra/limiter.ts';
import { MemoryLimiter } from '../src/infra/memory-limiter.ts';
import { arg, fmtInt, numberArg, table } from './common.ts';

const SELF = fileURLToPath(import.meta.url);
const SECONDS = numberArg('seconds', 3);
const INFLIGHT = Math.max(1, Math.floor(numberArg('inflight', 64)));
const BUCKETS = Array.from(
  { length: Math.max(1, Math.floor(numberArg('buckets', 1000))) },
  (_, i) => `key:${i}`,
);

interface Row {
  label: string;
  calls: number;
  seconds: number;
  /** Per-call latency percentiles of the sequential run, µs. */
  p50?: number;
  p99?: number;
}

/** Calls `limiter.hit` for SECONDS with `inflight` outstanding; latencies when one at a time. */
async function drive(label: string, limiter: RateLimiter, inflight: number): Promise<Row> {
  const end = performance.now() + SECONDS * 1000;
  const latencies: number[] = [];
  let calls = 0;
  const lane = async (offset: number) => {
    let i = offset;
    while (performance.now() < end) {
      const bucket = BUCKETS[i++ % BUCKETS.length] ?? 'key';
      if (inflight === 1) {
        const t = performance.now();
        await limiter.hit(bucket, 600, 60_000);
        latencies.push((performance.now() - t) * 1000);
      } else {
        await limiter.hit(bucket, 600, 60_000);
      }
      calls++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inflight }, (_, k) => lane(k * 7919)));
  const seconds = (performance.now() - started) / 1000;
  if (inflight > 1) return { label, calls, seconds };
  const sorted = Float64Array.from(latencies).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return { label, calls, seconds, p50: at(0.5), p99: at(0.99) };
}

async function child(): Promise<void> {
  const memory = new MemoryLimiter();
  const ipc = new IpcLimiter(processChannel(), { timeoutMs: 5000 });
  const rows: Row[] = [];
  // Warm both paths up (JIT, buckets) before measuring.
  for (let i = 0; i < 20_000; i++) await memory.hit(BUCKETS[i % BUCKETS.length] ?? 'k', 600, 60_000);
  for (let i = 0; i < 20_000; i++) await ipc.hit(BUCKETS[i % BUCKETS.length] ?? 'k', 600, 60_000);
  rows.push(await drive('MemoryLimiter, in process, 1 at a time', memory, 1));
  rows.push(await drive('IpcLimiter → primary, 1 at a time', ipc, 1));
  rows.push(await drive(`MemoryLimiter, in process, ${INFLIGHT} in flight`, memory, INFLIGHT));
  rows.push(await drive(`IpcLimiter → primary, ${INFLIGHT} in flight`, ipc, INFLIGHT));
  await ipc.close();
  await memory.close();
  process.send?.({ rows });
}

async function main(): Promise<void> {
  const host = new LimiterHost(new MemoryLimiter());
  const worker = fork(SELF, ['--child', ...process.argv.slice(2)], { execArgv: ['--import', 'tsx'] });
  const peer = { send: (m: unknown) => worker.send(m as object), isConnected: () => worker.connected };
  const startLoad = loadavg()[0] ?? 0;
  const rows = await new Promise<Row[]>((resolve, reject) => {
    worker.on('message', (message: { rows?: Row[] }) => {
      if (host.handle(message, peer)) return;
      if (message.rows) resolve(message.rows);
    });
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
  worker.disconnect();
  await host.close();
  console.log(
    `load average (1 min) at start ${startLoad.toFixed(2)}, at end ${loadavg()[0]?.toFixed(2)}; ` +
      `${SECONDS} s per run, ${BUCKETS.length} buckets, node ${process.version}`,
  );
  // Rows come in pairs, in-process then IPC, at the same concurrency.
  const rate = (r: Row | undefined) => (r ? r.calls / r.seconds : Number.NaN);
  console.log(
    table(
      ['run', 'calls/s', 'µs per call', 'p50 µs', 'p99 µs', 'in-process / IPC'],
      rows.map((r, i) => [
        r.label,
        fmtInt(rate(r)),
        (1e6 / rate(r)).toFixed(2),
        r.p50 === undefined ? '' : r.p50.toFixed(1),
        r.p99 === undefined ? '' : r.p99.toFixed(1),
        i % 2 === 1 ? `${(rate(rows[i - 1]) / rate(r)).toFixed(0)}×` : '',
      ]),
    ),
  );
}

if (arg('child')) await child();
else await main();
