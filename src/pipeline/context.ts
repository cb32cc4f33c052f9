import { ENGINES } from '../domain/engines/index.ts';
import { buildResolver, type Resolver } from '../domain/resolver.ts';
import type { Candle, Engine } from '../domain/types.ts';
import type { Db, Queryable } from '../store/db.ts';
import { candleSeries } from '../store/market.ts';

/** What one pipeline run needs, loaded once: the resolver, the engines, the benchmark series. */
export interface PipelineContext {
  db: Db;
  resolver: Resolver;
  engines: readonly Engine[];
  benchmarks: { spy: Candle[]; xli: Candle[]; ita: Candle[] };
  signalThreshold: number;
  now: () => Date;
}

export async function loadResolver(db: Queryable): Promise<Resolver> {
  const [aliases, companies] = await Promise.all([
    db.query<{ aliasNorm: string; ticker: string; source: string }>(
      'SELECT alias_norm AS "aliasNorm", ticker, source FROM company_aliases',
    ),
    db.query<{ ticker: string; name: string }>('SELECT ticker, name FROM companies'),
  ]);
  return buildResolver(aliases, companies);
}

export async function createPipelineContext(
  db: Db,
  options: { signalThreshold: number; now?: () => Date; engines?: readonly Engine[] },
): Promise<PipelineContext> {
  const all = (ticker: string) => candleSeries(db, ticker, '1900-01-01', '2999-12-31');
  const [resolver, spy, xli, ita] = await Promise.all([loadResolver(db), all('SPY'), all('XLI'), all('ITA')]);
  return {
    db,
    resolver,
    engines: options.engines ?? ENGINES,
    benchmarks: { spy, xli, ita },
    signalThreshold: options.signalThreshold,
    now: options.now ?? (() => new Date()),
  };
}
