import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { openLoop } from '../../bench/load.ts';

// bench:events' open loop reads answers with its own Content-Length reader into one reused buffer.
// These check that it still reads every answer right when headers and bodies are split across reads,
// and that reading them allocates no external memory per answer (a Buffer per read set off a full
// collection of the generator every 120–260 ms, counted as the servers' latency).

const BODY = Buffer.alloc(62_700, 'x');
let server: http.Server;
let port: number;
/** Answers each request with its head in three writes, so that it reaches the reader in several reads. */
let splitter: net.Server;
let splitPort: number;

before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/missing') {
      const body = '{"error":{"code":"not_found"}}';
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
    res.end(BODY);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  splitter = net.createServer((socket) => {
    let pending = '';
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      for (let at = pending.indexOf('\r\n\r\n'); at >= 0; at = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(at + 4);
        socket.write('HTTP/1.1 200 OK\r\ncontent-');
        setTimeout(() => socket.write('length: 5\r\nconnection: keep-alive\r\n'), 5);
        setTimeout(() => socket.write('\r\nhel'), 10);
        setTimeout(() => socket.write('lo'), 15);
      }
    });
  });
  await new Promise<void>((resolve) => splitter.listen(0, '127.0.0.1', resolve));
  splitPort = (splitter.address() as AddressInfo).port;
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await new Promise<void>((resolve) => splitter.close(() => resolve()));
});

/** One open loop of `seconds` at `rate` over one path: what it measured. */
const run = (at: number, path: string, connections: number, seconds: number, rate: number) =>
  openLoop(path, at, [{ path }], { connections, duration: seconds, rate });

test('the open loop reads large answers, split heads and error bodies right', async () => {
  for (const [label, measured, count] of [
    ['62.7 kB answers', await run(port, '/big', 4, 0.5, 200), 100],
    ['heads split across reads', await run(splitPort, '/', 2, 0.2, 20), 4],
  ] as const) {
    assert.deepEqual([measured.requests, measured.errors, measured.non2xx], [count, 0, 0], label);
  }
  const missing = await run(port, '/missing', 1, 0.2, 20);
  assert.equal(missing.non2xx, 4);
  assert.equal(missing.statuses, '404×4');
  assert.equal(missing.sampleError, '{"error":{"code":"not_found"}}');
});

test('reading answers allocates no external memory per answer', async () => {
  let base = Number.POSITIVE_INFINITY;
  let peak = 0;
  const result = await openLoop('memory', port, [{ path: '/big' }], {
    connections: 8,
    duration: 1,
    rate: 1000,
    onAnswer: () => {
      const now = process.memoryUsage().arrayBuffers;
      base = Math.min(base, now);
      peak = Math.max(peak, now);
    },
  });
  assert.equal(result.errors, 0);
  assert.equal(result.requests, 1000);
  // 1,000 answers of 62.7 kB read into fresh buffers would add up to tens of MB before V8 collects them.
  assert.ok(
    peak - base < 8 * 1024 * 1024,
    `array buffers grew by ${((peak - base) / 2 ** 20).toFixed(1)} MB`,
  );
});
