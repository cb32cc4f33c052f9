/**
 * Company universe: SEC ticker/exchange list merged with S&P 500 GICS sectors, plus the three
 * benchmark ETFs, and the curated recipient-name aliases.
 */
import { join } from 'node:path';
import type { Company } from '../domain/types.ts';
import { parseCsv, rowToObject } from './csv.ts';
import { readTextFile } from './files.ts';

export type CompanyRow = Company;

export interface AliasRow {
  alias: string;
  ticker: string;
  source: string;
}

/** Benchmark ETFs (SPY, XLI, ITA always exist). Not operating companies: sector null. */
export const BENCHMARK_ETFS: readonly { ticker: string; name: string }[] = [
  { ticker: 'SPY', name: 'SPDR S&P 500 ETF Trust (ETF, market benchmark)' },
  { ticker: 'XLI', name: 'Industrial Select Sector SPDR Fund (ETF, industrials benchmark)' },
  { ticker: 'ITA', name: 'iShares U.S. Aerospace & Defense ETF (ETF, aerospace & defense benchmark)' },
];
export const ETF_EXCHANGE = 'NYSE Arca';

function objects(text: string): Record<string, string>[] {
  const { header, rows } = parseCsv(text);
  return rows.map((r) => rowToObject(header, r.fields));
}

/** SEC-style ticker: upper case, class separator '-' (S&P writes `BRK.B`, the SEC `BRK-B`). */
export function normalizeTicker(t: string): string {
  return t.trim().toUpperCase().replaceAll('.', '-');
}

function blankToNull(v: string | undefined): string | null {
  const t = (v ?? '').trim();
  return t === '' ? null : t;
}

/**
 * Merges the SEC list (`cik,ticker,exchange,name`) with S&P 500 constituents (`Symbol`, `GICS
 * Sector`, `GICS Sub-Industry`, `CIK`, `Security`). An S&P row is matched to an SEC row by
 * ticker, else by CIK (e.g. a renamed ticker); an unmatched S&P row is added with exchange null.
 * The first SEC row wins when a ticker repeats. The benchmark ETFs are then added or override the
 * SEC row (keeping its CIK): exchange NYSE Arca, sector/industry null.
 */
export function mergeCompanies(secCsv: string, sp500Csv: string): CompanyRow[] {
  const byTicker = new Map<string, CompanyRow>();
  const byCik = new Map<string, CompanyRow>();
  for (const r of objects(secCsv)) {
    const ticker = normalizeTicker(r.ticker ?? '');
    if (ticker === '' || byTicker.has(ticker)) continue;
    const cik = blankToNull(r.cik);
    const row: CompanyRow = {
      ticker,
      name: (r.name ?? '').trim() || ticker,
      cik: cik === null ? null : cik.padStart(10, '0'),
      exchange: blankToNull(r.exchange),
      sector: null,
      industry: null,
    };
    byTicker.set(ticker, row);
    if (row.cik && !byCik.has(row.cik)) byCik.set(row.cik, row);
  }
  for (const r of objects(sp500Csv)) {
    const ticker = normalizeTicker(r.Symbol ?? '');
    if (ticker === '') continue;
    const cikRaw = blankToNull(r.CIK);
    const cik = cikRaw === null ? null : cikRaw.padStart(10, '0');
    let row = byTicker.get(ticker) ?? (cik ? byCik.get(cik) : undefined);
    if (!row) {
      row = {
        ticker,
        name: (r.Security ?? '').trim() || ticker,
        cik,
        exchange: null,
        sector: null,
        industry: null,
      };
      byTicker.set(ticker, row);
    }
    row.sector = blankToNull(r['GICS Sector']);
    row.industry = blankToNull(r['GICS Sub-Industry']);
  }
  for (const etf of BENCHMARK_ETFS) {
    const existing = byTicker.get(etf.ticker);
    byTicker.set(etf.ticker, {
      ticker: etf.ticker,
      name: etf.name,
      cik: existing?.cik ?? null,
      exchange: ETF_EXCHANGE,
      sector: null,
      industry: null,
    });
  }
  return [...byTicker.values()];
}

/** `alias,ticker,source` CSV; blank aliases are skipped, tickers normalized. */
export function parseAliasesCsv(text: string): AliasRow[] {
  return objects(text)
    .map((r) => ({
      alias: (r.alias ?? '').trim(),
      ticker: normalizeTicker(r.ticker ?? ''),
      source: (r.source ?? '').trim(),
    }))
    .filter((a) => a.alias !== '' && a.ticker !== '');
}

/**
 * Loads `companies/sec_company_tickers_exchange.csv.gz`, `companies/sp500_constituents.csv` and
 * `aliases.csv` from `dataDir`. Throws when an alias points at a ticker that is not a company row.
 */
export async function loadDemoCompanies(
  dataDir: string,
): Promise<{ companies: CompanyRow[]; aliases: AliasRow[] }> {
  const [sec, sp500, aliasText] = await Promise.all([
    readTextFile(join(dataDir, 'companies', 'sec_company_tickers_exchange.csv.gz')),
    readTextFile(join(dataDir, 'companies', 'sp500_constituents.csv')),
    readTextFile(join(dataDir, 'aliases.csv')),
  ]);
  const companies = mergeCompanies(sec, sp500);
  const aliases = parseAliasesCsv(aliasText);
  const known = new Set(companies.map((c) => c.ticker));
  const unknown = aliases.filter((a) => !known.has(a.ticker));
  if (unknown.length > 0) {
    throw new Error(
      `aliases.csv: unknown tickers ${unknown.map((a) => `${a.alias}→${a.ticker}`).join('; ')}`,
    );
  }
  return { companies, aliases };
}
