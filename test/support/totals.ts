import assert from 'node:assert/strict';
import type { Queryable } from '../../src/store/db.ts';
import { companyTotals, getCompany } from '../../src/store/market.ts';

/**
 * Asserts that a company's totals by agency and by classification, and its count and total value, as the
 * company page and /api/v1/companies/{ticker} read them, are what a GROUP BY over its contracts gives now.
 * Returns the totals.
 */
export async function assertTotalsAreContracts(
  db: Queryable,
  ticker: string,
): Promise<Awaited<ReturnType<typeof companyTotals>>> {
  const expected = (column: string) =>
    db.query<{ name: string; count: number; total_value: number }>(
      `SELECT ${column} AS name, count(*)::int AS count, sum(contract_value)::bigint AS total_value
       FROM contracts WHERE ticker = $1 GROUP BY ${column} ORDER BY total_value DESC, name`,
      [ticker],
    );
  const totals = await companyTotals(db, ticker);
  assert.deepEqual(totals.by_agency, await expected('awarding_agency'), ticker);
  assert.deepEqual(totals.by_classification, await expected('nlp_classification'), ticker);
  const [all] = await db.query<{ count: number; total: number }>(
    `SELECT count(*)::int AS count, COALESCE(sum(contract_value), 0)::bigint AS total FROM contracts WHERE ticker = $1`,
    [ticker],
  );
  const company = await getCompany(db, ticker, 1);
  if (company) {
    assert.equal(company.company.contract_count, all?.count, ticker);
    assert.equal(company.company.total_contract_value, all?.total, ticker);
  }
  return totals;
}
