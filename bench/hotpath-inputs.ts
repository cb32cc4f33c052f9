/**
 * The in-process inputs of the ingest hot path, built without a database: the resolver from the demo
 * companies and aliases (as `seed` stores them and `loadResolver` reads them back), the benchmark
 * candles, and per matched award the engine input the pipeline would hand to `score()`.
 */

import { normalizeName } from '../src/domain/names.ts';
import { computeRegime } from '../src/domain/regimes.ts';
import { buildResolver, type Resolution, type Resolver } from '../src/domain/resolver.ts';
import { trailingStatsMany } from '../src/domain/trailing.ts';
import type {
  AwardRecord,
  Candle,
  ClassificationLabel,
  EngineInput,
  RegimeResult,
} from '../src/domain/types.ts';
import { DEMO_DATA_DIR } from '../src/pipeline/seed.ts';
import { loadDemoCandles } from '../src/sources/candles.ts';
import { loadDemoCompanies } from '../src/sources/companies.ts';

export interface HotpathWorld {
  newResolver: () => Resolver;
  benchmarks: { spy: Candle[]; xli: Candle[]; ita: Candle[] };
  sectors: Map<string, EngineInput['company']>;
}

export async function loadWorld(): Promise<HotpathWorld> {
  const { companies, aliases } = await loadDemoCompanies(DEMO_DATA_DIR);
  const aliasRows = aliases.map((a) => ({
    aliasNorm: normalizeName(a.alias),
    ticker: a.ticker,
    source: a.source,
  }));
  const names = companies.map((c) => ({ ticker: c.ticker, name: c.name }));
  const candles = await loadDemoCandles(DEMO_DATA_DIR);
  return {
    newResolver: () => buildResolver(aliasRows, names),
    benchmarks: {
      spy: candles.get('SPY') ?? [],
      xli: candles.get('XLI') ?? [],
      ita: candles.get('ITA') ?? [],
    },
    sectors: new Map(companies.map((c) => [c.ticker, { sector: c.sector, industry: c.industry }])),
  };
}

/** As the pipeline does: at most this many bars up to the date (see barsUpTo in pipeline/ingest.ts). */
const REGIME_BARS = 400;

function barsUpTo(series: readonly Candle[], date: string): Candle[] {
  let lo = 0;
  let hi = series.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((series[mid]?.date ?? '') <= date) lo = mid + 1;
    else hi = mid;
  }
  return series.slice(Math.max(0, lo - REGIME_BARS), lo);
}

/** One regime per distinct award date, as the pipeline caches them. */
export function regimesByDate(
  world: HotpathWorld,
  dates: Iterable<string>,
): Map<string, RegimeResult | null> {
  const { spy, xli, ita } = world.benchmarks;
  const out = new Map<string, RegimeResult | null>();
  for (const date of dates) {
    if (out.has(date)) continue;
    out.set(
      date,
      computeRegime({
        asOf: date,
        spy: barsUpTo(spy, date),
        xli: barsUpTo(xli, date),
        ita: barsUpTo(ita, date),
      }),
    );
  }
  return out;
}

/**
 * The engine input of every matched award: trailing statistics over the matched awards of the same
 * ticker (the run's own history, as after a first import), the regime at the award date.
 */
export function engineInputs(
  world: HotpathWorld,
  awards: readonly AwardRecord[],
  resolutions: readonly Resolution[],
  labels: readonly ClassificationLabel[],
  regimes: ReadonlyMap<string, RegimeResult | null>,
): EngineInput[] {
  const contracts: EngineInput['contract'][] = [];
  awards.forEach((award, i) => {
    const match = resolutions[i];
    if (!match?.ticker) return;
    contracts.push({
      id: award.id,
      ticker: match.ticker,
      value: award.value,
      awardDate: award.awardDate,
      awardingAgency: award.awardingAgency,
      classification: labels[i] ?? 'other',
      matchConfidence: match.confidence,
    });
  });
  const byTicker = new Map<string, EngineInput['contract'][]>();
  for (const c of contracts) {
    const list = byTicker.get(c.ticker);
    if (list) list.push(c);
    else byTicker.set(c.ticker, [c]);
  }
  const trailing = new Map<string, EngineInput['trailing']>();
  for (const list of byTicker.values()) {
    const history = list
      .map((c) => ({ date: c.awardDate, value: c.value }))
      .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    const stats = trailingStatsMany(
      history,
      list.map((c) => c.awardDate),
    );
    list.forEach((c, i) => {
      const s = stats[i];
      if (s) trailing.set(c.id, s);
    });
  }
  return contracts.map((contract) => ({
    contract,
    company: world.sectors.get(contract.ticker) ?? null,
    trailing: trailing.get(contract.id) ?? { count: 0, totalValue: 0, medianValue: 0 },
    regime: regimes.get(contract.awardDate) ?? null,
  }));
}
