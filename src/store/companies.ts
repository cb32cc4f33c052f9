/** Reads of the companies and their name aliases that the pipeline needs (the API's are in market.ts). */
import type { EngineInput } from '../domain/types.ts';
import type { Queryable } from './db.ts';

/** Every alias and company, the resolver's inputs. */
export async function resolverInputs(db: Queryable): Promise<{
  aliases: { aliasNorm: string; ticker: string; source: string }[];
  companies: { ticker: string; name: string }[];
}> {
  const [aliases, companies] = await Promise.all([
    db.query<{ aliasNorm: string; ticker: string; source: string }>(
      'SELECT alias_norm AS "aliasNorm", ticker, source FROM company_aliases',
    ),
    db.query<{ ticker: string; name: string }>('SELECT ticker, name FROM companies'),
  ]);
  return { aliases, companies };
}

/** Sector and industry of each of `tickers` that is a known company. */
export async function companySectors(
  db: Queryable,
  tickers: readonly string[],
): Promise<Map<string, EngineInput['company']>> {
  const rows = await db.query<{ ticker: string; sector: string | null; industry: string | null }>(
    'SELECT ticker, sector, industry FROM companies WHERE ticker = ANY($1::text[])',
    [tickers],
  );
  return new Map(rows.map((r) => [r.ticker, { sector: r.sector, industry: r.industry }]));
}
