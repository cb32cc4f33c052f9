/**
 * GET /api/v1/predictions on the seeded demo: stored point-in-time predictions of the announcement
 * events, their outcomes recomputed here from the API's own candles, paging and filters, hostile values.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PREDICTION_MODEL } from '../../src/domain/prediction.ts';
import type { App } from '../../src/http/types.ts';
import { predictEvents, predictMissing } from '../../src/pipeline/predict.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Envelope, getJson, type Injector, openSeededApp } from '../support/app.ts';

interface Item {
  contract_id: string;
  ticker: string;
  made_at: string;
  day0: string;
  horizon_days: number;
  benchmark: string;
  expected_abnormal_return: number;
  interval: { level: number; low: number; high: number };
  model: { name: string; version: string };
  realized_abnormal_return: number | null;
}
interface Body {
  data: Item[];
  pagination: { limit: number; count: number; next_cursor: string | null };
  model: {
    name: string;
    out_of_sample: { n: number; coverage: number | null; mean_width: number | null };
  };
  note: string;
}

let db: Db;
let app: App;
let client: Injector;
const all: Item[] = [];
before(async () => {
  ({ db, app, client } = await openSeededApp());
  for (let url = '/api/v1/predictions?limit=200'; ; ) {
    const { body } = await getJson<Body>(client, url);
    all.push(...body.data);
    if (!body.pagination.next_cursor) break;
    url = `/api/v1/predictions?limit=200&cursor=${body.pagination.next_cursor}`;
  }
});
after(() => closeApp(app, db));

async function closes(ticker: string): Promise<Map<string, number>> {
  const { body } = await getJson<{ date: string; adj_close: number }[]>(
    client,
    `/api/v1/market/candles/${ticker}?from=2017-06-01&to=2019-06-30&limit=5000`,
  );
  return new Map(body.map((c) => [c.date, c.adj_close]));
}

describe('GET /api/v1/predictions', () => {
  test('the demo serves a prediction for every announcement event with a priced ticker, newest first', async () => {
    assert.ok(all.length >= 100, `${all.length} predictions`);
    const ids = await db.query<{ id: string; available_at: string }>(
      `SELECT c.id, c.available_at FROM contracts c WHERE c.source = 'announcement' AND c.ticker IS NOT NULL
         AND EXISTS (SELECT 1 FROM candles k WHERE k.ticker = c.ticker)`,
    );
    assert.deepEqual(all.map((p) => p.contract_id).sort(), ids.map((r) => r.id).sort());
    const madeAt = new Map(ids.map((r) => [r.id, r.available_at]));
    for (const p of all) {
      assert.equal(p.made_at, madeAt.get(p.contract_id), 'made at the event’s available_at');
      assert.ok(p.day0 <= p.made_at.slice(0, 10));
      assert.deepEqual(p.model, { name: PREDICTION_MODEL.name, version: PREDICTION_MODEL.version });
      assert.ok(p.interval.low < p.expected_abnormal_return && p.expected_abnormal_return < p.interval.high);
    }
    const key = (p: Item) => `${p.made_at}|${p.contract_id}`;
    assert.deepEqual(
      all.map(key),
      all.map(key).sort((a, b) => (a < b ? 1 : -1)),
    );
  });

  test("realized values are the API's own adjusted closes; the model block's calibration is theirs", async () => {
    const spy = await closes('SPY');
    const calendar = [...spy.keys()].sort();
    const series = new Map<string, Map<string, number>>();
    let inside = 0;
    let counted = 0;
    for (const p of all) {
      if (!series.has(p.ticker)) series.set(p.ticker, await closes(p.ticker));
      const own = series.get(p.ticker) as Map<string, number>;
      const end = calendar[calendar.indexOf(p.day0) + p.horizon_days] ?? '';
      const ratio = (m: Map<string, number>) => (m.get(end) ?? Number.NaN) / (m.get(p.day0) ?? Number.NaN);
      const expected = ratio(own) - ratio(spy);
      if (Number.isNaN(expected)) {
        assert.equal(p.realized_abnormal_return, null);
        continue;
      }
      assert.ok(Math.abs((p.realized_abnormal_return ?? Number.NaN) - expected) < 1e-9, p.contract_id);
      counted++;
      if (expected >= p.interval.low && expected <= p.interval.high) inside++;
    }
    assert.ok(counted >= 100, `${counted} with a passed horizon`);
    const { body } = await getJson<Body>(client, '/api/v1/predictions?limit=1');
    assert.equal(body.model.out_of_sample.n, counted);
    assert.ok(Math.abs((body.model.out_of_sample.coverage ?? 0) - inside / counted) < 1e-12);
    assert.match(body.note, /centre is 0/);
  });

  test('stored once: a second run adds nothing and leaves every stored prediction as it was', async () => {
    const before = await db.query('SELECT * FROM predictions ORDER BY contract_id');
    const ids = before.map((r) => (r as { contract_id: string }).contract_id);
    // The closes are put back exactly as they were (x * 1.5 / 1.5 is not always x in floating point).
    const saved = await db.query<{ date: string; adj_close: number }>(
      `SELECT date::text AS date, adj_close FROM candles WHERE ticker = 'SPY' AND date > '2019-01-10'`,
    );
    await db.query(
      `UPDATE candles SET adj_close = adj_close * 1.5 WHERE ticker = 'SPY' AND date > '2019-01-10'`,
    );
    try {
      assert.equal(await predictEvents(db, ids), 0);
      assert.deepEqual(await db.query('SELECT * FROM predictions ORDER BY contract_id'), before);
    } finally {
      await db.query(
        `UPDATE candles c SET adj_close = s.adj_close
           FROM unnest($1::date[], $2::float8[]) AS s(date, adj_close)
          WHERE c.ticker = 'SPY' AND c.date = s.date`,
        [saved.map((r) => r.date), saved.map((r) => r.adj_close)],
      );
    }
  });

  test('a start after an upgrade predicts what is missing, exactly as the ingest did', async () => {
    const snapshot = () =>
      db.query(
        'SELECT contract_id, made_at, day0, expected, level, low, high FROM predictions ORDER BY contract_id',
      );
    const before = await snapshot();
    await db.query(
      'DELETE FROM predictions WHERE contract_id IN (SELECT contract_id FROM predictions ORDER BY contract_id LIMIT 20)',
    );
    assert.equal(await predictMissing(db), 20);
    assert.deepEqual(await snapshot(), before);
    assert.equal(await predictMissing(db), 0, 'nothing left to predict');
  });

  test('filters: ticker (any case), contract_id, from/to on made_at; paging never repeats', async () => {
    const ticker = all[0]?.ticker ?? 'LMT';
    const byTicker = await getJson<Body>(
      client,
      `/api/v1/predictions?ticker=${ticker.toLowerCase()}&limit=200`,
    );
    assert.ok(byTicker.body.data.length > 0 && byTicker.body.data.every((p) => p.ticker === ticker));
    const one = all[5] as Item;
    const byId = await getJson<Body>(client, `/api/v1/predictions?contract_id=${one.contract_id}`);
    assert.deepEqual(byId.body.data, [one]);
    const day = one.made_at.slice(0, 10);
    const byDay = await getJson<Body>(client, `/api/v1/predictions?from=${day}&to=${day}&limit=200`);
    assert.deepEqual(
      byDay.body.data.map((p) => p.contract_id),
      all.filter((p) => p.made_at.startsWith(day)).map((p) => p.contract_id),
    );
    const first = await getJson<Body>(client, '/api/v1/predictions?limit=3');
    assert.match(String(first.headers.link), /rel="next"/);
    const second = await getJson<Body>(
      client,
      `/api/v1/predictions?limit=3&cursor=${first.body.pagination.next_cursor}`,
    );
    assert.deepEqual(
      [...first.body.data, ...second.body.data].map((p) => p.contract_id),
      all.slice(0, 6).map((p) => p.contract_id),
    );
  });

  test('hostile values are 400s with the error envelope', async () => {
    const events = await getJson<{ pagination: { next_cursor: string } }>(client, '/api/v1/events?limit=1');
    for (const query of [
      'ticker=%00',
      `ticker=${'A'.repeat(100)}`,
      `contract_id=${'x'.repeat(201)}`,
      'from=2019-02-30',
      'to=yesterday',
      'from=2019-03-01&to=2019-02-01',
      'limit=0',
      'limit=201',
      'limit=1e1',
      'cursor=%%%',
      `cursor=${events.body.pagination.next_cursor}`,
      'offset=5',
      'engine=materiality',
    ]) {
      const { status, body } = await getJson<Envelope>(client, `/api/v1/predictions?${query}`);
      assert.equal(status, 400, query);
      assert.equal(body.error.status, 400, query);
      assert.equal(typeof body.error.code, 'string', query);
    }
  });
});
