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

test('an announcement’s history is the company’s earlier announcements; an award’s, the earlier awards', async () => {
  // The seed holds both for LMT in early 2019: announcements since 2019-01-01, awards from USASpending.
  const count = (source: string) =>
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contracts WHERE ticker = 'LMT' AND source = $1
       AND award_date >= '2018-03-08' AND award_date < '2019-03-08'`,
      [source],
    );
  const [announced] = await count('announcement');
  const [awarded] = await count('usaspending');
  assert.ok(announced && announced.n > 0 && awarded && awarded.n > 0, 'both sources in the window');
  const history = await loadHistory(db, [
    { id: 'DOD_ANN_2019-03-08_0099_1', ticker: 'LMT', awardDate: '2019-03-08' },
    { id: 'CONT_AWD_X_9700_-NONE-_-NONE-', ticker: 'LMT', awardDate: '2019-03-08' },
  ]);
  assert.equal(history.get('announcement:LMT')?.length, announced.n);
  assert.equal(history.get('LMT')?.length, awarded.n);
});
