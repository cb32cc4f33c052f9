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

interface Cell {
  ticker: string;
  awarding_agency: string;
  nlp_classification: string;
  count: string;
  total_value: string;
}

const CELLS_OF_CONTRACTS = `SELECT ticker, awarding_agency, nlp_classification, count(*)::text AS count,
    sum(contract_value)::text AS total_value
  FROM contracts WHERE ticker IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
const CELLS_OF_SUMMARY = `SELECT ticker, awarding_agency, nlp_classification, sum(count)::text AS count,
    sum(total_value)::text AS total_value
  FROM (SELECT ticker, awarding_agency, nlp_classification, count, total_value FROM contract_totals
        UNION ALL SELECT ticker, awarding_agency, nlp_classification, count, total_value FROM contract_total_deltas) s
  GROUP BY 1, 2, 3 HAVING sum(count) <> 0 ORDER BY 1, 2, 3`;

type Runner = { query<T>(sql: string, params?: unknown[]): Promise<T[]> };

/**
 * Asserts that the summary of migration 029 (its cells and deltas, every ticker) is what a GROUP BY over
 * the contracts gives now, and that there are contracts with a ticker to sum.
 */
export async function assertSummed(db: Runner, when: string): Promise<void> {
  const [expected, summary] = [
    await db.query<Cell>(CELLS_OF_CONTRACTS),
    await db.query<Cell>(CELLS_OF_SUMMARY),
  ];
  assert.ok(expected.length > 0, when);
  assert.deepEqual(summary, expected, when);
}
