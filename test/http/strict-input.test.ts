/**
 * Query and path values are judged as the strings sent, before Ajv's coercion: the wording of each
 * refusal, and the edge values that must still pass.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import {
  closeApp,
  type Envelope,
  getJson,
  type Injector,
  makeKey,
  openSeededApp,
  withKey,
} from '../support/app.ts';

let db: Db;
let app: App;
let client: Injector;

before(async () => {
  ({ db, app, client } = await openSeededApp());
});
after(() => closeApp(app, db));

describe('strict query and path input', () => {
  const refused: [string, string][] = [
    ['/api/v1/events?limit=0x10', 'invalid query parameter "limit": must be an integer'],
    ['/api/v1/events?limit=%2010', 'invalid query parameter "limit": must be an integer'],
    ['/api/v1/events?limit=1e1', 'invalid query parameter "limit": must be an integer'],
    ['/api/v1/events?limit=Infinity', 'invalid query parameter "limit": must be an integer'],
    ['/api/v1/events?limit=', 'invalid query parameter "limit": must be an integer'],
    ['/api/v1/events?offset=-1', 'invalid query parameter "offset": must be >= 0'],
    ['/api/v1/signals?min_score=99999999999999999999', 'invalid query parameter "min_score": must be <= 100'],
    ['/api/v1/events?limit=1&limit=2', 'invalid query parameter "limit": must be given once'],
    ['/api/v1/events?ticker=LMT&ticker=BA', 'invalid query parameter "ticker": must be given once'],
    ['/api/v1/events?from=0000-01-01', 'invalid query parameter "from": must be on or after 1900-01-01'],
    ['/api/v1/events?to=2024-02-30', 'invalid query parameter "to": must be a date YYYY-MM-DD'],
    ['/api/v1/events?to=2023-02-29', 'invalid query parameter "to": must be a date YYYY-MM-DD'],
    ['/api/v1/events?from=%2B020000-01-01', 'invalid query parameter "from": must be a date YYYY-MM-DD'],
    [
      '/api/v1/signals?since=0000-01-01T00:00:00Z',
      'invalid query parameter "since": must be on or after 1900-01-01',
    ],
    [
      '/api/v1/signals?since=2016-12-31T23:59:60Z',
      'invalid query parameter "since": must be a valid date-time',
    ],
  ];
  for (const [url, message] of refused) {
    test(`refuses ${url.split('?')[1]} with 400 naming the parameter`, async () => {
      const { status, body } = await getJson<Envelope>(client, url);
      assert.equal(status, 400);
      assert.equal(body.error.status, 400);
      assert.equal(body.error.code, 'invalid_parameter');
      assert.equal(body.error.message, message);
      assert.equal((body.error as { param?: string }).param, /"([^"]+)"/.exec(message)?.[1]);
    });
  }

  const accepted = [
    '/api/v1/events?limit=007',
    '/api/v1/events?from=1900-01-01&to=9999-12-31',
    '/api/v1/events?from=2024-02-29',
    '/api/v1/signals?since=2024-03-01T00:00:00.123%2B01:00',
    '/api/v1/signals?since=2999-01-01T00:00:00Z',
    '/api/v1/market/candles/SPY?limit=5000',
  ];
  for (const url of accepted) {
    test(`accepts ${url.split('?')[1]}`, async () => {
      const { status, body } = await getJson(client, url);
      assert.equal(status, 200, JSON.stringify(body));
    });
  }
});

describe('the error names the offending parameter in `param`', () => {
  type ParamEnvelope = { error: { code: string; message: string; param?: string } };
  let admin: Injector;
  before(async () => {
    admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['read', 'write', 'admin'] })).raw);
  });
  const send = async (method: 'GET' | 'POST', url: string, payload?: unknown, headers = {}) => {
    const res = await admin.inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as string }),
    });
    return { status: res.statusCode, body: res.json<ParamEnvelope>() };
  };

  test('query, path and header parameters by name; a header in lower case', async () => {
    for (const [url, param] of [
      ['/api/v1/events?limit=abc', 'limit'],
      ['/api/v1/events?nope=1', 'nope'],
      ['/api/v1/contracts/CONT_AWD_X/score?engine=nope', 'engine'],
      ['/api/v1/events?from=2024-02-01&to=2024-01-01', 'from'],
      ['/api/v1/webhooks/not-a-uuid/deliveries', 'id'],
    ] as const) {
      const { status, body } = await send('GET', url);
      assert.equal(status, 400, url);
      assert.equal(body.error.code, 'invalid_parameter', url);
      assert.equal(body.error.param, param, `${url}: ${body.error.message}`);
    }
    const header = await send(
      'POST',
      '/api/v1/webhooks',
      { url: 'https://hooks.example.com/p' },
      {
        'idempotency-key': '',
      },
    );
    assert.equal(header.status, 400);
    assert.equal(header.body.error.param, 'idempotency-key', header.body.error.message);
  });

  test('body fields by their dotted path; none for a body that is not JSON', async () => {
    const [user] = await db.query<{ id: string }>('SELECT id FROM users LIMIT 1');
    const keys = `/api/v1/admin/users/${user?.id}/keys`;
    for (const [url, payload, param] of [
      ['/api/v1/webhooks', { url: 5 }, 'url'],
      ['/api/v1/webhooks', {}, 'url'],
      ['/api/v1/webhooks', { url: 'https://hooks.example.com/p', secret: 'x' }, 'secret'],
      [keys, { name: 'k', scopes: ['read', 'root'], mode: 'live' }, 'scopes.1'],
      [keys, { name: 'k', scopes: ['read'] }, 'mode'],
    ] as const) {
      const { status, body } = await send('POST', url, payload);
      assert.equal(status, 400, JSON.stringify(payload));
      assert.equal(body.error.code, 'invalid_body');
      assert.equal(body.error.param, param, `${JSON.stringify(payload)}: ${body.error.message}`);
    }
    const garbled = await send('POST', '/api/v1/webhooks', '{"url":', { 'content-type': 'application/json' });
    assert.equal(garbled.status, 400);
    assert.equal(garbled.body.error.code, 'invalid_body');
    assert.equal('param' in garbled.body.error, false);
  });
});
