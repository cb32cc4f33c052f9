/**
 * The filtered and paged URL mix of bench:events, derived from the data the server holds (read through
 * its own API, so any target works): tickers, agencies, classifications, award dates and contract ids
 * from pages of /api/v1/events, candle tickers and their date spans from /api/v1/market/candles, engines
 * and regime names from the domain registry. Every URL is checked to answer 200 before any load.
 */
import type { Pool } from 'undici';
import { ENGINES } from '../src/domain/engines/index.ts';
import { REGIME_NAMES } from '../src/domain/types.ts';
import { seededRandom } from './common.ts';

/** A URL of the mix; `intelligence` ones need a key on a plan of that tier (regimes, regime-aware). */
export interface MixUrl {
  path: string;
  tier: 'developer' | 'intelligence';
}

export interface Captured {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

interface Vocabulary {
  /** One entry per event seen, so sampling follows the data's own frequencies. */
  tickers: string[];
  agencies: string[];
  classifications: string[];
  awardDates: string[];
  contractIds: string[];
  computedAt: string[];
  candles: Array<{ ticker: string; first: string; last: string }>;
}

/** Headers node:http sets itself; the rest of an answer's headers are served again by the bare server. */
const HOP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export async function fetchRaw(pool: Pool, path: string, key?: string): Promise<Captured> {
  const res = await pool.request({ method: 'GET', path, headers: key ? { 'x-api-key': key } : {} });
  const body = Buffer.from(await res.body.arrayBuffer());
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
  }
  return { status: res.statusCode, headers, body };
}

async function getJson<T>(pool: Pool, path: string, key: string): Promise<T> {
  const { status, body } = await fetchRaw(pool, path, key);
  if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${body.toString().slice(0, 300)}`);
  return JSON.parse(body.toString()) as T;
}

interface EventItem {
  contract: {
    id: string;
    ticker: string;
    awarding_agency: string;
    nlp_classification: string;
    award_date: string;
  };
  signal: { computed_at: string } | null;
}

/** Reads the vocabulary: the newest 2,000 events, a few deeper pages, the candle series of the tickers seen. */
async function discover(pool: Pool, key: string): Promise<Vocabulary> {
  const events: EventItem[] = [];
  for (const offset of [
    0, 200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 5000, 20_000, 100_000, 500_000,
  ]) {
    const page = await getJson<{ data: EventItem[] }>(pool, `/api/v1/events?limit=200&offset=${offset}`, key);
    events.push(...page.data);
    if (page.data.length < 200) break;
  }
  if (events.length === 0) throw new Error('the server holds no events: nothing to derive the URL mix from');
  const byCount = new Map<string, number>();
  for (const e of events) byCount.set(e.contract.ticker, (byCount.get(e.contract.ticker) ?? 0) + 1);
  const candidates = ['SPY', 'XLI', 'ITA', ...[...byCount].sort((a, b) => b[1] - a[1]).map(([t]) => t)];
  const candles: Vocabulary['candles'] = [];
  for (const ticker of candidates.slice(0, 60)) {
    const last = await fetchRaw(pool, `/api/v1/market/candles/${ticker}?limit=1`, key);
    if (last.status !== 200) continue;
    const first = await getJson<Array<{ date: string }>>(
      pool,
      `/api/v1/market/candles/${ticker}?from=1900-01-01&limit=1`,
      key,
    );
    const lastBar = (JSON.parse(last.body.toString()) as Array<{ date: string }>)[0];
    if (first[0] && lastBar) candles.push({ ticker, first: first[0].date, last: lastBar.date });
  }
  return {
    tickers: events.map((e) => e.contract.ticker),
    agencies: events.map((e) => e.contract.awarding_agency),
    classifications: events.map((e) => e.contract.nlp_classification),
    awardDates: events.map((e) => e.contract.award_date),
    contractIds: events.map((e) => e.contract.id),
    computedAt: events.flatMap((e) => (e.signal ? [e.signal.computed_at] : [])),
    candles,
  };
}

/** A query string from [name, value] pairs in the given order, values percent-encoded. */
const query = (pairs: Array<[string, string | number | undefined]>): string =>
  pairs
    .filter((p): p is [string, string | number] => p[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`)
    .join('&');

function generators(v: Vocabulary, rand: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const maybe = <T>(p: number, value: () => T): T | undefined => (rand() < p ? value() : undefined);
  const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
  const isoDay = (n: number) => new Date(Math.round(n) * 86_400_000).toISOString().slice(0, 10);
  /** from ≤ to, both within [first, last], spanning 1 to `maxDays` days. */
  const range = (first: string, last: string, maxDays: number) => {
    const a = day(first);
    const span = Math.max(0, day(last) - a);
    const from = a + rand() * span;
    return { from: isoDay(from), to: isoDay(Math.min(day(last), from + 1 + rand() * maxDays)) };
  };
  const engine = () => pick(ENGINES);
  const intelligence = (name?: string) =>
    ENGINES.find((e) => e.name === name)?.tier === 'intelligence' ? 'intelligence' : 'developer';
  const awardRange = () => {
    const dates = [pick(v.awardDates), pick(v.awardDates)].sort();
    return range(dates[0] as string, dates[1] as string, 730);
  };

  const events = (): MixUrl => {
    const eng = maybe(0.15, engine)?.name;
    const dates = maybe(0.4, awardRange);
    const from = dates && rand() < 0.8 ? dates.from : undefined;
    const path = `/api/v1/events?${query([
      ['engine', eng],
      ['ticker', maybe(0.5, () => pick(v.tickers))],
      ['agency', maybe(0.3, () => pick(v.agencies))],
      ['classification', maybe(0.35, () => pick(v.classifications))],
      ['from', from],
      ['to', dates && (!from || rand() < 0.7) ? dates.to : undefined],
      ['limit', pick([10, 20, 25, 50, 50, 100, 200])],
      ['offset', maybe(0.4, () => pick([50, 100, 200, 400, 1000]))],
    ])}`;
    return { path, tier: intelligence(eng) };
  };
  const signals = (): MixUrl => {
    const eng = maybe(0.3, engine)?.name;
    const path = `/api/v1/signals?${query([
      ['engine', eng],
      ['min_score', maybe(0.6, () => pick([50, 60, 70, 75, 80, 85, 90, 95]))],
      ['ticker', maybe(0.4, () => pick(v.tickers))],
      ['since', v.computedAt.length ? maybe(0.15, () => pick(v.computedAt)) : undefined],
      ['limit', pick([10, 25, 50, 50, 100, 200])],
      ['offset', maybe(0.3, () => pick([50, 100, 200, 500]))],
    ])}`;
    return { path, tier: intelligence(eng) };
  };
  const candles = (): MixUrl => {
    const c = pick(v.candles);
    const r = range(c.first, c.last, 365);
    const shape = pick(['latest', 'from', 'to', 'both'] as const);
    const path = `/api/v1/market/candles/${c.ticker}?${query([
      ['from', shape === 'from' || shape === 'both' ? r.from : undefined],
      ['to', shape === 'to' || shape === 'both' ? r.to : undefined],
      ['limit', pick([20, 60, 120, 250, 500, 1000])],
    ])}`;
    return { path, tier: 'developer' };
  };
  const regimes = (): MixUrl => {
    const byContract = rand() < 0.7;
    const path = `/api/v1/regimes?${query([
      ['contract_id', byContract ? pick(v.contractIds) : undefined],
      ['dominant', byContract ? undefined : maybe(0.8, () => pick(REGIME_NAMES))],
      ['limit', byContract ? undefined : pick([10, 25, 50, 100, 200])],
    ])}`;
    return { path, tier: 'intelligence' };
  };
  return { events, signals, candles, regimes };
}

/** Shares of the mix by resource. */
const SHARES = { events: 0.4, signals: 0.25, candles: 0.2, regimes: 0.15 } as const;

/** `count` distinct URLs in a seeded random order. */
export async function buildMix(pool: Pool, key: string, count: number, seed: number): Promise<MixUrl[]> {
  const vocabulary = await discover(pool, key);
  const { rand } = seededRandom(seed);
  const make = generators(vocabulary, rand);
  const kinds = (Object.keys(SHARES) as Array<keyof typeof SHARES>).filter(
    (kind) => kind !== 'candles' || vocabulary.candles.length > 0,
  );
  const urls = new Map<string, MixUrl>();
  for (const kind of kinds) {
    const want = Math.round(count * SHARES[kind]);
    let attempts = 0;
    let made = 0;
    while (made < want && attempts++ < want * 200) {
      const url = make[kind]();
      if (urls.has(url.path)) continue;
      urls.set(url.path, url);
      made++;
    }
  }
  // Top up from the open-ended resources when a share ran out of distinct URLs.
  for (let attempts = 0; urls.size < count && attempts < count * 200; attempts++) {
    const url = rand() < 0.6 ? make.events() : make.signals();
    urls.set(url.path, url);
  }
  if (urls.size < count) {
    throw new Error(`the data yields only ${urls.size} distinct URLs (wanted ${count}); lower --urls`);
  }
  const list = [...urls.values()].slice(0, count);
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [list[i], list[j]] = [list[j] as MixUrl, list[i] as MixUrl];
  }
  return list;
}

/** GETs every URL once with its key; throws, listing them, if any answered other than 200. */
export async function verify(
  pool: Pool,
  urls: Array<{ path: string; key: string }>,
): Promise<Map<string, Captured>> {
  const answers = new Map<string, Captured>();
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++] as { path: string; key: string };
      const answer = await fetchRaw(pool, url.path, url.key);
      if (answer.status !== 200)
        failures.push(`${answer.status} ${url.path}: ${answer.body.toString().slice(0, 200)}`);
      answers.set(url.path, answer);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  if (failures.length) {
    throw new Error(
      `${failures.length} of ${urls.length} URLs did not answer 200:\n  ${failures.slice(0, 10).join('\n  ')}`,
    );
  }
  return answers;
}
