import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Envelope, getJson, type Injector, openSeededApp } from '../support/app.ts';

interface EventPage {
  data: {
    contract: {
      id: string;
      ticker: string;
      award_date: string;
      awarding_agency: string;
      nlp_classification: string;
    };
    signal: { engine_name: string; signal_score: number; rationale?: unknown } | null;
  }[];
  pagination: { limit: number; offset: number; count: number; next_cursor: string | null };
}

let db: Db;
let app: App;
let client: Injector;
before(async () => ({ db, app, client } = await openSeededApp()));
after(() => closeApp(app, db));

function assertNewestFirst(page: EventPage) {
  for (let i = 1; i < page.data.length; i++) {
    const prev = page.data[i - 1]?.contract;
    const cur = page.data[i]?.contract;
    assert.ok(prev && cur);
    assert.ok(
      prev.award_date > cur.award_date || (prev.award_date === cur.award_date && prev.id > cur.id),
      `${prev.award_date}/${prev.id} should come before ${cur.award_date}/${cur.id}`,
    );
  }
}

describe('GET /api/v1/events', () => {
  test('defaults to 50 events, newest award first, each with its default-engine signal', async () => {
    const { status, body } = await getJson<EventPage>(client, '/api/v1/events');
    assert.equal(status, 200);
    const { next_cursor, ...page } = body.pagination;
    assert.deepEqual(page, { limit: 50, offset: 0, count: 50 });
    assert.equal(typeof next_cursor, 'string', 'more events follow');
    assertNewestFirst(body);
    for (const item of body.data) {
      assert.match(item.contract.id, /^CONT_AWD_/);
      assert.ok(item.contract.ticker);
      assert.equal(item.signal?.engine_name, 'materiality');
      assert.ok(Array.isArray(item.signal?.rationale), 'institutional keys see the rationale');
    }
  });

  test('pages continue where the previous page ended', async () => {
    const first = await getJson<EventPage>(client, '/api/v1/events?limit=10');
    const second = await getJson<EventPage>(client, '/api/v1/events?limit=5&offset=5');
    assert.deepEqual(
      second.body.data.map((d) => d.contract.id),
      first.body.data.slice(5).map((d) => d.contract.id),
    );
    const { next_cursor, ...page } = second.body.pagination;
    assert.deepEqual(page, { limit: 5, offset: 5, count: 5 });
    assert.equal(typeof next_cursor, 'string');
  });

  test('filters by ticker (case-insensitive), agency, classification and date range', async () => {
    const byTicker = await getJson<EventPage>(client, '/api/v1/events?ticker=lmt&limit=200');
    assert.ok(byTicker.body.data.length > 0);
    assert.ok(byTicker.body.data.every((d) => d.contract.ticker === 'LMT'));
    assertNewestFirst(byTicker.body);

    const byAgency = await getJson<EventPage>(
      client,
      '/api/v1/events?agency=department%20of%20defense&limit=20',
    );
    assert.ok(byAgency.body.data.length > 0);
    assert.ok(byAgency.body.data.every((d) => d.contract.awarding_agency === 'Department of Defense'));

    const byClass = await getJson<EventPage>(client, '/api/v1/events?classification=aircraft&limit=20');
    assert.ok(byClass.body.data.length > 0);
    assert.ok(byClass.body.data.every((d) => d.contract.nlp_classification === 'aircraft'));

    const byDate = await getJson<EventPage>(client, '/api/v1/events?from=2023-03-01&to=2023-03-31&limit=200');
    assert.ok(byDate.body.data.length > 0);
    assert.ok(
      byDate.body.data.every(
        (d) => d.contract.award_date >= '2023-03-01' && d.contract.award_date <= '2023-03-31',
      ),
    );
  });

  test('/api/v1/contracts answers exactly like /api/v1/events', async () => {
    const events = await getJson(client, '/api/v1/events?ticker=GD&limit=7&offset=3');
    const contracts = await getJson(client, '/api/v1/contracts?ticker=GD&limit=7&offset=3');
    assert.equal(contracts.status, 200);
    assert.deepEqual(contracts.body, events.body);
  });

  test('engine=regime-aware joins that engine’s signals', async () => {
    const { body } = await getJson<EventPage>(client, '/api/v1/events?engine=regime-aware&limit=5');
    assert.ok(body.data.every((d) => d.signal?.engine_name === 'regime-aware'));
  });

  const bad: [string, RegExp][] = [
    ['limit=0', /"limit"/],
    ['limit=201', /"limit"/],
    ['limit=abc', /"limit"/],
    ['limit=1.5', /"limit"/],
    ['offset=-1', /"offset"/],
    ['from=2024-13-01', /"from"/],
    ['to=yesterday', /"to"/],
    ['from=2024-05-01&to=2024-04-01', /"from"/],
    ['classification=boats', /"classification"/],
    ['ticker=', /"ticker"/],
    ['engine=nope', /"engine": must be one of materiality/],
    ['colour=red', /unknown query parameter "colour"/],
    ['limit=1&limit=2', /"limit"/],
  ];
  for (const [query, message] of bad) {
    test(`rejects ${query} with 400 in the error envelope`, async () => {
      const { status, body } = await getJson<Envelope>(client, `/api/v1/events?${query}`);
      assert.equal(status, 400);
      assert.equal(body.error.status, 400);
      assert.match(body.error.message, message);
    });
  }
});
