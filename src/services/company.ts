import { companyHistory } from '../domain/company-history.ts';
import { IdentityModel } from '../domain/identity.ts';
import type { Queryable } from '../store/db.ts';
import { loadIdentity } from '../store/identity.ts';
import { type CompanyCounts, type CompanyRecord, getCompany, getTickerContracts } from '../store/market.ts';

/**
 * A company with its recent contracts and its history. A delisted ticker that only the identity data
 * knows (RTN, LLL, COL…) gets its record from that data: name and CIK of the registrant, the exchange
 * of its last listing, no sector. `counts`: see getCompany.
 */
export async function companyWithHistory(
  db: Queryable,
  ticker: string,
  recent: number,
  counts?: Promise<CompanyCounts>,
) {
  const [stored, identity] = await Promise.all([getCompany(db, ticker, recent, counts), loadIdentity(db)]);
  const model = new IdentityModel(identity);
  if (stored) return { ...stored, history: companyHistory(model, ticker) };
  const history = companyHistory(model, ticker, true);
  if (history === null) return null;
  const listing = [...history.listings].reverse().find((l) => l.ticker === ticker);
  const record: CompanyRecord = {
    ticker,
    name: history.name,
    cik: history.cik,
    exchange: listing?.exchange ?? null,
    sector: null,
    industry: null,
    aliases: [],
    contract_count: 0,
    total_contract_value: 0,
  };
  const { company, recent_contracts } = await contractsOf(db, record, ticker, recent);
  return { company, recent_contracts, history };
}

async function contractsOf(db: Queryable, record: CompanyRecord, ticker: string, recent: number) {
  const { count, total, contracts } = await getTickerContracts(db, ticker, recent);
  return {
    company: { ...record, contract_count: count, total_contract_value: total },
    recent_contracts: contracts,
  };
}
