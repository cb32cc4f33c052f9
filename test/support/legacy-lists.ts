/**
 * The read path the list endpoints had before their JSON was written by PostgreSQL (src/store/json.ts):
 * rows → objects → Fastify's serializer against the route's response schema. Kept as the reference the
 * new path is checked against (test/http/json-lists.test.ts), for valid requests answered 200.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { defaultEngine, getEngine } from '../../src/domain/engines/index.ts';
import { type Plan, reachesTier } from '../../src/domain/plans.ts';
import {
  type CandleDto,
  CandleList,
  type ContractDto,
  EventList,
  type RegimeDto,
  RegimeList,
  type SignalDto,
  SignalList,
} from '../../src/http/schemas/resources.ts';
import type { Queryable } from '../../src/store/db.ts';
import { type EventFilter, eventPage } from '../../src/store/events.ts';
import { candlePage } from '../../src/store/market.ts';
import {
  CONTRACT_COLUMNS,
  type ListedContractRow,
  type SignalRow,
  signalColumns,
  toContract,
  toSignal,
} from '../../src/store/rows.ts';
import { type SignalFilter, signalPage } from '../../src/store/signals.ts';
import { Where } from '../../src/store/where.ts';

async function listEvents(
  db: Queryable,
  filter: EventFilter,
): Promise<{ contract: ContractDto; signal: SignalDto | null }[]> {
  const page = eventPage(filter);
  const rows = await db.query<ListedContractRow & SignalRow>(
    `SELECT ${CONTRACT_COLUMNS}, ${signalColumns(filter.withRationale)} ${page.from}
     ORDER BY c.award_date DESC, c.id DESC`,
    page.params,
  );
  return rows.map((row) => ({ contract: toContract(row), signal: toSignal(row) }));
}

async function listSignals(
  db: Queryable,
  filter: SignalFilter,
): Promise<{ signal: SignalDto; contract: ContractDto }[]> {
  const page = signalPage(filter);
  const rows = await db.query<ListedContractRow & SignalRow>(
    `SELECT ${CONTRACT_COLUMNS}, ${signalColumns(filter.withRationale)} ${page.from}
     ORDER BY s.signal_score DESC, s.computed_at DESC, s.id`,
    page.params,
  );
  return rows.flatMap((row) => {
    const signal = toSignal(row);
    return signal ? [{ signal, contract: toContract(row) }] : [];
  });
}

async function listCandles(
  db: Queryable,
  ticker: string,
  range: { from?: string; to?: string; limit: number },
): Promise<CandleDto[]> {
  const page = candlePage(ticker, range);
  return db.query<CandleDto>(
    `SELECT date, open, high, low, close, adj_close, volume ${page.from} ORDER BY date`,
    page.params,
  );
}

async function listRegimes(
  db: Queryable,
  filter: { contractId?: string; dominant?: string; limit: number },
): Promise<RegimeDto[]> {
  const where = new Where()
    .add((p) => `contract_id = ${p}`, filter.contractId)
    .add((p) => `dominant = ${p}`, filter.dominant);
  const limit = where.next(filter.limit);
  return db.query<RegimeDto>(
    `SELECT contract_id, ticker, as_of, benchmark, dominant, scores, features, engine_version FROM regimes
     ${where.sql()} ORDER BY as_of DESC, contract_id DESC LIMIT ${limit}`,
    where.params,
  );
}

/** What the reference writes for `next_cursor` when a page follows. */
export const NEXT_PAGE = 'NEXT_PAGE';

/** The old handlers' objects for a valid list URL, with the response schema they were serialized by. */
async function legacyObjects(
  db: Queryable,
  url: string,
  plan: Plan,
): Promise<{ schema: TSchema; value: unknown }> {
  const { pathname, searchParams: q } = new URL(url, 'http://localhost');
  const text = (name: string) => q.get(name) ?? undefined;
  const int = (name: string, fallback?: number) => (q.has(name) ? Number(q.get(name)) : fallback);
  const limit = int('limit', 50) as number;
  const offset = int('offset', 0) as number;
  const withRationale = reachesTier(plan, 'intelligence');
  const engine = (() => {
    const name = text('engine');
    const found = name === undefined ? defaultEngine() : getEngine(name);
    if (!found) throw new Error(`unknown engine in ${url}`);
    return found;
  })();
  // One row past the page says whether another follows; the cursor's text is not the reference's to know.
  const pagination = (rows: unknown[], at = offset) => ({
    limit,
    offset: at,
    count: Math.min(rows.length, limit),
    next_cursor: rows.length > limit ? NEXT_PAGE : null,
  });
  if (pathname === '/api/v1/events' || pathname === '/api/v1/contracts') {
    const data = await listEvents(db, {
      engine: engine.name,
      withRationale,
      ticker: text('ticker')?.toUpperCase(),
      agency: text('agency'),
      classification: text('classification'),
      from: text('from'),
      to: text('to'),
      limit: limit + 1,
      offset,
    });
    const items = data.slice(0, limit).map((item) => ({
      ...item,
      signal: item.signal && visible(item.signal, withRationale),
    }));
    return { schema: EventList, value: { data: items, pagination: pagination(data) } };
  }
  if (pathname === '/api/v1/signals') {
    const data = await listSignals(db, {
      engine: engine.name,
      engineVersion: engine.version,
      withRationale,
      minScore: int('min_score'),
      ticker: text('ticker')?.toUpperCase(),
      since: text('since'),
      limit: limit + 1,
      offset,
    });
    const items = data
      .slice(0, limit)
      .map(({ signal, contract }) => ({ signal: visible(signal, withRationale), contract }));
    return { schema: SignalList, value: { data: items, pagination: pagination(data) } };
  }
  if (pathname === '/api/v1/regimes') {
    const data = await listRegimes(db, {
      contractId: text('contract_id'),
      dominant: text('dominant'),
      limit: limit + 1,
    });
    return { schema: RegimeList, value: { data: data.slice(0, limit), pagination: pagination(data, 0) } };
  }
  const candles = /^\/api\/v1\/market\/candles\/([^/]+)$/.exec(pathname);
  if (candles?.[1]) {
    const ticker = decodeURIComponent(candles[1]).toUpperCase();
    const value = await listCandles(db, ticker, {
      from: text('from'),
      to: text('to'),
      limit: int('limit', 500) as number,
    });
    return { schema: CandleList, value };
  }
  if (pathname === '/api/v1/benchmarks') {
    const ticker = (text('ticker') ?? '').toUpperCase();
    const value = await listCandles(db, ticker, {
      from: text('from'),
      to: text('to'),
      limit: int('limit', 5000) as number,
    });
    return { schema: CandleList, value };
  }
  throw new Error(`no legacy path for ${url}`);
}

function visible<T extends { rationale?: unknown }>(signal: T, withRationale: boolean): T {
  if (withRationale) return signal;
  const { rationale: _hidden, ...rest } = signal;
  return rest as T;
}

/**
 * The old body of each valid list URL, serialized as the routes did: by Fastify, against the route's
 * response schema (a small app with one route per schema, answering the value it is handed).
 */
export async function legacyBodies(db: Queryable): Promise<{
  body(url: string, plan: Plan): Promise<{ body: string; contentType: string }>;
  close(): Promise<void>;
}> {
  const app: FastifyInstance = Fastify();
  const schemas: TSchema[] = [EventList, SignalList, RegimeList, CandleList];
  let next: unknown;
  for (const [i, schema] of schemas.entries()) {
    app.get(`/${i}`, { schema: { response: { 200: schema } } }, async () => next);
  }
  await app.ready();
  return {
    async body(url, plan) {
      const { schema, value } = await legacyObjects(db, url, plan);
      next = value;
      const res = await app.inject({ method: 'GET', url: `/${schemas.indexOf(schema)}` });
      if (res.statusCode !== 200)
        throw new Error(`legacy serialization of ${url}: ${res.statusCode} ${res.body}`);
      return { body: res.body, contentType: String(res.headers['content-type']) };
    },
    close: () => app.close(),
  };
}
