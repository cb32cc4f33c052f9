import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Envelope, getJson, type Injector, openSeededApp } from '../support/app.ts';

interface Candle {
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  adj_close: number;
  volume: number;
}

let db: Db;
let app: App;
let client: Injector;
before(async () => ({ db, app, client } = await openSeededApp()));
after(() => closeApp(app, db));

const ascending = (candles: Candle[]) =>
  candles.every((c, i) => i === 0 || (candles[i - 1]?.date ?? '') < c.date);

describe('GET /api/v1/market/candles/{ticker}', () => {
  test('defaults to the latest 500 bars, ascending', async () => {
    const { status, body } = await getJson<Candle[]>(client, '/api/v1/market/candles/SPY');
    assert.equal(status, 200);
    assert.equal(body.length, 500);
    assert.ok(ascending(body));
    const c = body[0];
    assert.ok(c && c.low <= c.open && c.open <= c.high && c.volume >= 0);
  });

  test('honours from, to and limit up to 5000', async () => {
    const { body } = await getJson<Candle[]>(
      client,
      '/api/v1/market/candles/ita?from=2024-01-01&to=2024-01-31',
    );
    assert.equal(body[0]?.date, '2024-01-02');
    assert.ok(body.every((c) => c.date >= '2024-01-01' && c.date <= '2024-01-31'));
    const many = await getJson<Candle[]>(client, '/api/v1/market/candles/SPY?limit=5000');
    assert.equal(many.body.length, 5000);
    const over = await getJson<Envelope>(client, '/api/v1/market/candles/SPY?limit=5001');
    assert.equal(over.status, 400);
  });

  test('serves contractor tickers whose candles were imported; 404 for unknown tickers', async () => {
    const lmt = await getJson<Candle[]>(client, '/api/v1/market/candles/LMT?limit=5');
    assert.equal(lmt.body.length, 5);
    const unknown = await getJson<Envelope>(client, '/api/v1/market/candles/ZZZZ');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error.message, /unknown ticker: ZZZZ/);
  });
});

describe('GET /api/v1/benchmarks', () => {
  test('serves SPY, XLI and ITA; the ticker is required and checked', async () => {
    const { status, body } = await getJson<Candle[]>(
      client,
      '/api/v1/benchmarks?ticker=xli&from=2024-03-01&to=2024-03-08',
    );
    assert.equal(status, 200);
    assert.deepEqual(
      body.map((c) => c.date),
      ['2024-03-01', '2024-03-04', '2024-03-05', '2024-03-06', '2024-03-07', '2024-03-08'],
    );
    const missing = await getJson<Envelope>(client, '/api/v1/benchmarks');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error.message, /"ticker": is required/);
    const other = await getJson<Envelope>(client, '/api/v1/benchmarks?ticker=LMT');
    assert.equal(other.status, 400);
    assert.match(other.body.error.message, /SPY, XLI, ITA/);
  });
});

describe('candle lists page instead of truncating silently', () => {
  const nextLink = (link: unknown): string | null => {
    if (link === undefined) return null;
    const match = /^<([^>]+)>; rel="next"$/.exec(String(link));
    assert.ok(match, `a next link: ${String(link)}`);
    return match[1] ?? null;
  };

  test('GET /api/v1/benchmarks from 1990 pages through every bar with Link rel="next"', async () => {
    const first = await getJson<Candle[]>(client, '/api/v1/benchmarks?ticker=SPY&from=1990-01-01');
    assert.equal(first.status, 200);
    assert.equal(first.body.length, 5000, 'the default limit is 5000');
    const last = first.body.at(-1)?.date ?? '';
    const next = nextLink(first.headers.link);
    assert.ok(next, 'a full page with more bars says where the rest is');
    const day = new Date(Date.parse(`${last}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    assert.equal(next, `/api/v1/benchmarks?ticker=SPY&from=${day}&limit=5000`);
    const all: Candle[] = [...first.body];
    let url: string | null = next;
    let pages = 1;
    while (url !== null) {
      const page: { status: number; headers: Record<string, unknown>; body: Candle[] } = await getJson<
        Candle[]
      >(client, url);
      assert.equal(page.status, 200);
      all.push(...page.body);
      url = nextLink(page.headers.link);
      pages += 1;
      assert.ok(pages < 10);
    }
    assert.ok(pages >= 2);
    assert.ok(ascending(all), 'no bar twice, none out of order');
    const latest = await getJson<Candle[]>(client, '/api/v1/market/candles/SPY?limit=1');
    assert.equal(all.at(-1)?.date, latest.body[0]?.date, 'the walk reaches the latest bar');
    const count = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM candles WHERE ticker = 'SPY' AND date >= '1990-01-01'",
    );
    assert.equal(all.length, count[0]?.n);
  });

  test('limit is 1-5000; without from the next page ends the day before the first bar', async () => {
    const small = await getJson<Candle[]>(
      client,
      '/api/v1/benchmarks?ticker=ita&from=2024-03-01&to=2024-03-08&limit=2',
    );
    assert.deepEqual(
      small.body.map((c) => c.date),
      ['2024-03-01', '2024-03-04'],
    );
    assert.equal(
      nextLink(small.headers.link),
      '/api/v1/benchmarks?ticker=ITA&from=2024-03-05&to=2024-03-08&limit=2',
    );
    const tail = await getJson<Candle[]>(
      client,
      '/api/v1/benchmarks?ticker=ITA&from=2024-03-07&to=2024-03-08&limit=2',
    );
    assert.equal(tail.body.length, 2);
    assert.equal(tail.headers.link, undefined, 'a full page with nothing after it has no link');
    const latest = await getJson<Candle[]>(client, '/api/v1/benchmarks?ticker=XLI&to=2024-03-08&limit=3');
    assert.deepEqual(
      latest.body.map((c) => c.date),
      ['2024-03-06', '2024-03-07', '2024-03-08'],
    );
    assert.equal(nextLink(latest.headers.link), '/api/v1/benchmarks?ticker=XLI&to=2024-03-05&limit=3');
    const candles = await getJson<Candle[]>(client, '/api/v1/market/candles/spy?from=2024-03-01&limit=1');
    assert.equal(nextLink(candles.headers.link), '/api/v1/market/candles/spy?from=2024-03-02&limit=1');
    for (const limit of ['0', '5001', 'x']) {
      const bad = await getJson<Envelope>(client, `/api/v1/benchmarks?ticker=SPY&limit=${limit}`);
      assert.equal(bad.status, 400, limit);
    }
  });
});

describe('GET /api/v1/companies/{ticker}', () => {
  test('returns the company with at most 20 recent contracts, newest first', async () => {
    const { status, body } = await getJson<{
      company: {
        ticker: string;
        name: string;
        sector: string | null;
        contract_count: number;
        aliases: string[];
      };
      recent_contracts: { award_date: string; ticker: string }[];
    }>(client, '/api/v1/companies/lmt');
    assert.equal(status, 200);
    assert.equal(body.company.ticker, 'LMT');
    assert.equal(body.company.sector, 'Industrials');
    assert.ok(body.company.contract_count > 20);
    assert.ok(body.company.aliases.length > 0);
    assert.equal(body.recent_contracts.length, 20);
    assert.ok(
      body.recent_contracts.every(
        (c, i, all) => c.ticker === 'LMT' && (i === 0 || (all[i - 1]?.award_date ?? '') >= c.award_date),
      ),
    );
  });

  test('answers 404 for an unknown ticker and 400 for a malformed one', async () => {
    assert.equal((await getJson(client, '/api/v1/companies/ZZZZZ')).status, 404);
    assert.equal((await getJson(client, '/api/v1/companies/not%20a%20ticker')).status, 400);
  });
});

describe('GET /api/v1/regimes and /api/v1/predictions', () => {
  test('lists regimes newest first, filters by dominant and contract, has no offset', async () => {
    const { body } = await getJson<{
      data: { dominant: string; contract_id: string; as_of: string }[];
      pagination: { next_cursor: unknown };
    }>(client, '/api/v1/regimes');
    assert.equal(body.data.length, 50);
    const { next_cursor, ...page } = body.pagination;
    assert.deepEqual(page, { limit: 50, offset: 0, count: 50 });
    assert.equal(typeof next_cursor, 'string');
    const dominant = body.data[0]?.dominant ?? 'risk_on';
    const filtered = await getJson<{ data: { dominant: string }[] }>(
      client,
      `/api/v1/regimes?dominant=${dominant}&limit=200`,
    );
    assert.ok(filtered.body.data.length > 0 && filtered.body.data.every((r) => r.dominant === dominant));
    const full = await getJson<{ data: { contract_id: string; as_of: string }[] }>(
      client,
      '/api/v1/regimes?limit=200',
    );
    const key = (r: { contract_id: string; as_of: string }) => `${r.as_of}|${r.contract_id}`;
    const expected = [...full.body.data].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
    assert.deepEqual(full.body.data.map(key), expected.map(key), 'ordered by as_of DESC, contract_id DESC');
    // Several contracts share an as_of, so the contract_id tie-break is exercised.
    assert.ok(new Set(full.body.data.map((r) => r.as_of)).size < full.body.data.length);
    const one = body.data[0]?.contract_id ?? '';
    const byContract = await getJson<{ data: { contract_id: string }[] }>(
      client,
      `/api/v1/regimes?contract_id=${one}`,
    );
    assert.deepEqual(
      byContract.body.data.map((r) => r.contract_id),
      [one],
    );
    assert.equal((await getJson(client, '/api/v1/regimes?offset=10')).status, 400);
    assert.equal((await getJson(client, '/api/v1/regimes?dominant=sideways')).status, 400);
  });

  test('predictions are a page of stored predictions with the model block (test/http/predictions.test.ts)', async () => {
    const { status, body } = await getJson<{ data: unknown[]; model: { name: string }; note: string }>(
      client,
      '/api/v1/predictions',
    );
    assert.equal(status, 200);
    assert.ok(body.data.length > 0);
    assert.equal(body.model.name, 'abnormal-return-5d');
    assert.equal(typeof body.note, 'string');
  });
});
