import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import type { Position } from '../../src/store/keyset.ts';
import { type SignalFilter, signalsJson, WINDOW } from '../../src/store/signals.ts';
import { seededDb } from '../support/db.ts';
import { firstEngineFilter } from '../support/signal-filter.ts';

// The signals list filtered by a window (`since` and `available_to`) looks for its page among the
// engine's first signals, and else reads every match month of availability by month (src/store/
// signals.ts, windowPage). Whichever part answers, the page must be the list's: the filter's signals in
// the list's order, at the offset or after the cursor's position.

const ids = (json: string) =>
  (JSON.parse(json) as { signal: { id: string } }[]).map((item) => item.signal.id);

describe('the signals list in a window of computation and availability', () => {
  let db: Db;
  let windows: { since: string; availableTo: string }[];
  before(async () => {
    db = await seededDb();
    // Bounds drawn from the seeded signals' own spread (first, median, last of each), every pairing.
    const [spread] = await db.query<{ computed: string[]; available: string[] }>(
      `SELECT array_agg(to_char(c AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) AS computed,
         array_agg(to_char(a AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) AS available
       FROM (SELECT percentile_disc(q) WITHIN GROUP (ORDER BY computed_at) AS c,
               percentile_disc(q) WITHIN GROUP (ORDER BY available_at) AS a
             FROM signals, unnest(ARRAY[0, 0.5, 1]) AS q GROUP BY q ORDER BY q) x`,
    );
    assert.ok(spread);
    windows = spread.computed.flatMap((since) =>
      [...spread.available, '1990-01-01T00:00:00Z'].map((availableTo) => ({ since, availableTo })),
    );
  });
  after(async () => {
    WINDOW.walk = 10_000;
    await db.close();
  });

  const filter = firstEngineFilter;

  /** The filter's signals in the list's order, as a plain query lists them. */
  async function expected(f: SignalFilter): Promise<string[]> {
    const rows = await db.query<{ id: string }>(
      `SELECT s.id FROM signals s WHERE s.engine_name = $1 AND s.engine_version = $2
         AND s.computed_at >= $3::timestamptz AND s.available_at <= $4::timestamptz
         AND ($5::int IS NULL OR s.signal_score >= $5) AND ($6::text IS NULL OR s.ticker = $6)
         AND ($7::timestamptz IS NULL OR s.available_at >= $7)
       ORDER BY s.signal_score DESC, s.computed_at DESC, s.id`,
      [
        f.engine,
        f.engineVersion,
        f.since,
        f.availableTo,
        f.minScore ?? null,
        f.ticker ?? null,
        f.availableFrom ?? null,
      ],
    );
    return rows.map((r) => r.id);
  }

  test("a caller's widest window reads only the months the engine's signals are available in", async () => {
    WINDOW.walk = 30;
    const [last] = await db.query<{ since: string; months: number }>(
      `SELECT to_char(max(computed_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS since,
         count(DISTINCT date_trunc('month', available_at AT TIME ZONE 'UTC'))::int AS months
       FROM signals WHERE engine_name = $1 AND engine_version = $2`,
      [filter({}).engine, filter({}).engineVersion],
    );
    assert.ok(last);
    const f = filter({
      since: last.since,
      availableFrom: '0001-01-01T00:00:00Z',
      availableTo: '9999-12-31T23:59:59Z',
    });
    assert.deepEqual(ids((await signalsJson(db, f)).json), (await expected(f)).slice(0, 20));
    const sent: { text: string; params: readonly unknown[] | undefined }[] = [];
    const recorder = {
      query: <T>(text: string, params?: readonly unknown[]) => {
        sent.push({ text, params });
        return db.query<T>(text, params);
      },
    };
    await signalsJson(recorder, f);
    const [statement] = sent;
    assert.ok(statement);
    const plan = (
      await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ANALYZE ${statement.text}`, statement.params)
    )
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    const series = /Function Scan on generate_series[^\n]*actual time=[\d.]+\.\.[\d.]+ rows=(\d+)/.exec(plan);
    assert.ok(series, plan);
    // From the engine's first month of availability to its last: no more months than that span holds.
    const [span] = await db.query<{ months: number }>(
      `SELECT (12 * (extract(year FROM age(max(m), min(m)))) + extract(month FROM age(max(m), min(m))) + 1)::int AS months
       FROM (SELECT date_trunc('month', available_at AT TIME ZONE 'UTC') AS m FROM signals
             WHERE engine_name = $1 AND engine_version = $2 AND available_at IS NOT NULL) x`,
      [f.engine, f.engineVersion],
    );
    assert.ok(
      span && Number(series[1]) <= span.months,
      `${series[1]} months read, the signals span ${span?.months}`,
    );
  });

  for (const walk of [10_000, 30]) {
    test(`equals the plain query's pages and cursor pages (the walk looks at ${walk} signals)`, async () => {
      WINDOW.walk = walk;
      let nonEmpty = 0;
      for (const window of windows) {
        for (const extra of [
          {},
          { ticker: 'LMT' },
          { minScore: 40, availableFrom: '2015-01-01T00:00:00Z' },
        ]) {
          const f = filter({ ...window, ...extra });
          const label = `${JSON.stringify({ ...window, ...extra })} walk ${walk}`;
          const all = await expected(f);
          if (all.length > 0) nonEmpty += 1;
          assert.deepEqual(ids((await signalsJson(db, f)).json), all.slice(0, 20), label);
          assert.deepEqual(ids((await signalsJson(db, { ...f, offset: 7 })).json), all.slice(7, 27), label);
          // An offset beyond the walk: the list's walk as before.
          assert.deepEqual(ids((await signalsJson(db, { ...f, offset: 40 })).json), all.slice(40, 60), label);
          // Page by page after each page's last position, to the end: pages of 9 over the first 270
          // (past a walk of 30 and back), then pages of 500 (the end of a long list, in a few reads).
          const paged: string[] = [];
          let position: Position | undefined;
          for (let n = 0; n <= all.length / 9 + 1; n++) {
            const limit = paged.length < 270 ? 9 : 500;
            const page = await signalsJson(db, { ...f, limit, after: position });
            paged.push(...ids(page.json));
            if (!page.next) break;
            position = page.next;
          }
          assert.deepEqual(paged, all, label);
        }
      }
      assert.ok(nonEmpty > 5, 'windows that match signals, not only empty ones');
    });
  }
});
