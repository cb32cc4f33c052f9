import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadHistory } from '../../src/pipeline/score.ts';
import type { Db } from '../../src/store/db.ts';
import { seededDb } from '../support/db.ts';

let db: Db;
before(async () => {
  db = await seededDb();
});
after(async () => db.close());

/** A ticker's stored awards as `loadHistory` gives them, filtered here by date. */
async function storedHistory(
  ticker: string,
  from: string,
  until: string,
): Promise<{ date: string; value: number }[]> {
  return db.query<{ date: string; value: number }>(
    `SELECT award_date AS date, contract_value AS value FROM contracts
     WHERE ticker = $1 AND award_date >= $2 AND award_date < $3 ORDER BY award_date`,
    [ticker, from, until],
  );
}

test('scoring reads, per ticker, only the awards its contracts trailing windows can see', async () => {
  const [busiest] = await db.query<{ ticker: string; n: number }>(
    `SELECT ticker, count(*)::int AS n FROM contracts WHERE ticker IS NOT NULL
     GROUP BY ticker ORDER BY count(*) DESC, ticker LIMIT 1`,
  );
  assert.ok(busiest && busiest.n > 100, 'the seed holds a ticker with a long history');
  const history = await loadHistory(db, [
    { ticker: busiest.ticker, awardDate: '2024-06-30' },
    { ticker: busiest.ticker, awardDate: '2024-03-15' },
    { ticker: 'NO-SUCH-TICKER', awardDate: '2024-03-15' },
  ]);
  // From 365 days before the earliest date to the latest, exclusive — in date order.
  const expected = await storedHistory(busiest.ticker, '2023-03-16', '2024-06-30');
  assert.ok(expected.length > 0, 'the window holds awards');
  assert.ok(expected.length < busiest.n, 'and the window leaves older and later awards out');
  const got = history.get(busiest.ticker) ?? [];
  assert.ok(
    got.every((h, i) => i === 0 || (got[i - 1]?.date ?? '') <= h.date),
    'in date order',
  );
  // Awards of one day come in no particular order: compare them as a set.
  const asSet = (rows: { date: string; value: number }[]) => rows.map((h) => `${h.date} ${h.value}`).sort();
  assert.deepEqual(asSet(got), asSet(expected));
  assert.deepEqual([...history.keys()], [busiest.ticker]);
});
