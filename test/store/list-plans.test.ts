import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../../src/domain/engines/index.ts';
import { CURSOR_TUPLE_FRACTION, type Db, type Queryable } from '../../src/store/db.ts';
import { eventsJson } from '../../src/store/events.ts';
import { eventExport, signalExport } from '../../src/store/export.ts';
import { companyTotals, countsOfTotals, getCompany } from '../../src/store/market.ts';
import { signalsJson } from '../../src/store/signals.ts';
import { joinIds, storedContractsAmong } from '../../src/store/writes.ts';
import { seededDb } from '../support/db.ts';
import { firstEngineFilter } from '../support/signal-filter.ts';
import { assertTotalsAreContracts } from '../support/totals.ts';

/** Ends the transaction that read a plan with indexes dropped, so that the drops are rolled back. */
class PlanRead extends Error {
  constructor(readonly plan: { 'QUERY PLAN': string }[]) {
    super('plan read; rolled back');
  }
}

/**
 * The plan of each statement `run` sends, with sequential and bitmap scans ruled out, and the indexes
 * named in `hidden` dropped for the plan's transaction only (it is rolled back).
 */
async function plansOf(
  db: Db,
  run: (recorder: Queryable) => Promise<unknown>,
  hidden: readonly string[] = [],
  explain = 'EXPLAIN',
): Promise<string[]> {
  const sent: { text: string; params: readonly unknown[] | undefined }[] = [];
  await run({
    query: (text, params) => {
      sent.push({ text, params });
      return db.query(text, params);
    },
  });
  const plans: string[] = [];
  for (const { text, params } of sent) {
    const rows = await db
      .transaction(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        await tx.query('SET LOCAL enable_bitmapscan = off');
        for (const index of hidden) await tx.query(`DROP INDEX ${index}`);
        const plan = await tx.query<{ 'QUERY PLAN': string }>(`${explain} ${text}`, params);
        if (hidden.length > 0) throw new PlanRead(plan);
        return plan;
      })
      .catch((error: unknown) => {
        if (error instanceof PlanRead) return error.plan;
        throw error;
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

  const filter = firstEngineFilter;

  // The query has to repeat the index's leading expression (migration 011) word for word; if the two
  // drift apart the planner can no longer use the index and sorts the engine's every signal instead.
  test('ranked: signals_ranked, no sort', async () => {
    const [plan] = await plansOf(db, (q) => signalsJson(q, filter({ minScore: 10 })));
    assert.match(plan ?? '', /Index (Only )?Scan using signals_ranked on signals/);
    assert.match(plan ?? '', /hashtext/);
    assert.doesNotMatch(plan ?? '', /Sort Key: s\.signal_score/);
  });

  // Since signals_ranked covers the list's columns (migration 030), the planner may walk it and filter
  // the ticker where the ticker is common: on the seeded data, and at 10 M for LMT and NOC (2 ms), while
  // rarer tickers take their own index (HII 1.1 ms, KTOS 0.1 ms; EXPLAIN ANALYZE, 2026-11-27). What must
  // hold is that the ticker's index serves the query in order, so the ranked one is set aside here.
  test('by ticker: signals_by_ticker, no sort', async () => {
    const [plan] = await plansOf(db, (q) => signalsJson(q, filter({ ticker: 'LMT' })), ['signals_ranked']);
    assert.match(plan ?? '', /Index Scan using signals_by_ticker on signals/);
    assert.doesNotMatch(plan ?? '', /Sort Key: s\.signal_score/);
  });
});

describe('the signals list in a window (since and available_to)', () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
  });
  after(async () => db.close());

  // Walked in score order, a window matching almost nothing read all of an engine's entries of
  // signals_ranked (1.3 s at 10 M): the walk is bounded, and the matches beyond it are read month of
  // availability by month from migration 031's index, the computation's range within each month.
  test('a bounded walk of signals_ranked, then signals_by_availability month by month', async () => {
    const [plan] = await plansOf(db, (q) =>
      signalsJson(
        q,
        firstEngineFilter({ since: '2026-01-01T00:00:00Z', availableTo: '2012-01-01T00:00:00Z' }),
      ),
    );
    assert.match(plan ?? '', /Limit[^\n]*\n\s*-> {2}Index Only Scan using signals_ranked on signals/, plan);
    assert.match(plan ?? '', /Index (Only )?Scan using signals_by_availability on signals/, plan);
    assert.match(plan ?? '', /Index Cond: .*date_trunc.*computed_at >= /, plan);
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
    assert.match(plan ?? '', /Index (Only )?Scan using signals_ranked on signals/);
    assert.match(plan ?? '', /Index Cond: .*ROW\(signal_score, computed_at\) <= ROW\(/);
    assert.doesNotMatch(plan ?? '', /Sort Key: s\.signal_score/);
  });
});

describe('events available by a moment', () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
  });
  after(async () => db.close());

  const events = { engine: ENGINES[0]?.name ?? '', withRationale: false, limit: 20, offset: 0 };
  const ids = (json: string) =>
    (JSON.parse(json) as { contract: { id: string } }[]).map((e) => e.contract.id);

  // Walking the list from the newest award read every award newer than the moment first: 3 s at 10 M.
  test("start at the moment's date, and take the early ones from their own index", async () => {
    const [plan] = await plansOf(db, (q) =>
      eventsJson(q, { ...events, availableTo: '2019-06-30T12:00:00Z' }),
    );
    assert.match(plan ?? '', /Index Cond: .*award_date <= /);
    assert.match(plan ?? '', /contracts_available_early/);
    // The two parts are merged in the list's order, never sorted.
    assert.match(plan ?? '', /Merge Append/);
    assert.doesNotMatch(plan ?? '', /-> {2}Sort[^\n]*\n\s*Sort Key: c\.award_date/);
  });

  test('list exactly the events available by then, an award available before its award date included', async () => {
    const [early] = await db.query<{ id: string; moment: string }>(
      `UPDATE contracts SET available_at = award_date - interval '3 days'
       WHERE id = (SELECT id FROM contracts WHERE ticker = 'LMT' ORDER BY award_date DESC, id DESC LIMIT 1)
       RETURNING id, to_char(award_date - 2, 'YYYY-MM-DD"T"00:00:00"Z"') AS moment`,
    );
    assert.ok(early);
    for (const moment of [early.moment, '2100-01-01T00:00:00Z']) {
      for (const ticker of [undefined, 'LMT']) {
        const expected = await db.query<{ id: string }>(
          `SELECT id FROM contracts WHERE ticker IS NOT NULL AND available_at <= $1::timestamptz
             AND ($2::text IS NULL OR ticker = $2) ORDER BY award_date DESC, id DESC LIMIT 25`,
          [moment, ticker ?? null],
        );
        const page = await eventsJson(db, { ...events, limit: 25, ticker, availableTo: moment });
        assert.deepEqual(
          ids(page.json),
          expected.map((r) => r.id),
          `${moment} ${ticker ?? ''}`,
        );
        assert.ok(ids(page.json).includes(early.id), `${moment} ${ticker ?? ''}: the early award is listed`);
      }
    }
  });
});

describe("a company's totals", () => {
  // Summed from the heap they cost a random page per contract: 2.2 s for 1.3 M contracts of a ticker.
  // Then each was read twice: the count and the sum in two subqueries (380 ms for the busiest ticker at
  // 10 M), every contract once per list of totals (806 ms); then once (0.75–0.9 s). Now they are kept
  // by (ticker, agency, classification) as contracts are written (migration 029).
  test('are read from the summary the database keeps, not from the contracts', async () => {
    const db = await seededDb();
    try {
      // Run (ANALYZE): the contracts are in the plan, behind the one-time filter of a large import's
      // deferral of the summary (migration 033), and never read without one.
      const plans = await plansOf(
        db,
        async (q) => {
          await getCompany(q, 'LMT', 20);
          await companyTotals(q, 'LMT');
        },
        [],
        'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)',
      );
      const [company, totals] = [plans[0] ?? '', plans.at(-1) ?? ''];
      for (const plan of [company, totals]) {
        const read = plan
          .split('\n')
          .filter((line) => /on contracts/.test(line) && !/never executed/.test(line));
        assert.deepEqual(read, [], plan);
        assert.match(plan, /on contract_totals/, plan);
        assert.match(plan, /on contract_total_deltas/, plan);
      }
    } finally {
      await db.close();
    }
  });

  // The dashboard's company page sums them by agency and classification anyway.
  test('given the counts, the company record reads no contract', async () => {
    const db = await seededDb();
    try {
      const totals = await companyTotals(db, 'LMT');
      const [plan] = await plansOf(db, (q) =>
        getCompany(q, 'LMT', 20, Promise.resolve(countsOfTotals(totals))),
      );
      assert.doesNotMatch(plan ?? '', /on contracts/);
      const given = await getCompany(db, 'LMT', 20, Promise.resolve(countsOfTotals(totals)));
      const summed = await getCompany(db, 'LMT', 20);
      assert.deepEqual(given?.company, summed?.company);
    } finally {
      await db.close();
    }
  });

  test('add up to what the contracts hold, by agency and by classification', async () => {
    const db = await seededDb();
    try {
      for (const ticker of ['LMT', 'NOSUCH']) {
        const totals = await assertTotalsAreContracts(db, ticker);
        if (ticker === 'LMT') assert.ok(totals.by_agency.length > 1 && totals.by_classification.length > 1);
      }
      assert.ok(await getCompany(db, 'LMT', 1), 'LMT is a company of the seeded data');
    } finally {
      await db.close();
    }
  });
});

describe('an export cursor is planned for its first rows', () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
  });
  after(async () => db.close());

  const events = { engine: ENGINES[0]?.name ?? '', withRationale: false, limit: null };

  const cursorPlan = (query: { text: string; params: unknown[] }) =>
    db.transaction(async (tx) => {
      await tx.query(`SET LOCAL cursor_tuple_fraction = ${CURSOR_TUPLE_FRACTION}`);
      const rows = await tx.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN DECLARE planned NO SCROLL CURSOR FOR ${query.text}`,
        query.params,
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });

  // Planned for its first tenth (PostgreSQL's default), or as a subquery (LIMIT null) planned apart for
  // all its rows, an export read the table sequentially and sorted it before its first row: up to 5 s
  // for one ticker's events at 10 M, 34 s for an engine's signals.
  test('events: the list index in its order, no sort', async () => {
    for (const [extra, index] of [
      [{}, 'contracts_events'],
      [{ ticker: 'LMT' }, 'contracts_by_ticker'],
      [{ classification: 'aircraft' }, 'contracts_by_class'],
    ] as const) {
      const plan = await cursorPlan(eventExport({ ...events, ...extra }, 'csv'));
      assert.match(plan, new RegExp(`Index Scan using ${index} on contracts`), plan);
      assert.doesNotMatch(plan, /Seq Scan on contracts/);
      assert.doesNotMatch(plan, /Sort Key: c\.award_date/);
    }
  });

  // Its two parts (awarded by the moment's date; awarded later yet available by then) were subqueries
  // planned apart, each for all its rows: the table read and sorted before the first row (55 cold
  // first batches of `bench:explain` at 10 M, up to 3 s).
  test('events available by a moment: both parts in index order, merged, no sort', async () => {
    for (const [extra, index] of [
      [{}, 'contracts_events'],
      [{ ticker: 'LMT' }, 'contracts_by_ticker'],
      [{ classification: 'aircraft', availableFrom: '2010-01-01T00:00:00Z' }, 'contracts_by_class'],
    ] as const) {
      const plan = await cursorPlan(
        eventExport({ ...events, ...extra, availableTo: '2019-06-30T12:00:00Z' }, 'csv'),
      );
      assert.match(plan, /Merge Append/, plan);
      assert.match(plan, new RegExp(`Index Scan using ${index} on contracts`), plan);
      // The later part from the index of exactly its rows, or, when the filter's own index has few
      // entries after the moment's date (a ticker's, on the seeded data), from that one.
      if (index === 'contracts_events')
        assert.match(plan, /Index Scan using contracts_available_early on contracts/);
      assert.match(plan, /Index Cond: .*award_date <= /, plan);
      assert.doesNotMatch(plan, /Seq Scan on contracts/, plan);
      // The merge's own sort key aside, nothing sorts the contracts.
      assert.doesNotMatch(plan, /-> +Sort\b[^\n]*\n\s*Sort Key: [^\n]*award_date/, plan);
    }
  });

  test('signals: the list index in its order, no sort', async () => {
    const signals = { ...events, engineVersion: ENGINES[0]?.version ?? '' };
    for (const [extra, index] of [
      [{}, 'signals_ranked'],
      [{ ticker: 'LMT' }, 'signals_by_ticker'],
    ] as const) {
      const plan = await cursorPlan(signalExport({ ...signals, ...extra }, 'csv'));
      assert.match(plan, new RegExp(`Index (Only )?Scan using ${index} on signals`), plan);
      assert.doesNotMatch(plan, /Seq Scan on signals/);
      assert.doesNotMatch(plan, /Sort Key: s\.signal_score/);
    }
  });

  // Read in score order, each signal's row was a random page of the signals table (14 GB at 10 M, wide
  // with its rationale): ≈ 13,000 rows/s. Migration 030's index carries all the export reads of a signal
  // but its rationale, so the export never reads the table's pages (an index-only scan).
  test('signals: read from the index alone, the rationale aside', async () => {
    const signals = { ...events, engineVersion: ENGINES[0]?.version ?? '' };
    for (const format of ['csv', 'ndjson'] as const) {
      for (const extra of [
        {},
        { minScore: 10 },
        { since: '2020-01-01T00:00:00Z' },
        { availableTo: '2024-01-01T00:00:00Z' },
      ]) {
        const plan = await cursorPlan(signalExport({ ...signals, ...extra }, format));
        assert.match(
          plan,
          /Index Only Scan using signals_ranked on signals s\b/,
          `${format} ${JSON.stringify(extra)}\n${plan}`,
        );
      }
    }
    // NDJSON with rationales (the intelligence tier) reads them from the rows.
    const full = await cursorPlan(signalExport({ ...signals, withRationale: true }, 'ndjson'));
    assert.match(full, /Index Scan using signals_ranked on signals s\b/, full);
  });

  test("the cursor's transaction plans with that fraction", async () => {
    const cursor = await db.openCursor<{ fraction: string }>(
      "SELECT current_setting('cursor_tuple_fraction') AS fraction",
      [],
      { batchRows: 10, idleMs: 10_000 },
    );
    try {
      const [row] = await cursor.read();
      assert.equal(Number(row?.fraction), CURSOR_TUPLE_FRACTION);
      assert.ok(CURSOR_TUPLE_FRACTION < 0.1);
    } finally {
      await cursor.close();
    }
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
        ['signals_by_availability', 'signals_by_ticker', 'signals_by_time', 'signals_pkey', 'signals_ranked'],
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
