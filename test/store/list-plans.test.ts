import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../../src/domain/engines/index.ts';
import type { Db, Queryable } from '../../src/store/db.ts';
import { eventsJson } from '../../src/store/events.ts';
import { type SignalFilter, signalsJson } from '../../src/store/signals.ts';
import { joinIds, storedContractsAmong } from '../../src/store/writes.ts';
import { seededDb } from '../support/db.ts';

/** The plan of each statement `run` sends, with sequential and bitmap scans ruled out. */
async function plansOf(db: Db, run: (recorder: Queryable) => Promise<unknown>): Promise<string[]> {
  const sent: { text: string; params: readonly unknown[] | undefined }[] = [];
  await run({
    query: (text, params) => {
      sent.push({ text, params });
      return db.query(text, params);
    },
  });
  const plans: string[] = [];
  for (const { text, params } of sent) {
    const rows = await db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_bitmapscan = off');
      return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
    });
    plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  return plans;
}

describe('the signals list reads its indexes in order', () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
  });
  after(async () => db.close());

  const engine = ENGINES[0];
  const filter = (extra: Partial<SignalFilter> = {}): SignalFilter => ({
    engine: engine?.name ?? '',
    engineVersion: engine?.version ?? '',
    withRationale: false,
    limit: 20,
    offset: 0,
    ...extra,
  });

  // The query has to repeat the index's leading expression (migration 011) word for word; if the two
  // drift apart the planner can no longer use the index and sorts the engine's every signal instead.
  test('ranked: signals_ranked, no sort', async () => {
    const [plan] = await plansOf(db, (q) => signalsJson(q, filter({ minScore: 10 })));
    assert.match(plan ?? '', /Index Scan using signals_ranked on signals/);
    assert.match(plan ?? '', /hashtext/);
    assert.doesNotMatch(plan ?? '', /Sort Key: s\.signal_score/);
  });

  test('by ticker: signals_by_ticker, no sort', async () => {
    const [plan] = await plansOf(db, (q) => signalsJson(q, filter({ ticker: 'LMT' })));
    assert.match(plan ?? '', /Index Scan using signals_by_ticker on signals/);
    assert.doesNotMatch(plan ?? '', /Sort Key: s\.signal_score/);
  });
});

describe('a cursor page enters the list index at its position', () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
  });
  after(async () => db.close());

  const engine = ENGINES[0];
  const events = { engine: engine?.name ?? '', withRationale: false, limit: 20, offset: 0 };

  test('events: the row comparison is the index condition, no sort', async () => {
    for (const [ticker, index] of [
      [undefined, 'contracts_events'],
      ['LMT', 'contracts_by_ticker'],
    ] as const) {
      const { next } = await eventsJson(db, { ...events, ticker });
      assert.ok(next);
      const [plan] = await plansOf(db, (q) => eventsJson(q, { ...events, ticker, after: next }));
      assert.match(plan ?? '', new RegExp(`Index Scan using ${index} on contracts`));
      assert.match(plan ?? '', /Index Cond: .*ROW\(award_date, id\) < ROW\(/);
      assert.doesNotMatch(plan ?? '', /Sort Key: c\.award_date/);
    }
  });

  test('signals: score and time (descending) bound the index scan, the id breaks ties', async () => {
    const signals = { ...events, engineVersion: engine?.version ?? '' };
    const { next } = await signalsJson(db, signals);
    assert.ok(next);
    const [plan] = await plansOf(db, (q) => signalsJson(q, { ...signals, after: next }));
    assert.match(plan ?? '', /Index Scan using signals_ranked on signals/);
    assert.match(plan ?? '', /Index Cond: .*ROW\(signal_score, computed_at\) <= ROW\(/);
    assert.doesNotMatch(plan ?? '', /Sort Key: s\.signal_score/);
  });
});

describe('the signals table', () => {
  test('carries only the indexes its reads use: each one is paid for on every signal written', async () => {
    const db = await seededDb();
    try {
      const rows = await db.query<{ name: string; definition: string }>(
        `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'signals' ORDER BY indexname`,
      );
      assert.deepEqual(
        rows.map((r) => r.name),
        ['signals_by_ticker', 'signals_by_time', 'signals_pkey', 'signals_ranked'],
      );
      const pkey = rows.find((r) => r.name === 'signals_pkey');
      assert.match(pkey?.definition ?? '', /\(contract_id, engine_name, engine_version\)/);
    } finally {
      await db.close();
    }
  });
});

describe('the stored-id probe of an import looks ids up by primary key', () => {
  let db: Db;
  let stored: string[];
  before(async () => {
    db = await seededDb();
    stored = (await db.query<{ id: string }>('SELECT id FROM contracts ORDER BY id LIMIT 2000')).map(
      (r) => r.id,
    );
  });
  after(async () => db.close());

  // A chunk's worth of ids: the planner left to itself would scan the whole table for an `= ANY` list
  // this long, and a scan grows with the table.
  const chunk = () => [
    ...stored,
    ...Array.from({ length: 8000 }, (_, i) => `CONT_AWD_NEW${i}_9700_-NONE-_-NONE-`),
  ];

  test('no scan of contracts, whatever the number of ids', async () => {
    const rows = await db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT c.id FROM ${storedContractsAmong('$1', 'c.id')}`,
      [joinIds(chunk())],
    );
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    assert.match(plan, /Index (Only )?Scan using contracts_pkey on contracts/);
    assert.doesNotMatch(plan, /Seq Scan on contracts|Bitmap Heap Scan on contracts/);
  });

  test('answers each stored id once, repeated or not, and none of the others', async () => {
    const ids = [...chunk(), ...stored.slice(0, 10)];
    const found = await db.query<{ id: string }>(`SELECT c.id FROM ${storedContractsAmong('$1', 'c.id')}`, [
      joinIds(ids),
    ]);
    assert.deepEqual(found.map((r) => r.id).sort(), [...stored].sort());
  });
});
