import type { Candle, Company } from '../domain/types.ts';
import type { CandleDto, ContractDto, RegimeDto } from '../http/schemas/resources.ts';
import type { Queryable } from './db.ts';
import { Where } from './events.ts';
import { CONTRACT_COLUMNS, type ContractRow, toContract } from './rows.ts';

export interface CompanyRecord extends Company {
  aliases: string[];
  contract_count: number;
  total_contract_value: number;
}

export async function getCompany(
  db: Queryable,
  ticker: string,
  recent: number,
): Promise<{ company: CompanyRecord; recent_contracts: ContractDto[] } | null> {
  const companies = await db.query<CompanyRecord>(
    `SELECT co.ticker, co.name, co.cik, co.exchange, co.sector, co.industry,
       COALESCE((SELECT array_agg(a.alias_norm ORDER BY a.alias_norm) FROM company_aliases a WHERE a.ticker = co.ticker), '{}') AS aliases,
       (SELECT count(*) FROM contracts c WHERE c.ticker = co.ticker)::int AS contract_count,
       (SELECT COALESCE(sum(c.contract_value), 0) FROM contracts c WHERE c.ticker = co.ticker)::bigint AS total_contract_value
     FROM companies co WHERE co.ticker = $1`,
    [ticker],
  );
  const company = companies[0];
  if (!company) return null;
  const contracts = await db.query<ContractRow>(
    `SELECT ${CONTRACT_COLUMNS} FROM contracts c WHERE c.ticker = $1 ORDER BY c.award_date DESC, c.id DESC LIMIT $2`,
    [ticker, recent],
  );
  return { company, recent_contracts: contracts.map(toContract) };
}

export interface CandleRange {
  from?: string;
  to?: string;
  limit: number;
}

/** Ascending candles; with a limit and no lower bound, the most recent `limit` bars. */
export async function listCandles(db: Queryable, ticker: string, range: CandleRange): Promise<CandleDto[]> {
  const where = new Where()
    .add((p) => `ticker = ${p}`, ticker)
    .add((p) => `date >= ${p}::date`, range.from)
    .add((p) => `date <= ${p}::date`, range.to);
  const limit = where.next(range.limit);
  const newestFirst = range.from === undefined;
  const rows = await db.query<CandleDto>(
    `SELECT date, open, high, low, close, adj_close, volume FROM candles ${where.sql()}
     ORDER BY date ${newestFirst ? 'DESC' : 'ASC'} LIMIT ${limit}`,
    where.params,
  );
  return newestFirst ? rows.reverse() : rows;
}

export async function hasCandles(db: Queryable, ticker: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM candles WHERE ticker = $1 LIMIT 1', [ticker]);
  return rows.length > 0;
}

/** Domain-shaped candles for computations (weekly bars, regimes). */
export async function candleSeries(
  db: Queryable,
  ticker: string,
  from: string,
  to: string,
): Promise<Candle[]> {
  const rows = await db.query<CandleDto>(
    `SELECT date, open, high, low, close, adj_close, volume FROM candles
     WHERE ticker = $1 AND date BETWEEN $2::date AND $3::date ORDER BY date`,
    [ticker, from, to],
  );
  return rows.map((r) => ({ ...r, adjClose: r.adj_close }));
}

export interface RegimeFilter {
  contractId?: string;
  dominant?: string;
  limit: number;
}

export async function listRegimes(db: Queryable, filter: RegimeFilter): Promise<RegimeDto[]> {
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

export async function getRegime(db: Queryable, contractId: string): Promise<RegimeDto | null> {
  return (await listRegimes(db, { contractId, limit: 1 }))[0] ?? null;
}
