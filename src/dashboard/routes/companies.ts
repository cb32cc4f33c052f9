import { Type } from 'typebox';
import type { CompanyHistory } from '../../domain/company-history.ts';
import { defaultEngine } from '../../domain/engines/index.ts';
import { fieldTier } from '../../domain/field-tiers.ts';
import type { RegimeSpan } from '../../domain/regime-band.ts';
import { access } from '../../http/access.ts';
import { errors } from '../../http/errors.ts';
import { showsField } from '../../http/reader-tier.ts';
import { Query, TickerParam } from '../../http/schemas/common.ts';
import type { App, Handler, Services } from '../../http/types.ts';
import type { ResponseCache } from '../../infra/response-cache.ts';
import { companyWithHistory } from '../../services/company.ts';
import { regimeBand } from '../../services/regime-band.ts';
import type { Queryable } from '../../store/db.ts';
import { awardDaysJson } from '../../store/events.ts';
import { candleRange, companyTotals, countsOfTotals } from '../../store/market.ts';
import { requireSessionTier } from '../plan-tier.ts';

/** As many as /api/v1/companies/{ticker} lists. */
const RECENT_CONTRACTS = 20;
/**
 * The latest awards a chart marks, grouped by day: the busiest ticker of a 10 M-contract database has
 * 1.77 M awards, whose latest 5,000 cover its last weeks (its every award would be a read of them all).
 */
const MAX_MARKED_AWARDS = 5000;

const companySchema = {
  params: Type.Object({ ticker: TickerParam }),
  querystring: Query({}),
};

/**
 * The explorer's company page: the company, its recent contracts and history (as /api/v1/companies/{ticker}),
 * totals by agency and classification, its latest awards grouped by day and classification for the
 * chart's markers (sums and the best award by default-engine score),
 * the span its candles cover, and the dominant market regime over that span on the tier of
 * /api/v1/regimes (null below it, with the tier that shows it).
 */
export function registerCompanies(app: App, services: Services): void {
  app.get(
    '/dashboard/api/companies/:ticker',
    { config: access.user, schema: companySchema },
    showCompany(services, app.caches.responses),
  );
}

function showCompany({ db }: Services, cache: ResponseCache | null): Handler<typeof companySchema> {
  return async (request) => {
    requireSessionTier(request, 'developer', 'companies');
    const engine = defaultEngine();
    requireSessionTier(request, engine.tier, `engine ${engine.name}`);
    const ticker = request.params.ticker.toUpperCase();
    // The company's count and total value are the sums of its totals: its contracts are read once.
    const totaled = companyTotals(db, ticker);
    const [found, totals, days, candles] = await Promise.all([
      companyWithHistory(db, ticker, RECENT_CONTRACTS, totaled.then(countsOfTotals)),
      totaled,
      awardDaysJson(db, ticker, engine.name, MAX_MARKED_AWARDS),
      candleRange(db, ticker),
    ]);
    if (!found) throw errors.unknownTicker(ticker);
    const awardDays = mergeAwardDays([
      ...(JSON.parse(days.json) as AwardDay[]),
      ...(await earlierEraDays(db, found.history, ticker, engine.name)),
    ]);
    const regimes =
      candles && showsField(request, 'company_page', 'regimes')
        ? await cachedBand(db, cache, candles.first, candles.last)
        : null;
    return {
      ...found,
      totals,
      engine: engine.name,
      award_days: awardDays,
      candle_range: candles,
      regime_tier: fieldTier('company_page', 'regimes'),
      regimes,
    };
  };
}

/** A day's awards of one classification (store/events.ts `awardDaysJson`). */
export interface AwardDay {
  award_date: string;
  nlp_classification: string;
  count: number;
  total_value: number;
  top_id: string;
  top_value: number;
  top_score: number | null;
}

/**
 * One group per day and classification, oldest first: a day of two listing eras (the day a registrant
 * was renamed) has a group from each ticker, summed here, its best award the higher-scored (the
 * first id among equal scores, as within a ticker).
 */
export function mergeAwardDays(days: AwardDay[]): AwardDay[] {
  const merged = new Map<string, AwardDay>();
  for (const day of days) {
    const other = merged.get(groupKey(day));
    if (!other) {
      merged.set(groupKey(day), day);
      continue;
    }
    const best = outranks(day, other) ? day : other;
    merged.set(groupKey(day), {
      ...best,
      count: day.count + other.count,
      total_value: day.total_value + other.total_value,
    });
  }
  return [...merged.values()].sort((a, b) => (groupKey(a) < groupKey(b) ? -1 : 1));
}

/** Sorts as the day, then the classification (a date has no space). */
const groupKey = (day: AwardDay) => `${day.award_date} ${day.nlp_classification}`;

const outranks = (a: AwardDay, b: AwardDay): boolean =>
  (a.top_score ?? -1) === (b.top_score ?? -1)
    ? a.top_id < b.top_id
    : (a.top_score ?? -1) > (b.top_score ?? -1);

/**
 * The awards of the registrant's earlier listing eras whose prices are in this ticker's series: a 2010
 * award to Sikorsky (ticker then UTX) is marked on RTX's chart, whose candles before 2020-04-03 are
 * United Technologies'.
 */
async function earlierEraDays(
  db: Queryable,
  history: CompanyHistory | null,
  ticker: string,
  engine: string,
): Promise<AwardDay[]> {
  const earlier = new Set(
    (history?.listings ?? [])
      .filter((l) => l.series_ticker === ticker && l.ticker !== ticker)
      .map((l) => l.ticker),
  );
  const lists = await Promise.all([...earlier].map((t) => awardDaysJson(db, t, engine, MAX_MARKED_AWARDS)));
  return lists.flatMap((list) => JSON.parse(list.json) as AwardDay[]);
}

/**
 * The band costs about 0.1 s (a regime a week over decades) and is the same for every company whose
 * candles span the same days, so it is kept in the response cache, which forgets it at the next change
 * to the data (the benchmarks' candles included).
 */
async function cachedBand(
  db: Queryable,
  cache: ResponseCache | null,
  from: string,
  to: string,
): Promise<RegimeSpan[]> {
  const key = `dashboard:regime-band:${from}:${to}`;
  const hit = cache?.get(key);
  if (hit) return JSON.parse(hit.body.toString('utf8')) as RegimeSpan[];
  const version = cache?.begin() ?? null;
  const spans = await regimeBand(db, from, to);
  if (cache && version !== null) {
    const body = Buffer.from(JSON.stringify(spans));
    cache.put(key, version, { body, etag: '', contentType: 'application/json' });
  }
  return spans;
}
