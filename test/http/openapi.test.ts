import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Injector, openSeededApp } from '../support/app.ts';
import { DocValidator, type OpenApiDoc } from './openapi-support.ts';

let db: Db;
let app: App;
let client: Injector;
let doc: OpenApiDoc;
before(async () => {
  ({ db, app, client } = await openSeededApp());
  doc = app.swagger() as unknown as OpenApiDoc;
});
after(() => closeApp(app, db));

describe('OpenAPI document', () => {
  test('the committed openapi.json equals the generated document (run `npm run openapi` after route changes)', async () => {
    const committed = JSON.parse(await readFile(new URL('../../openapi.json', import.meta.url), 'utf8'));
    assert.deepEqual(JSON.parse(JSON.stringify(doc)), committed);
  });

  test('is OpenAPI 3.1 and describes every endpoint of the spec', () => {
    assert.equal(doc.openapi, '3.1.0');
    for (const path of [
      '/api/v1/health',
      '/api/v1/events',
      '/api/v1/contracts',
      '/api/v1/contracts/{id}',
      '/api/v1/contracts/{id}/score',
      '/api/v1/signals',
      '/api/v1/companies/{ticker}',
      '/api/v1/market/candles/{ticker}',
      '/api/v1/benchmarks',
      '/api/v1/regimes',
      '/api/v1/predictions',
      '/api/v1/openapi.json',
    ]) {
      assert.ok(doc.paths[path], `${path} is documented`);
    }
    assert.ok(doc.paths['/api/v1/contracts/{id}/score']?.post);
  });

  test('every 401 declares its WWW-Authenticate challenge', () => {
    let count = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, { responses?: Record<string, unknown> }>,
      )) {
        const unauthorized = op.responses?.['401'] as { headers?: Record<string, unknown> } | undefined;
        if (!unauthorized) continue;
        count += 1;
        assert.ok(
          unauthorized.headers?.['WWW-Authenticate'],
          `${method} ${path}: 401 without WWW-Authenticate`,
        );
      }
    }
    assert.ok(count > 30, `only ${count} operations with a 401`);
  });

  test('real responses of every endpoint match the document’s schemas', async () => {
    const validator = new DocValidator(doc);
    const [row] = await db.query<{ id: string }>(
      "SELECT id FROM contracts WHERE ticker = 'NOC' ORDER BY award_date DESC LIMIT 1",
    );
    assert.ok(row);
    // An award of the demo data whose owner on the date had no listed stock (ManTech after 2022…).
    const [unlisted] = await db.query<{ id: string }>(
      'SELECT id FROM contracts WHERE ticker IS NULL AND entity_id IS NOT NULL ORDER BY id LIMIT 1',
    );
    assert.ok(unlisted, 'the demo data holds an award whose owner had no ticker');
    const calls: [string, string, string][] = [
      ['get', '/api/v1/contracts/{id}', `/api/v1/contracts/${encodeURIComponent(unlisted.id)}`],
      ['get', '/api/v1/health', '/api/v1/health'],
      ['get', '/api/v1/events', '/api/v1/events?limit=20'],
      ['get', '/api/v1/contracts', '/api/v1/contracts?limit=3'],
      ['get', '/api/v1/contracts/{id}', `/api/v1/contracts/${row.id}`],
      ['get', '/api/v1/contracts/{id}', '/api/v1/contracts/CONT_AWD_UNKNOWN'],
      ['get', '/api/v1/contracts/{id}/score', `/api/v1/contracts/${row.id}/score`],
      ['post', '/api/v1/contracts/{id}/score', `/api/v1/contracts/${row.id}/score?engine=regime-aware`],
      ['get', '/api/v1/signals', '/api/v1/signals?limit=20'],
      ['get', '/api/v1/companies/{ticker}', '/api/v1/companies/NOC'],
      ['get', '/api/v1/market/candles/{ticker}', '/api/v1/market/candles/ITA?limit=30'],
      ['get', '/api/v1/benchmarks', '/api/v1/benchmarks?ticker=SPY&from=2024-01-01'],
      ['get', '/api/v1/benchmarks', '/api/v1/benchmarks?ticker=xli&limit=3'],
      ['get', '/api/v1/benchmarks', '/api/v1/benchmarks?ticker=LMT'],
      ['get', '/api/v1/events', '/api/v1/events?engine=nope'],
      ['get', '/api/v1/regimes', '/api/v1/regimes?limit=10'],
      ['get', '/api/v1/predictions', '/api/v1/predictions'],
      ['get', '/api/v1/events', '/api/v1/events?limit=0'],
    ];
    for (const [method, path, url] of calls) {
      const res = await client.inject({ method: method === 'post' ? 'POST' : 'GET', url });
      const schema =
        doc.paths[path]?.[method]?.responses[String(res.statusCode)]?.content?.['application/json']?.schema;
      assert.ok(schema, `${method} ${path} documents status ${res.statusCode}`);
      assert.equal(validator.check(schema, res.json()), '', url);
    }
  });
});
