import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import { issueKey } from '../../src/services/accounts.ts';
import { parseCsv } from '../../src/sources/csv.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Envelope, makeKey, settled, testApp } from '../support/app.ts';
import { freshDb, seededDb } from '../support/db.ts';

type Json = Record<string, unknown>;
interface Item {
  contract: Json;
  signal: Json | null;
}

const CONTRACT_FIELDS = [
  'id',
  'ticker',
  'recipient_name',
  'award_date',
  'contract_value',
  'awarding_agency',
  'awarding_sub_agency',
  'description',
  'naics',
  'psc',
  'nlp_classification',
  'match_confidence',
  'match_method',
  'source',
  'announced_at',
  'first_seen_at',
  'available_at',
  'linked_id',
  'link_method',
  'source_url',
];
const SIGNAL_FIELDS = [
  'id',
  'engine_name',
  'engine_version',
  'engine_tier',
  'signal_score',
  'importance_score',
  'confidence_score',
  'risk_score',
  'computed_at',
];
const HEADER = ['contract_id', ...CONTRACT_FIELDS.slice(1), 'signal_id', ...SIGNAL_FIELDS.slice(1)];

/** A list item as the CSV writes it: flat, nulls empty, formula-like text behind a quote. */
function csvCells(item: Item): string[] {
  const cell = (value: unknown) => {
    if (value === null || value === undefined) return '';
    if (typeof value === 'number') return String(value);
    const text = String(value);
    return /^[-=+@\t\r]/.test(text) ? `'${text}` : text;
  };
  return [
    ...CONTRACT_FIELDS.map((f) => cell(item.contract[f])),
    ...SIGNAL_FIELDS.map((f) => cell(item.signal?.[f])),
  ];
}

/** Every item of a list endpoint for a query, page by page. */
async function listAll(app: App, key: string, path: string, query: string): Promise<Item[]> {
  const items: Item[] = [];
  for (let offset = 0; ; offset += 200) {
    const res = await app.inject({
      url: `${path}?${query}${query ? '&' : ''}limit=200&offset=${offset}`,
      headers: { 'x-api-key': key },
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<{ data: Item[] }>();
    items.push(...page.data);
    if (page.data.length < 200) return items;
  }
}

const ndjson = (body: string): Item[] =>
  body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Item);

describe('exports against the lists (seeded data)', () => {
  let db: Db;
  let app: App;
  let key: string;
  let developerKey: string;

  before(async () => {
    db = await seededDb();
    app = await testApp(db);
    key = (await makeKey(db, { plan: 'institutional', scopes: ['read'] })).raw;
    developerKey = (await makeKey(db, { plan: 'developer', scopes: ['read'] })).raw;
  });
  after(() => closeApp(app, db));

  const get = (url: string, headers: Record<string, string> = {}, as = key) =>
    app.inject({ url, headers: { 'x-api-key': as, ...headers } });

  for (const [path, query] of [
    ['/api/v1/events', 'ticker=LMT'],
    ['/api/v1/events', 'classification=aircraft&from=2023-01-01&to=2023-12-31'],
    ['/api/v1/signals', 'min_score=60'],
    ['/api/v1/signals', 'ticker=noc&engine=regime-aware'],
  ] as const) {
    test(`NDJSON and CSV of ${path}/export?${query} hold the list's rows, in its order`, async () => {
      const listed = await listAll(app, key, path, query);
      assert.ok(listed.length > 0, 'the filter matches rows');
      const lines = await get(`${path}/export?${query}&format=ndjson`);
      assert.equal(lines.statusCode, 200, lines.body);
      assert.equal(lines.headers['content-type'], 'application/x-ndjson; charset=utf-8');
      assert.deepEqual(ndjson(lines.body), listed);

      const csv = await get(`${path}/export?${query}`);
      assert.equal(csv.statusCode, 200, csv.body);
      assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
      assert.ok(csv.body.endsWith('\r\n'));
      const { header, rows } = parseCsv(csv.body);
      assert.deepEqual(header, HEADER);
      assert.deepEqual(
        rows.map((r) => r.fields),
        listed.map(csvCells),
      );
    });
  }

  test('the headers: attachment named by resource and UTC day, private, no-store, no ETag', async () => {
    const res = await get('/api/v1/signals/export?limit=3&format=ndjson');
    const day = new Date().toISOString().slice(0, 10);
    assert.equal(res.headers['content-disposition'], `attachment; filename="signals-${day}.ndjson"`);
    assert.equal(res.headers['cache-control'], 'private, no-store');
    assert.equal(res.headers.etag, undefined);
    assert.equal(ndjson(res.body).length, 3, 'limit caps the rows');
    const csv = await get('/api/v1/events/export?limit=1');
    assert.equal(csv.headers['content-disposition'], `attachment; filename="events-${day}.csv"`);
  });

  test('HEAD answers the headers without reading any row', async () => {
    const res = await app.inject({
      method: 'HEAD',
      url: '/api/v1/events/export?format=ndjson',
      headers: { 'x-api-key': key },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/x-ndjson; charset=utf-8');
    assert.equal(res.body, '');
  });

  test('format follows Accept when the parameter is absent; the parameter wins', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{}, '', 'text/csv'],
      [{ accept: 'application/x-ndjson' }, '', 'application/x-ndjson'],
      [{ accept: 'text/csv;q=0.5, application/x-ndjson' }, '', 'application/x-ndjson'],
      [{ accept: 'text/csv, application/x-ndjson;q=0.9' }, '', 'text/csv'],
      [{ accept: '*/*' }, '', 'text/csv'],
      [{ accept: 'application/x-ndjson' }, '&format=csv', 'text/csv'],
      [{ accept: 'text/csv' }, '&format=ndjson', 'application/x-ndjson'],
    ];
    for (const [headers, param, type] of cases) {
      const res = await get(`/api/v1/events/export?limit=2${param}`, headers);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], `${type}; charset=utf-8`, JSON.stringify([headers, param]));
    }
  });

  test('the rationale follows the tier: NDJSON shows it on intelligence only, CSV never', async () => {
    const full = ndjson((await get('/api/v1/events/export?limit=20&format=ndjson')).body);
    assert.ok(full.some((item) => Array.isArray(item.signal?.rationale)));
    assert.ok(full.every((item) => item.signal === null || Array.isArray(item.signal.rationale)));
    const lower = await get('/api/v1/events/export?limit=20&format=ndjson', {}, developerKey);
    assert.equal(lower.statusCode, 200);
    const items = ndjson(lower.body);
    assert.equal(items.length, 20);
    assert.ok(items.every((item) => item.signal === null || !('rationale' in item.signal)));
    const signals = ndjson(
      (await get('/api/v1/signals/export?limit=5&format=ndjson', {}, developerKey)).body,
    );
    assert.ok(signals.length === 5 && signals.every((item) => item.signal && !('rationale' in item.signal)));
    const csv = await get('/api/v1/signals/export?limit=5');
    assert.ok(!parseCsv(csv.body).header.includes('rationale'));
  });

  test('refusals before the first byte are error envelopes', async () => {
    const cases: [string, number, string, string?][] = [
      ['/api/v1/events/export?format=xml', 400, 'invalid_parameter', 'format'],
      ['/api/v1/events/export?limit=0', 400, 'invalid_parameter', 'limit'],
      ['/api/v1/events/export?offset=5', 400, 'invalid_parameter', 'offset'],
      ['/api/v1/events/export?from=2024-02-01&to=2024-01-01', 400, 'invalid_parameter', 'from'],
      ['/api/v1/signals/export?min_score=101', 400, 'invalid_parameter', 'min_score'],
      ['/api/v1/signals/export?engine=nope', 400, 'invalid_parameter'],
    ];
    for (const [url, status, code, names] of cases) {
      const res = await get(url);
      assert.equal(res.statusCode, status, url);
      const { error } = res.json<Envelope>();
      assert.equal(error.code, code, url);
      if (names) assert.match(error.message, new RegExp(`"${names}"`), url);
    }
    for (const url of ['/api/v1/events/export', '/api/v1/signals/export']) {
      const tier = await get(`${url}?engine=regime-aware`, {}, developerKey);
      assert.equal(tier.statusCode, 403, url);
      assert.equal(tier.json<Envelope>().error.code, 'tier_required');
      const keyless = await app.inject({ url, remoteAddress: '10.20.0.1' });
      assert.equal(keyless.statusCode, 401, url);
      assert.equal(keyless.json<Envelope>().error.code, 'unauthorized');
    }
  });

  test('formula-like text is neutralised and fields are quoted as RFC 4180 says', async () => {
    const hostile = {
      id: 'CONT_AWD_EXPORT_1',
      recipient: 'Acme, "Quoted"\r\nInc',
      description: '=HYPERLINK("http://evil.example","x")',
      agency: '+cmd|calc',
      subAgency: '@SUM(A1)',
      naics: '-2+3',
      psc: '\tTAB',
    };
    await db.query(
      `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
         awarding_sub_agency, description, naics, psc, nlp_classification, match_confidence, match_method)
       VALUES ($1, 'ZZQX', $2, '2024-05-01', -1500, $3, $4, $5, $6, $7, 'aircraft', 0.9, 'exact')`,
      [
        hostile.id,
        hostile.recipient,
        hostile.agency,
        hostile.subAgency,
        hostile.description,
        hostile.naics,
        hostile.psc,
      ],
    );
    await settled(app);
    const res = await get('/api/v1/events/export?ticker=ZZQX');
    assert.equal(res.statusCode, 200, res.body);
    const record = res.body.split('\r\n').slice(1).join('\r\n');
    assert.ok(
      record.startsWith('CONT_AWD_EXPORT_1,ZZQX,"Acme, ""Quoted""\r\nInc",2024-05-01,-1500,'),
      record,
    );
    assert.ok(
      record.includes(`,'+cmd|calc,'@SUM(A1),"'=HYPERLINK(""http://evil.example"",""x"")",'-2+3,'\tTAB,`),
    );
    const [row] = parseCsv(res.body).rows;
    assert.equal(row?.fields[2], hostile.recipient);
    assert.equal(row?.fields[4], '-1500', 'a negative number stays a number');
    assert.equal(row?.fields[7], `'${hostile.description}`);
    const [item] = ndjson((await get('/api/v1/events/export?ticker=ZZQX&format=ndjson')).body);
    assert.equal(item?.contract.description, hostile.description, 'NDJSON carries the text as it is');
  });
});

describe('the rate limit charges exports by the rows they send', () => {
  let db: Db;
  let app: App;

  before(async () => {
    db = await seededDb();
    app = await testApp(db);
  });
  after(() => closeApp(app, db));

  const remaining = async (key: string) => {
    const res = await app.inject({ url: '/api/v1/predictions', headers: { 'x-api-key': key } });
    return Number(res.headers['x-ratelimit-remaining']);
  };

  test('one request per 200 rows or part of them: 450 rows cost 3 of a test key’s 30', async () => {
    const { raw } = await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] });
    const res = await app.inject({ url: '/api/v1/events/export?limit=450', headers: { 'x-api-key': raw } });
    assert.equal(res.statusCode, 200);
    assert.equal(parseCsv(res.body).rows.length, 450);
    assert.equal(res.headers['x-ratelimit-remaining'], '29', 'the headers tell the admission');
    assert.equal(await remaining(raw), 30 - 3 - 1);
    const small = await app.inject({
      url: '/api/v1/signals/export?limit=200',
      headers: { 'x-api-key': raw },
    });
    assert.equal(parseCsv(small.body).rows.length, 200);
    assert.equal(await remaining(raw), 30 - 3 - 1 - 1 - 1, '200 rows are one request');
  });

  test('a full window makes the export wait for it instead of running past the limit', async () => {
    const { raw, keyId } = await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] });
    // 29 requests made 59.2 s ago: the export is the 30th, its further rows wait for them to expire.
    const then = Date.now() - 59_200;
    for (let i = 0; i < 29; i++) await app.limiter.hit(`key:${keyId}`, 30, 60_000, then);
    const started = Date.now();
    const res = await app.inject({ url: '/api/v1/events/export?limit=450', headers: { 'x-api-key': raw } });
    const took = Date.now() - started;
    assert.equal(res.statusCode, 200);
    assert.equal(parseCsv(res.body).rows.length, 450);
    assert.ok(took >= 600, `rows 201-450 waited for the window (${took} ms)`);
    assert.equal(await remaining(raw), 30 - 3 - 1, 'the old requests left, the three of the export stay');
  });

  test('an export with a spent window is refused like any request', async () => {
    const { raw, keyId } = await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] });
    for (let i = 0; i < 30; i++) await app.limiter.hit(`key:${keyId}`, 30, 60_000);
    const res = await app.inject({ url: '/api/v1/events/export', headers: { 'x-api-key': raw } });
    assert.equal(res.statusCode, 429);
    assert.equal(res.json<Envelope>().error.code, 'rate_limited');
  });
});

/** One HTTP/1.1 GET over a raw socket, so the test decides when (and whether) to read. */
function rawGet(port: number, path: string, key: string): net.Socket {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`);
  return socket;
}

const until = async (what: string, check: () => Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('streaming over a socket (30,000 events)', () => {
  let db: Db;
  let observer: Db;
  let app: App;
  let port: number;
  let key: string;
  let otherKey: string;

  before(async () => {
    db = await freshDb();
    await db.query(
      `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
         description, nlp_classification, match_confidence, match_method)
       SELECT 'CONT_AWD_' || n, 'LMT', 'Recipient ' || n, date '2020-01-01' + (n % 1500), n * 1000,
         'Department of Defense', repeat('description of work ', 12), 'aircraft', 0.95, 'exact'
       FROM generate_series(1, 30000) n`,
    );
    observer = db;
    // A short stall bound, so the stalled reader below is cut off quickly.
    app = await testApp(db, { EXPORT_STALL_MS: '500' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
    key = (await makeKey(db, { plan: 'institutional', scopes: ['read'] })).raw;
    otherKey = (await makeKey(db, { plan: 'institutional', scopes: ['read'] })).raw;
  });
  after(() => closeApp(app, db));

  /** Sessions of this database in an open transaction other than the observer's own. */
  const exporting = async () => {
    const rows = await observer.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND (state LIKE 'idle in transaction%' OR query LIKE 'FETCH%' AND state = 'active')`,
    );
    return rows[0]?.n ?? 0;
  };
  const poolIdle = async () => {
    const stats = db.poolStats?.();
    return stats !== undefined && stats.idle === stats.total && stats.waiting === 0;
  };

  test('a complete export is chunked, without Content-Length, and ends with the last chunk', async () => {
    const body = await new Promise<{ headers: http.IncomingHttpHeaders; rows: number }>((resolve, reject) => {
      http
        .get(
          `http://127.0.0.1:${port}/api/v1/events/export?format=ndjson`,
          { headers: { 'x-api-key': key } },
          (res) => {
            let rows = 0;
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              for (const c of chunk) if (c === '\n') rows++;
            });
            res.on('end', () => resolve({ headers: res.headers, rows }));
            res.on('error', reject);
          },
        )
        .on('error', reject);
    });
    assert.equal(body.headers['transfer-encoding'], 'chunked');
    assert.equal(body.headers['content-length'], undefined);
    assert.equal(body.rows, 30_000);
    await until('the connection is back in the pool', poolIdle);
  });

  test('a client that goes away mid-stream ends the query and gives the connection back', async () => {
    const socket = rawGet(port, '/api/v1/events/export', key);
    await new Promise((resolve) => socket.once('data', resolve));
    assert.ok((await exporting()) >= 1, 'the export holds its cursor while the client reads');
    socket.destroy();
    await until('no session holds the export', async () => (await exporting()) === 0);
    await until('the connection is back in the pool', poolIdle);
  });

  /** An export over a socket that has its first bytes and then reads nothing (held open). */
  const hold = (atPort: number, path: string, raw: string) => {
    const socket = rawGet(atPort, path, raw);
    socket.once('data', () => socket.pause());
    return socket;
  };

  test('a process runs at most 4 exports at once; a fifth is a 503 with Retry-After', async () => {
    // The default stall bound, so that the four held exports stay open while the fifth is asked.
    const patient = await testApp(db);
    await patient.listen({ port: 0, host: '127.0.0.1' });
    const held: net.Socket[] = [];
    try {
      const patientPort = (patient.server.address() as AddressInfo).port;
      // Two accounts, two exports each: each account's share is 2.
      for (const raw of [key, key, otherKey, otherKey])
        held.push(hold(patientPort, '/api/v1/events/export', raw));
      await until('four exports are open', async () => (await exporting()) >= 4);
      const third = (await makeKey(db, { plan: 'institutional', scopes: ['read'] })).raw;
      const fifth = await patient.inject({ url: '/api/v1/signals/export', headers: { 'x-api-key': third } });
      assert.equal(fifth.statusCode, 503, fifth.body);
      assert.equal(fifth.headers['retry-after'], '5');
      assert.equal(fifth.json<Envelope>().error.code, 'unavailable');
    } finally {
      for (const socket of held) socket.destroy();
      await until('the held exports are closed', async () => (await exporting()) === 0);
      await patient.close();
    }
  });

  test('one account runs at most 2 exports, whatever its keys (429, Retry-After); other accounts still get slots', async () => {
    const patient = await testApp(db);
    await patient.listen({ port: 0, host: '127.0.0.1' });
    const held: net.Socket[] = [];
    try {
      const patientPort = (patient.server.address() as AddressInfo).port;
      const owner = await makeKey(db, { plan: 'institutional', scopes: ['read'] });
      const second = await issueKey(db, {
        userId: owner.userId,
        name: 'second',
        scopes: ['read'],
        mode: 'live',
      });
      held.push(hold(patientPort, '/api/v1/events/export', owner.raw));
      held.push(hold(patientPort, '/api/v1/events/export', second.secret));
      await until('the account holds two exports', async () => (await exporting()) >= 2);
      for (const raw of [owner.raw, second.secret]) {
        const third = await patient.inject({
          url: '/api/v1/events/export?limit=5',
          headers: { 'x-api-key': raw },
        });
        assert.equal(third.statusCode, 429, third.body);
        assert.equal(third.headers['retry-after'], '5');
        const error = third.json<Envelope>().error;
        assert.deepEqual([error.status, error.code], [429, 'rate_limited']);
        assert.match(error.message, /2 exports of this account/);
      }
      const other = await patient.inject({
        url: '/api/v1/events/export?limit=5',
        headers: { 'x-api-key': key },
      });
      assert.equal(other.statusCode, 200, other.body);
      assert.equal(parseCsv(other.body).rows.length, 5);

      held.shift()?.destroy();
      await until('one of the account’s exports closed', async () => (await exporting()) === 1);
      const again = await patient.inject({
        url: '/api/v1/events/export?limit=5',
        headers: { 'x-api-key': owner.raw },
      });
      assert.equal(again.statusCode, 200, 'a closed export gives the account its slot back');
    } finally {
      for (const socket of held) socket.destroy();
      await until('the held exports are closed', async () => (await exporting()) === 0);
      await patient.close();
    }
  });

  test('an export that outlives EXPORT_DEADLINE_MS is ended, however steadily its client reads', async () => {
    const hasty = await testApp(db, { EXPORT_DEADLINE_MS: '1500' });
    await hasty.listen({ port: 0, host: '127.0.0.1' });
    try {
      // NDJSON: twice the bytes of the CSV, more than the sockets' buffers hold.
      const path = '/api/v1/events/export?format=ndjson';
      const socket = rawGet((hasty.server.address() as AddressInfo).port, path, key);
      socket.setEncoding('latin1');
      let received = '';
      // A client that never stalls but reads slowly: a chunk, then a pause of 250 ms.
      const slowly = (chunk: string) => {
        received += chunk;
        socket.pause();
        setTimeout(() => socket.resume(), 250).unref();
      };
      socket.on('data', slowly);
      await until('the export is open', async () => (await exporting()) >= 1);
      await until('the export is ended on the server', async () => (await exporting()) === 0, 15_000);
      // What was sent before the end, read at full speed: it lacks the terminating chunk.
      socket.off('data', slowly);
      socket.on('data', (chunk: string) => {
        received += chunk;
      });
      socket.resume();
      await new Promise((resolve) => socket.once('close', resolve));
      assert.match(received, /^HTTP\/1\.1 200/);
      assert.ok(!received.endsWith('\r\n0\r\n\r\n'), 'an ended export never gets the terminating chunk');
      await until('no session holds the export', async () => (await exporting()) === 0);
    } finally {
      await hasty.close();
    }
  });

  test('an export whose key’s window admits nothing within EXPORT_STALL_MS is ended, not parked on its slot', async () => {
    const { raw, keyId } = await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] });
    // 29 of the test key's 30 spent just now: the export is admitted, its next rows would wait ~60 s.
    for (let i = 0; i < 29; i++) await app.limiter.hit(`key:${keyId}`, 30, 60_000);
    const socket = rawGet(port, '/api/v1/events/export', raw);
    socket.setEncoding('latin1');
    let received = '';
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    const started = Date.now();
    await new Promise((resolve) => socket.once('close', resolve));
    assert.ok(Date.now() - started < 30_000, `ended after ${Date.now() - started} ms, not after the window`);
    assert.match(received, /^HTTP\/1\.1 200/);
    assert.ok(!received.endsWith('\r\n0\r\n\r\n'), 'an ended export never gets the terminating chunk');
    await until('no session holds the export', async () => (await exporting()) === 0);
  });

  test('an export whose key is revoked ends at its next batch, without the terminating chunk', async () => {
    const patient = await testApp(db);
    await patient.listen({ port: 0, host: '127.0.0.1' });
    try {
      const revoked = await makeKey(db, { plan: 'institutional', scopes: ['read'] });
      const socket = rawGet(
        (patient.server.address() as AddressInfo).port,
        '/api/v1/events/export',
        revoked.raw,
      );
      socket.setEncoding('latin1');
      let received = '';
      await new Promise<void>((resolve) =>
        socket.once('data', (chunk: string) => {
          received += chunk;
          socket.pause();
          resolve();
        }),
      );
      await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.keyId]);
      await settled(patient);
      const ended = new Promise((resolve) => socket.once('close', resolve));
      socket.on('data', (chunk: string) => {
        received += chunk;
      });
      socket.resume();
      await ended;
      const rows = received.split('\r\n').filter((line) => line.startsWith('CONT_AWD_')).length;
      assert.ok(rows < 30_000, `${rows} rows were sent to a revoked key`);
      assert.ok(!received.endsWith('\r\n0\r\n\r\n'), 'the revoked export never gets the terminating chunk');
      await until('no session holds the export', async () => (await exporting()) === 0);
    } finally {
      await patient.close();
    }
  });

  test('a client that stops reading is cut off after EXPORT_STALL_MS; the body has no last chunk', async () => {
    const socket = rawGet(port, '/api/v1/events/export', key);
    let received = '';
    socket.setEncoding('latin1');
    socket.once('data', (chunk: string) => {
      received += chunk;
      socket.pause();
    });
    await until('the reader stalls with the export open', async () => (await exporting()) >= 1);
    await until('the stalled export is closed', async () => (await exporting()) === 0, 8000);
    await until('the connection is back in the pool', poolIdle);
    const ended = new Promise((resolve) => socket.once('close', resolve));
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.resume();
    await ended;
    assert.match(received, /^HTTP\/1\.1 200/);
    assert.ok(!received.endsWith('\r\n0\r\n\r\n'), 'a cut export never gets the terminating chunk');
  });
});
