import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Envelope, getJson, type Injector, openSeededApp, settled } from '../support/app.ts';

interface Signal {
  id: string;
  contract_id: string;
  engine_name: string;
  engine_version: string;
  engine_tier: string;
  signal_score: number;
  importance_score: number;
  confidence_score: number;
  risk_score: number;
  computed_at: string;
}

let db: Db;
let app: App;
let client: Injector;
let contractId: string;
before(async () => {
  ({ db, app, client } = await openSeededApp());
  // An LMT award from 2023, when candles for LMT and the benchmarks exist on both sides of it.
  const rows = await db.query<{ id: string }>(
    "SELECT id FROM contracts WHERE ticker = 'LMT' AND award_date BETWEEN '2023-01-01' AND '2023-12-31' ORDER BY id LIMIT 1",
  );
  const id = rows[0]?.id;
  assert.ok(id, 'seeded data has a 2023 LMT award');
  contractId = id;
});
after(() => closeApp(app, db));

describe('GET /api/v1/contracts/{id}', () => {
  test('returns the bundle: contract, signal, weekly prices around the award, regime and decay', async () => {
    const { status, body } = await getJson<{
      contract: { id: string; award_date: string };
      signal: Signal | null;
      weekly_prices: { week_start: string; close: number }[];
      regime: { contract_id: string; as_of: string; dominant: string; scores: Record<string, number> } | null;
      decay: { model: string; strength: number; effective_score: number; age_days: number } | null;
    }>(client, `/api/v1/contracts/${contractId}`);
    assert.equal(status, 200);
    assert.equal(body.contract.id, contractId);
    assert.equal(body.signal?.engine_name, 'materiality');
    assert.ok(
      body.weekly_prices.length >= 15,
      `weekly prices around the award: ${body.weekly_prices.length}`,
    );
    const first = body.weekly_prices[0];
    const last = body.weekly_prices.at(-1);
    assert.ok(
      first &&
        last &&
        first.week_start < body.contract.award_date &&
        last.week_start > body.contract.award_date,
    );
    assert.equal(body.regime?.contract_id, contractId);
    assert.ok(
      body.regime && body.regime.as_of <= body.contract.award_date,
      'regime uses no candle after the award',
    );
    const shares = Object.values(body.regime?.scores ?? {});
    assert.ok(Math.abs(shares.reduce((a, b) => a + b, 0) - 1) < 1e-6);
    assert.equal(body.decay?.model, 'exponential');
    assert.ok(body.decay && body.decay.age_days > 300 && body.decay.strength < 1);
  });

  test('answers 404 in the envelope for an unknown contract', async () => {
    const { status, body } = await getJson<Envelope>(client, '/api/v1/contracts/CONT_AWD_NOPE');
    assert.equal(status, 404);
    assert.deepEqual(
      { status: body.error.status, code: body.error.code },
      { status: 404, code: 'not_found' },
    );
    assert.match(body.error.message, /contract not found/);
  });
});

describe('GET and POST /api/v1/contracts/{id}/score', () => {
  test('POST computes idempotently: same numbers, one row per engine version', async () => {
    const url = `/api/v1/contracts/${contractId}/score?engine=regime-aware`;
    const one = await client.inject({ method: 'POST', url });
    const two = await client.inject({ method: 'POST', url });
    assert.equal(one.statusCode, 200);
    const a = one.json<{ signal: Signal }>().signal;
    const b = two.json<{ signal: Signal }>().signal;
    assert.equal(a.id, b.id);
    const { computed_at: _a, ...restA } = a;
    const { computed_at: _b, ...restB } = b;
    assert.deepEqual(restA, restB);
    const rows = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM signals WHERE contract_id = $1 AND engine_name = 'regime-aware'",
      [contractId],
    );
    assert.equal(rows[0]?.n, 1);
    const got = await getJson<{ signal: Signal }>(client, url);
    assert.equal(got.body.signal.id, a.id);
    assert.equal(got.body.signal.engine_tier, 'intelligence');
  });

  test('GET answers 404 when the engine has no signal on the contract', async () => {
    await db.query("DELETE FROM signals WHERE contract_id = $1 AND engine_name = 'regime-aware'", [
      contractId,
    ]);
    await settled(app);
    const { status, body } = await getJson<Envelope>(
      client,
      `/api/v1/contracts/${contractId}/score?engine=regime-aware`,
    );
    assert.equal(status, 404);
    assert.match(body.error.message, /no signal for engine "regime-aware"/);
  });

  test('POST on an unknown contract is 404, on an unknown engine 400', async () => {
    const missing = await client.inject({ method: 'POST', url: '/api/v1/contracts/CONT_AWD_NOPE/score' });
    assert.equal(missing.statusCode, 404);
    const engine = await client.inject({
      method: 'POST',
      url: `/api/v1/contracts/${contractId}/score?engine=x`,
    });
    assert.equal(engine.statusCode, 400);
    assert.match(engine.json<Envelope>().error.message, /"engine": must be one of materiality, regime-aware/);
  });
});

describe('GET /api/v1/signals', () => {
  test('ranks by signal_score, then computed_at, and filters by min_score and ticker', async () => {
    const { status, body } = await getJson<{
      data: { signal: Signal; contract: { ticker: string } }[];
      pagination: unknown;
    }>(client, '/api/v1/signals?min_score=40&ticker=BA&limit=100');
    assert.equal(status, 200);
    assert.ok(body.data.length > 0);
    for (let i = 0; i < body.data.length; i++) {
      const item = body.data[i];
      assert.ok(item && item.signal.signal_score >= 40 && item.contract.ticker === 'BA');
      const prev = body.data[i - 1];
      if (prev) assert.ok(prev.signal.signal_score >= item.signal.signal_score);
    }
  });

  test('since bounds computed_at; a future bound returns nothing', async () => {
    const { body } = await getJson<{ data: unknown[]; pagination: { count: number } }>(
      client,
      '/api/v1/signals?since=2999-01-01T00:00:00Z',
    );
    assert.equal(body.pagination.count, 0);
    const bad = await getJson<Envelope>(client, '/api/v1/signals?since=2024-01-01');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /"since"/);
  });
});
