import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { materiality } from '../../src/domain/engines/materiality.ts';
import { regimeAware } from '../../src/domain/engines/regime-aware.ts';
import type { Plan } from '../../src/domain/plans.ts';
import type { RationaleItem } from '../../src/domain/types.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { encodeRationale } from '../../src/store/rows.ts';
import { closeApp, type Injector, keyedClient, makeKey, testApp, withKey } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { legacyBodies, NEXT_PAGE } from '../support/legacy-lists.ts';

const EDGE = [
  'CONT_AWD_EDGE1_9700_-NONE-_-NONE-',
  'CONT_AWD_EDGE2_9700_-NONE-_-NONE-',
  'CONT_AWD_EDGE3_9700_-NONE-_-NONE-',
];
const AWKWARD =
  'quote " back\\slash tab\t newline\n ctrl \u0001\u001f del \u007f é 😀 \u2028 "rationale":[["x",1,2,3,"y"]]';

/** Rows at the edges of JSON writing: escapes, number notation, -0, 2^53 - 1, microseconds, ties, empty rationale. */
async function addEdgeRows(db: Db): Promise<void> {
  const contract = `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
      awarding_sub_agency, description, naics, psc, nlp_classification, match_confidence, match_method)
    VALUES ($1, 'EDGE', $2, $3, $4, 'Department of Defense', NULL, $5, NULL, 'AB12', 'aircraft', $6::float8, 'fuzzy')`;
  await db.query(contract, [EDGE[0], AWKWARD, '2024-02-29', 9007199254740991, AWKWARD, '1e-7']);
  await db.query(contract, [EDGE[1], 'EDGE TWO', '2024-02-29', 0, null, '0.000015']);
  await db.query(contract, [EDGE[2], 'EDGE THREE', '1990-01-02', 1, '', '-0']);
  const item = (rule: string, value: number, detail: string): RationaleItem => ({
    rule,
    weight: 10,
    value,
    contribution: value * 10,
    detail,
  });
  const signal = `INSERT INTO signals (id, contract_id, ticker, engine_name, engine_version, engine_tier, signal_score,
      importance_score, confidence_score, risk_score, rationale, computed_at)
    VALUES ($1, $2, 'EDGE', $3, $4, $5, $6, 0, 100, 50, $7, $8::timestamptz)`;
  const m = [materiality.name, materiality.version, materiality.tier];
  // Rule names are a closed set (RationaleRule); the awkward text is in the details.
  const rationale = encodeRationale([
    item('award_size', 1e-7, AWKWARD),
    item('relative_to_median', 1e21, ''),
    item('agency', 0.1 + 0.2, '\\'),
  ]);
  await db.query(signal, [randomUUID(), EDGE[0], ...m, 100, rationale, '2024-03-01 12:34:56.789999+00']);
  // Older: the events list shows the latest only.
  await db.query(signal, [
    randomUUID(),
    EDGE[0],
    materiality.name,
    '0.9.0',
    materiality.tier,
    99,
    '[]',
    '2024-03-01',
  ]);
  await db.query(signal, [randomUUID(), EDGE[1], ...m, 100, '[]', '0999-01-01 00:00:00.5+00']);
  const ra = [regimeAware.name, regimeAware.version, regimeAware.tier];
  await db.query(signal, [randomUUID(), EDGE[2], ...ra, 0, rationale, '2024-03-01 00:00:00+00']);
  const candle = `INSERT INTO candles (ticker, date, open, high, low, close, adj_close, volume)
    VALUES ('EDGE', $1, $2::float8, $3::float8, $4::float8, $5::float8, $6::float8, $7)`;
  await db.query(candle, ['2024-01-02', '1e21', '1e-7', '12.50', '-0', String(0.1 + 0.2), 9007199254740991]);
  await db.query(candle, ['2024-01-03', '1.5e-5', '1e15', '123456789.123', '1e-6', '9.99e-7', 0]);
  await db.query(candle, ['2024-01-04', '1e20', '1.7976931348623157e308', '5e-324', '0.0001', '100', 1]);
  // A contract's regime is its award date's (the regimes view, migration 008).
  const regime = `INSERT INTO market_regimes (award_date, as_of, benchmark, dominant, scores, features, engine_version)
    VALUES ($1, $1::date - 1, 'SPY', $2, $3::jsonb, $4::jsonb, '1.0.0')
    ON CONFLICT (award_date) DO UPDATE SET as_of = EXCLUDED.as_of, dominant = EXCLUDED.dominant,
      scores = EXCLUDED.scores, features = EXCLUDED.features`;
  await db.query(regime, [
    '2024-02-29',
    'range_bound',
    '{"range_bound": 0.30000000000000004, "high_volatility": 0, "risk_off": 12.50, "risk_on": 1e-7}',
    '{"z": 1e21, "a": 1.5e-5, "é\\"": -0.0, "long_feature_name": 123.4500, "p": 0.123456789012345678901}',
  ]);
  await db.query(regime, [
    '1990-01-02',
    'risk_on',
    '{"risk_on": 1, "risk_off": 0, "high_volatility": 0, "range_bound": 0}',
    '{}',
  ]);
}

const DEVELOPER: Plan = 'developer';
const INSTITUTIONAL: Plan = 'institutional';
const BOTH = [INSTITUTIONAL, DEVELOPER];

/** Valid list URLs, each answered 200, and the plans (tiers) to ask them with. */
function cases(): { url: string; plans: Plan[] }[] {
  const events = [
    '',
    '?limit=1',
    '?limit=200',
    '?limit=7&offset=5',
    '?offset=6000',
    '?offset=1000000',
    '?ticker=LMT',
    '?ticker=lmt&limit=100',
    '?agency=Department%20of%20Defense',
    '?agency=department%20of%20homeland%20security&limit=30',
    '?classification=aircraft',
    '?classification=healthcare&offset=3',
    '?from=2022-01-01&to=2022-12-31',
    '?from=2025-12-31',
    '?to=1996-01-01',
    '?from=2024-02-29&to=2024-02-29',
    '?ticker=RTX&classification=missiles_munitions',
    '?ticker=GD&from=2023-01-01&to=2023-06-30&limit=5&offset=2',
    '?agency=Department%20of%20Defense&classification=shipbuilding&from=2021-01-01',
    '?ticker=EDGE',
    '?ticker=ZZZZ',
    '?engine=materiality&ticker=BA',
  ];
  const list = [
    ...events.map((q) => ({ url: `/api/v1/events${q}`, plans: BOTH })),
    ...['', '?ticker=EDGE', '?limit=3&offset=3'].map((q) => ({ url: `/api/v1/contracts${q}`, plans: BOTH })),
    ...['?engine=regime-aware', '?engine=regime-aware&ticker=EDGE&limit=10'].map((q) => ({
      url: `/api/v1/events${q}`,
      plans: [INSTITUTIONAL],
    })),
  ];
  const signals = [
    '',
    '?limit=1',
    '?limit=200&offset=10',
    '?min_score=75',
    '?min_score=100',
    '?min_score=40&ticker=ba&limit=100',
    '?ticker=EDGE',
    '?since=2024-03-01T12:34:56.789Z',
    '?since=2999-01-01T00:00:00Z',
    '?offset=1000000',
    '?ticker=LMT&min_score=60&since=2000-01-01T00:00:00%2B05:00',
  ];
  list.push(...signals.map((q) => ({ url: `/api/v1/signals${q}`, plans: BOTH })));
  list.push(
    ...['?engine=regime-aware', '?engine=regime-aware&ticker=EDGE', '?engine=regime-aware&min_score=90'].map(
      (q) => ({
        url: `/api/v1/signals${q}`,
        plans: [INSTITUTIONAL],
      }),
    ),
  );
  const regimes = [
    '',
    '?limit=1',
    '?limit=200',
    '?dominant=risk_on',
    '?dominant=risk_off&limit=200',
    '?dominant=high_volatility',
    '?dominant=range_bound',
    `?contract_id=${EDGE[0]}`,
    `?contract_id=${EDGE[2]}&dominant=risk_on`,
    `?contract_id=${EDGE[2]}&dominant=risk_off`,
    '?dominant=range_bound&limit=200',
    '?contract_id=CONT_AWD_NONE',
  ];
  list.push(...regimes.map((q) => ({ url: `/api/v1/regimes${q}`, plans: [INSTITUTIONAL] })));
  const candles = [
    'SPY',
    'spy?limit=5000',
    'LMT?from=2020-01-01&limit=30',
    'ITA?to=2019-12-31&limit=10',
    'XLI?from=2024-03-01&to=2024-03-08',
    'EDGE',
    'edge?from=2024-01-03',
    'SPY?from=2999-01-01',
  ];
  list.push(...candles.map((q) => ({ url: `/api/v1/market/candles/${q}`, plans: [DEVELOPER] })));
  const benchmarks = [
    '?ticker=SPY',
    '?ticker=xli&from=2024-03-01&to=2024-03-08',
    '?ticker=ITA&to=2000-01-01',
  ];
  list.push(...benchmarks.map((q) => ({ url: `/api/v1/benchmarks${q}`, plans: [DEVELOPER] })));
  return list;
}

describe('the list endpoints write the JSON the object path wrote', () => {
  let db: Db;
  let app: App;
  let legacy: Awaited<ReturnType<typeof legacyBodies>>;
  const clients = new Map<Plan, Injector>();
  before(async () => {
    db = await seededDb();
    await addEdgeRows(db);
    app = await testApp(db);
    clients.set(INSTITUTIONAL, await keyedClient(app, db));
    clients.set(DEVELOPER, withKey(app, (await makeKey(db, { plan: DEVELOPER })).raw));
    legacy = await legacyBodies(db);
  });
  after(async () => {
    await legacy.close();
    await closeApp(app, db);
  });

  test('over at least 50 requests', () => {
    assert.ok(cases().reduce((n, c) => n + c.plans.length, 0) >= 50);
  });

  for (const { url, plans } of cases()) {
    for (const plan of plans) {
      test(`${url} (${plan})`, async () => {
        const client = clients.get(plan);
        assert.ok(client);
        const res = await client.inject(url);
        assert.equal(res.statusCode, 200, res.body);
        const expected = await legacy.body(url, plan);
        // The reference knows whether a page follows, not the cursor's text (test/http/cursor-paging.test.ts).
        const body = res.body.replace(/"next_cursor":"[A-Za-z0-9_-]+"/, `"next_cursor":"${NEXT_PAGE}"`);
        assert.deepEqual(JSON.parse(body), JSON.parse(expected.body));
        assert.equal(body, expected.body, 'the same bytes');
        assert.equal(res.headers['content-type'], expected.contentType);
      });
    }
  }

  test('the edge rows are in the answers compared', async () => {
    const institutional = clients.get(INSTITUTIONAL);
    assert.ok(institutional);
    const events = (await institutional.inject('/api/v1/events?ticker=EDGE')).body;
    assert.ok(
      events.includes('"match_confidence":1e-7,') && events.includes('"contract_value":9007199254740991,'),
    );
    assert.ok(events.includes('"computed_at":"2024-03-01T12:34:56.789Z"'));
    assert.ok(events.includes('"value":1e+21,') && events.includes('"detail":"\\\\"}'));
    assert.ok(events.includes('"match_confidence":0.000015,') && events.includes('"match_confidence":0,'));
    const candles = (await institutional.inject('/api/v1/market/candles/EDGE')).body;
    for (const written of [
      '1e+21',
      '1e-7',
      '12.5',
      '"close":0,',
      '0.30000000000000004',
      '100000000000000000000',
    ]) {
      assert.ok(candles.includes(written), written);
    }
    const regimes = (await institutional.inject(`/api/v1/regimes?contract_id=${EDGE[0]}`)).body;
    assert.ok(
      regimes.includes(
        '"scores":{"risk_on":1e-7,"risk_off":12.5,"high_volatility":0,"range_bound":0.30000000000000004}',
      ),
      regimes,
    );
  });

  test('rationale: the intelligence tier sees it, developer keys never do', async () => {
    for (const url of ['/api/v1/events?ticker=EDGE', '/api/v1/signals?ticker=EDGE']) {
      assert.match(
        (await clients.get(INSTITUTIONAL)?.inject(url))?.body ?? '',
        /"rationale":\[\{"rule":"award_size"/,
      );
      assert.doesNotMatch((await clients.get(DEVELOPER)?.inject(url))?.body ?? '', /"rationale"/);
    }
  });

  test('errors are unchanged: unknown ticker 404, engine above the tier 403, regimes need intelligence', async () => {
    const developer = clients.get(DEVELOPER);
    assert.ok(developer);
    assert.equal((await developer.inject('/api/v1/market/candles/ZZZZ')).statusCode, 404);
    assert.equal((await developer.inject('/api/v1/events?engine=regime-aware')).statusCode, 403);
    assert.equal((await developer.inject('/api/v1/regimes')).statusCode, 403);
  });
});

describe('the list endpoints send the JSON the database wrote, as it is', () => {
  let db: Db;
  let app: App;
  let client: Injector;
  /** What a list query answers instead of the database: text no serializer would write. */
  const written = '[ {"zz" : 1.50, "e":"\\u00e9", "contract" : null} ]';
  before(async () => {
    db = await seededDb();
    const lists: Db = {
      ...db,
      query: async <T>(text: string, params?: readonly unknown[]) =>
        text.includes(' AS json,')
          ? ([{ json: written, count: 1, next: null }] as T[])
          : db.query<T>(text, params),
    };
    app = await testApp(lists);
    client = await keyedClient(app, db);
  });
  after(() => closeApp(app, db));

  const page = (limit: number, offset: number) =>
    `{"data":${written},"pagination":{"limit":${limit},"offset":${offset},"count":1,"next_cursor":null}}`;
  for (const [url, body] of [
    ['/api/v1/events?limit=7&offset=2', page(7, 2)],
    ['/api/v1/contracts', page(50, 0)],
    ['/api/v1/signals?ticker=LMT', page(50, 0)],
    ['/api/v1/regimes?limit=3', page(3, 0)],
    ['/api/v1/market/candles/SPY', written],
    ['/api/v1/benchmarks?ticker=ITA', written],
  ] as const) {
    test(url, async () => {
      const res = await client.inject(url);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, body);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    });
  }
});
