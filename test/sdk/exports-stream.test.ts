/**
 * Streamed exports against a local scripted server: rows come out while the body is still arriving, a
 * paused consumer holds the server back (memory stays bounded), stopping early closes the connection,
 * a body that breaks off is an error, and refusals before the first byte are retried like any GET.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ConnectionError, EXPORT_CSV_COLUMNS, MarketIntel, MarketIntelError } from '../../sdk/src/index.ts';
import { csvField } from '../../src/sources/csv.ts';

type Step = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let script: Step[] = [];
const urls: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    urls.push(req.url ?? '');
    (script.shift() ?? ((_q, r) => r.writeHead(500).end()))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
beforeEach(() => {
  script = [];
  urls.length = 0;
});

const client = () => new MarketIntel({ apiKey: 'iv_test_x', baseUrl, retryDelayMs: 10, maxRetryDelayMs: 50 });
const CSV_HEAD = { 'content-type': 'text/csv; charset=utf-8', 'x-request-id': 'req-export' };
const HEADER = `${EXPORT_CSV_COLUMNS.join(',')}\r\n`;
/** A CSV record of the export's 29 columns, with a description that needs quoting. */
const record = (n: number, description = `award ${n}, "phase ${n % 7}"\r\nsecond line`) =>
  `${EXPORT_CSV_COLUMNS.map((c) => csvField(c === 'contract_id' ? `C${n}` : c === 'description' ? description : '')).join(',')}\r\n`;

describe('rows while the body arrives', () => {
  // A client that waited for the whole body would never see the end: the timeout turns that into a failure.
  test('the first rows are yielded before the server has ended the body', { timeout: 60_000 }, async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let ended = false;
    script = [
      (_req, res) => {
        res.writeHead(200, CSV_HEAD);
        res.write(HEADER + record(1) + record(2) + record(3));
        void released.then(() => {
          res.end(record(4) + record(5));
          ended = true;
        });
      },
    ];
    const seen: { id: string; endedBefore: boolean }[] = [];
    for await (const row of client().events.exportRows({ ticker: 'LMT' })) {
      seen.push({ id: row.contract_id, endedBefore: ended });
      if (seen.length === 3) release();
    }
    assert.deepEqual(
      seen.map((s) => s.id),
      ['C1', 'C2', 'C3', 'C4', 'C5'],
    );
    assert.deepEqual(
      seen.slice(0, 3).map((s) => s.endedBefore),
      [false, false, false],
    );
    assert.equal(new URL(urls[0] ?? '', baseUrl).searchParams.get('format'), 'csv', 'csv unless told');
  });

  test('quoted fields with line breaks, cut across small chunks, parse exactly', async () => {
    const descriptions = Array.from(
      { length: 400 },
      (_, n) => `#${n} "q", a,b\r\nline\n${'x'.repeat(n % 50)}`,
    );
    const body = HEADER + descriptions.map((d, n) => record(n, d)).join('');
    script = [
      (_req, res) => {
        res.writeHead(200, CSV_HEAD);
        for (let at = 0; at < body.length; at += 37) res.write(body.slice(at, at + 37));
        res.end();
      },
    ];
    const rows = [];
    for await (const row of client().signals.exportRows({ format: 'csv' })) rows.push(row);
    assert.deepEqual(
      rows.map((r) => r.description),
      descriptions,
    );
    assert.ok(rows.every((r) => Object.keys(r).length === EXPORT_CSV_COLUMNS.length));
  });

  test('NDJSON lines become objects; a line that is not JSON is an invalid_response error', async () => {
    script = [
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
        res.write('{"contract":{"id":"C1"},"signal":null}\n{"contract":');
        res.end('{"id":"C2"},"signal":null}\nnot json\n');
      },
    ];
    const ids: string[] = [];
    const error = await (async () => {
      for await (const row of client().events.exportRows({ format: 'ndjson' })) ids.push(row.contract.id);
    })().catch((e: unknown) => e);
    assert.deepEqual(ids, ['C1', 'C2']);
    assert.ok(error instanceof MarketIntelError);
    assert.equal(error.code, 'invalid_response');
  });
});

describe('bounded memory', () => {
  test('a paused consumer holds the server back; stopping early closes the connection', {
    timeout: 120_000,
  }, async () => {
    const TOTAL = 1024 * 1024 * 1024;
    const chunk = Buffer.from(Array.from({ length: 64 }, (_, n) => record(n)).join(''));
    let written = 0;
    let blocked: () => void = () => {};
    const isBlocked = new Promise<void>((resolve) => {
      blocked = resolve;
    });
    let closed: Promise<unknown> = Promise.resolve();
    script = [
      (_req, res) => {
        closed = once(res, 'close');
        res.writeHead(200, CSV_HEAD);
        res.write(HEADER);
        const pump = () => {
          while (written < TOTAL && !res.destroyed) {
            written += chunk.length;
            if (!res.write(chunk)) {
              blocked();
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      },
    ];
    const heapBefore = process.memoryUsage().heapUsed;
    const exported = await client().events.exportStream({ format: 'csv' });
    assert.equal(exported.response.requestId, 'req-export');
    let taken = 0;
    for await (const row of exported.rows()) {
      assert.equal(row.contract_id, `C${taken % 64}`);
      taken += 1;
      if (taken === 10) {
        await isBlocked;
        // Buffers between the two ends fill up, then the server stays blocked: wait until nothing more
        // is written for a while (however slow the machine), then look at how much that was.
        for (let held = -1; held !== written; ) {
          held = written;
          await delay(250);
        }
        assert.ok(written < TOTAL / 8, `${(written / 2 ** 20).toFixed(1)} MB of 1 GB written`);
        const growth = process.memoryUsage().heapUsed - heapBefore;
        assert.ok(growth < 64 * 2 ** 20, `heap grew ${(growth / 2 ** 20).toFixed(1)} MB`);
        break;
      }
    }
    await closed;
    assert.ok(written < TOTAL, 'the server stopped before the end');
  });
});

describe('failures', () => {
  test('a body that breaks off is a ConnectionError after the rows that arrived', async () => {
    script = [
      (req, res) => {
        res.writeHead(200, CSV_HEAD);
        res.write(HEADER + record(1) + record(2), () => setTimeout(() => req.socket.destroy(), 20));
      },
    ];
    const ids: string[] = [];
    const error = await (async () => {
      for await (const row of client().events.exportRows()) ids.push(row.contract_id);
    })().catch((e: unknown) => e);
    assert.deepEqual(ids, ['C1', 'C2']);
    assert.ok(error instanceof ConnectionError, String(error));
    assert.equal(error.code, 'connection_error');
  });

  test('a CSV record with the wrong number of fields, or an unterminated quote, is invalid_response', async () => {
    for (const bad of ['C1,too,few\r\n', `${record(1).slice(0, -2)},"open`]) {
      script = [
        (_req, res) => {
          res.writeHead(200, CSV_HEAD);
          res.end(HEADER + record(0) + bad);
        },
      ];
      const ids: string[] = [];
      const error = await (async () => {
        for await (const row of client().events.exportRows()) ids.push(row.contract_id);
      })().catch((e: unknown) => e);
      assert.deepEqual(ids, ['C0'], JSON.stringify(bad));
      assert.ok(error instanceof MarketIntelError);
      assert.equal(error.code, 'invalid_response');
      assert.equal(error.requestId, 'req-export');
    }
  });

  test("aborting the request's signal ends the download with the signal's reason", async () => {
    let closed: Promise<unknown> = Promise.resolve();
    script = [
      (_req, res) => {
        closed = once(res, 'close');
        res.writeHead(200, CSV_HEAD);
        res.write(HEADER + record(1));
      },
    ];
    const controller = new AbortController();
    const rows = client().events.exportRows({}, { signal: controller.signal });
    assert.equal((await rows.next()).value?.contract_id, 'C1');
    controller.abort(new Error('stop'));
    await assert.rejects(rows.next(), /stop/);
    await closed;
  });

  test('a 503 before the first byte is retried; the stream then starts', async () => {
    script = [
      (_req, res) => {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end('{"error":{"status":503,"message":"busy","code":"unavailable"}}');
      },
      (_req, res) => {
        res.writeHead(200, CSV_HEAD);
        res.end(HEADER + record(7));
      },
    ];
    const exported = await client().events.exportStream();
    assert.equal(exported.response.attempts, 2);
    assert.equal(exported.format, 'csv');
    assert.equal(await exported.text(), HEADER + record(7));
  });
});
