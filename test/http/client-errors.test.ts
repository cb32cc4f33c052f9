/**
 * Errors raised before a route is chosen — by node's parser, its timeouts, or the body parser — leave in
 * the same envelope as every other error. Sent over real sockets: `inject` never reaches the parser.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { makeKey, testConfig } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
let app: App;
let port: number;
let adminKey: string;

before(async () => {
  db = await freshDb();
  app = await buildApp({
    config: testConfig(),
    db,
    logger: false,
    timeouts: { headersMs: 400, requestMs: 800, checkEveryMs: 100 },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  port = address.port;
  adminKey = (await makeKey(db, { admin: true, scopes: ['admin'] })).raw;
});
after(async () => {
  await app.close();
  await db.close();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes raw bytes (optionally in timed pieces) and reads until the server closes or answers. */
function raw(pieces: (string | number)[]): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    void (async () => {
      for (const piece of pieces) {
        if (typeof piece === 'number') await new Promise((r) => setTimeout(r, piece));
        else if (!socket.destroyed) socket.write(piece);
      }
      // Half-close only once the server has had time to answer a request it is waiting on.
    })();
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}

function assertEnvelope(res: RawResponse, status: number, message: RegExp) {
  assert.equal(res.status, status, `${res.status} ${res.body}`);
  const body = JSON.parse(res.body) as {
    error: { status: number; message: string; code: string; request_id: string };
  };
  assert.equal(body.error.status, status);
  assert.match(body.error.message, message);
  assert.match(body.error.request_id, /^[\w.-]+$/);
  assert.match(res.headers['content-type'] ?? '', /application\/json/);
}

describe('requests the parser cannot read', () => {
  test('a malformed request line → 400', async () =>
    assertEnvelope(await raw(['HELLO THERE\r\n\r\n']), 400, /malformed request/));

  test('an invalid Content-Length → 400', async () =>
    assertEnvelope(
      await raw(['POST /api/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n']),
      400,
      /Content-Length/,
    ));

  test('headers over the limit → 431', async () =>
    assertEnvelope(
      await raw([`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]),
      431,
      /headers too large/,
    ));

  test('a request target over 8 KiB → 414, whether the parser or the app sees it first', async () => {
    for (const length of [10_000, 20_000]) {
      assertEnvelope(
        await raw([
          `GET /api/v1/health?x=${'a'.repeat(length)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ]),
        414,
        /longer than 8192/,
      );
    }
  });

  test('headers that never finish → 408', async () =>
    assertEnvelope(
      await raw(['GET /api/v1/health HTTP/1.1\r\nHost: x\r\n', 1_500]),
      408,
      /did not arrive in time/,
    ));

  test('a body shorter than its Content-Length → 408 once the request time is spent', async () =>
    assertEnvelope(
      await raw([
        `POST /api/v1/admin/users HTTP/1.1\r\nHost: x\r\nx-api-key: ${adminKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
        2_000,
      ]),
      408,
      /did not arrive in time/,
    ));
});

describe('body errors of a keyed request keep the rate-limit headers', () => {
  const keyed = () => ({ 'x-api-key': adminKey });

  test('an oversized body → 413', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/admin/users',
      headers: { ...keyed(), 'content-type': 'application/json' },
      payload: `{"email":"${'a'.repeat(17 * 1024 * 1024)}"}`,
    });
    assert.equal(res.statusCode, 413, res.body);
    assert.equal(res.json().error.status, 413);
    assert.equal(res.headers['x-ratelimit-limit'], '3000');
  });

  test('a content type other than JSON → 415', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/admin/users',
      headers: { ...keyed(), 'content-type': 'text/plain' },
      payload: 'email=x',
    });
    assert.equal(res.statusCode, 415, res.body);
    assert.equal(res.json().error.status, 415);
    assert.equal(res.headers['x-ratelimit-limit'], '3000');
  });

  test('a body that ends before its Content-Length → 400', async () => {
    const res = await raw([
      `POST /api/v1/admin/users HTTP/1.1\r\nHost: x\r\nx-api-key: ${adminKey}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{}`,
      50,
    ]);
    // node answers a short body only when the request times out; a longer one is a new request line.
    assert.ok([400, 408].includes(res.status), `${res.status} ${res.body}`);
    assert.equal(JSON.parse(res.body).error.status, res.status);
  });
});

describe('the OpenAPI document lists what its operations can answer', () => {
  test('400 on every operation, 413 and 415 on those with a body, 401 everywhere but liveness, 403 and 429 on keyed ones', async () => {
    const doc = app.swagger() as unknown as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, unknown>; requestBody?: unknown; security?: unknown[] }>
      >;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const listed = Object.keys(op.responses);
        const where = `${method.toUpperCase()} ${path}`;
        if (path.endsWith('/health/live')) {
          // Liveness: no key, no limit; nothing but 200, or 400 for an unknown parameter.
          assert.deepEqual(listed.sort(), ['200', '400'], where);
          continue;
        }
        for (const status of ['400', '401']) assert.ok(listed.includes(status), `${where} lacks ${status}`);
        if (op.requestBody)
          for (const status of ['413', '415']) assert.ok(listed.includes(status), `${where} lacks ${status}`);
        const open = path.endsWith('/health') || path.endsWith('/openapi.json');
        if (!open)
          for (const status of ['403', '429']) assert.ok(listed.includes(status), `${where} lacks ${status}`);
      }
    }
  });
});
