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
import { awardMarkersJson } from '../../store/events.ts';
import { candleRange, companyTotals, countsOfTotals } from '../../store/market.ts';
import { requireSessionTier } from '../plan-tier.ts';

/** As many as /api/v1/companies/{ticker} lists. */
const RECENT_CONTRACTS = 20;
/** Every award of the largest contractor is a few hundred: this only bounds a pathological ticker. */
const MAX_MARKERS = 5000;

const companySchema = {
  params: Type.Object({ ticker: TickerParam }),
  querystring: Query({}),
};

/**
 * The explorer's company page: the company, its recent contracts and history (as /api/v1/companies/{ticker}),
 * totals by agency and classification, every award as a chart marker with its default-engine score,
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
    const [found, totals, markers, candles] = await Promise.all([
      companyWithHistory(db, ticker, RECENT_CONTRACTS, totaled.then(countsOfTotals)),
      totaled,
      awardMarkersJson(db, ticker, engine.name, MAX_MARKERS),
      candleRange(db, ticker),
    ]);
    if (!found) throw errors.unknownTicker(ticker);
    const awards = [
      ...(JSON.parse(markers.json) as AwardMarker[]),
      ...(await earlierEraMarkers(db, found.history, ticker, engine.name)),
    ].sort((a, b) =>
      a.award_date === b.award_date ? a.id.localeCompare(b.id) : a.award_date.localeCompare(b.award_date),
    );
    const regimes =
      candles && showsField(request, 'company_page', 'regimes')
        ? await cachedBand(db, cache, candles.first, candles.last)
        : null;
    return {
      ...found,
      totals,
      engine: engine.name,
      awards,
      candle_range: candles,
      regime_tier: fieldTier('company_page', 'regimes'),
      regimes,
    };
  };
}

interface AwardMarker {
  id: string;
  award_date: string;
}

/**
 * The awards of the registrant's earlier listing eras whose prices are in this ticker's series: a 2010
 * award to Sikorsky (ticker then UTX) is marked on RTX's chart, whose candles before 2020-04-03 are
 * United Technologies'.
 */
async function earlierEraMarkers(
  db: Queryable,
  history: CompanyHistory | null,
  ticker: string,
  engine: string,
): Promise<AwardMarker[]> {
  const earlier = new Set(
    (history?.listings ?? [])
      .filter((l) => l.series_ticker === ticker && l.ticker !== ticker)
      .map((l) => l.ticker),
  );
  const lists = await Promise.all([...earlier].map((t) => awardMarkersJson(db, t, engine, MAX_MARKERS)));
  return lists.flatMap((list) => JSON.parse(list.json) as AwardMarker[]);
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
