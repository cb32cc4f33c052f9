import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../../src/domain/engines/index.ts';
import { linkAnnouncements } from '../../src/store/announcements.ts';
import type { Db } from '../../src/store/db.ts';
import { type SignalFilter, signalsJson } from '../../src/store/signals.ts';
import { signalWrite, upsertSignals } from '../../src/store/writes.ts';
import { seededDb } from '../support/db.ts';

// The signals list's availability filters test the signal's own copy of its contract's `available_at`
// (migration 028), so every write of a signal, and every change of a contract's `available_at`, must
// keep the two equal.

/** Signals whose available_at differs from their contract's. */
async function drifted(db: Db): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT s.contract_id AS id FROM signals s JOIN contracts c ON c.id = s.contract_id
     WHERE s.available_at IS DISTINCT FROM c.available_at`,
  );
  return rows.map((r) => r.id);
}

const engine = ENGINES[0];
const ENGINE = {
  name: engine?.name ?? '',
  version: engine?.version ?? '',
  tier: engine?.tier ?? 'developer',
};
const OUTPUT = { scores: { signal: 50, importance: 50, confidence: 50, risk: 50 }, rationale: [] };

describe("a signal carries its contract's available_at", () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
  });
  after(async () => db.close());

  test('after seeding: every signal, announcement events and linked awards among them', async () => {
    const [counts] = await db.query<{ signals: number; linked: number }>(
      `SELECT (SELECT count(*)::int FROM signals) AS signals,
         (SELECT count(*)::int FROM signals s JOIN contracts c ON c.id = s.contract_id
          WHERE c.linked_id IS NOT NULL AND c.available_at < c.first_seen_at) AS linked`,
    );
    assert.ok((counts?.signals ?? 0) > 1000);
    assert.ok((counts?.linked ?? 0) > 0, 'some signals are of awards an announcement made available earlier');
    assert.deepEqual(await drifted(db), []);
  });

  for (const [path, size] of [
    ['copied straight in', 150],
    ['upserted', 3],
  ] as const) {
    test(`a new signal ${path}`, async () => {
      const contracts = await db.query<{ id: string; ticker: string }>(
        `SELECT id, ticker FROM contracts WHERE ticker IS NOT NULL ORDER BY id LIMIT $1`,
        [size],
      );
      const ids = contracts.map((c) => c.id);
      await db.query('DELETE FROM signals WHERE contract_id = ANY($1::text[]) AND engine_name = $2', [
        ids,
        ENGINE.name,
      ]);
      const written = await db.transaction((tx) =>
        upsertSignals(
          tx,
          contracts.map((c) => signalWrite(c, ENGINE, OUTPUT, true)),
          new Date(),
        ),
      );
      assert.equal(written.filter((w) => w.inserted).length, size);
      const [stored] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM signals WHERE contract_id = ANY($1::text[]) AND engine_name = $2
           AND available_at IS NOT NULL`,
        [ids, ENGINE.name],
      );
      assert.equal(stored?.n, size);
      assert.deepEqual(await drifted(db), []);
    });
  }

  test('an award an announcement links later: its signals move with it', async () => {
    const [award] = await db.query<{ id: string; available_at: string }>(
      `SELECT c.id, c.available_at::text FROM contracts c
       WHERE c.source = 'usaspending' AND c.linked_id IS NOT NULL AND c.available_at < c.first_seen_at
         AND EXISTS (SELECT 1 FROM signals s WHERE s.contract_id = c.id)
       ORDER BY c.id LIMIT 1`,
    );
    assert.ok(award, 'a linked award with signals');
    // As it was before the announcement was stored: unlinked, available when first seen.
    await db.query(
      `UPDATE contracts SET linked_id = NULL, link_method = NULL, announced_at = NULL, available_at = first_seen_at
       WHERE id = $1`,
      [award.id],
    );
    await db.query(
      'UPDATE signals s SET available_at = c.available_at FROM contracts c WHERE c.id = s.contract_id AND c.id = $1',
      [award.id],
    );
    await db.transaction((tx) => linkAnnouncements(tx, [award.id]));
    const signals = await db.query<{ available_at: string }>(
      'SELECT available_at::text FROM signals WHERE contract_id = $1',
      [award.id],
    );
    assert.ok(signals.length > 0);
    assert.ok(signals.every((s) => s.available_at === award.available_at));
    assert.deepEqual(await drifted(db), []);
  });
});

describe('the signals list filtered by availability', () => {
  let db: Db;
  before(async () => {
    db = await seededDb();
    // The demo data's awards were all first seen when it was seeded: spread them over their award
    // dates, so that a range keeps some signals and not others.
    await db.exec(
      `UPDATE contracts SET available_at = award_date + (hashtext(id) & 1023) * interval '1 hour'`,
    );
    await db.exec(
      'UPDATE signals s SET available_at = c.available_at FROM contracts c WHERE c.id = s.contract_id',
    );
    await db.exec('ANALYZE contracts');
    await db.exec('ANALYZE signals');
  });
  after(async () => db.close());

  const filter = (extra: Partial<SignalFilter>): SignalFilter => ({
    engine: ENGINE.name,
    engineVersion: ENGINE.version,
    withRationale: false,
    limit: 30,
    offset: 0,
    ...extra,
  });
  const ids = (json: string) =>
    (JSON.parse(json) as { signal: { id: string } }[]).map((item) => item.signal.id);

  test('lists the signals whose contract was available in the range, best first', async () => {
    const [span] = await db.query<{ low: string; high: string }>(
      `SELECT percentile_disc(0.3) WITHIN GROUP (ORDER BY available_at) AS low,
         percentile_disc(0.6) WITHIN GROUP (ORDER BY available_at) AS high
       FROM contracts WHERE ticker IS NOT NULL`,
    );
    assert.ok(span && span.low < span.high);
    for (const range of [
      { availableFrom: span.low },
      { availableTo: span.high },
      { availableFrom: span.low, availableTo: span.high },
    ]) {
      const expected = await db.query<{ id: string }>(
        `SELECT s.id FROM signals s JOIN contracts c ON c.id = s.contract_id
         WHERE s.engine_name = $1 AND s.engine_version = $2
           AND ($3::timestamptz IS NULL OR c.available_at >= $3) AND ($4::timestamptz IS NULL OR c.available_at <= $4)
         ORDER BY s.signal_score DESC, s.computed_at DESC, s.id LIMIT 30`,
        [ENGINE.name, ENGINE.version, range.availableFrom ?? null, range.availableTo ?? null],
      );
      assert.equal(expected.length, 30);
      const page = await signalsJson(db, filter(range));
      assert.deepEqual(
        ids(page.json),
        expected.map((r) => r.id),
        JSON.stringify(range),
      );
    }
  });

  // Looking up each walked signal's contract cost a random heap page per signal: 0.2–3 s at 10 M.
  test("tests the range on the list index's entry, looking no contract up", async () => {
    for (const [extra, index] of [
      [{}, 'signals_ranked'],
      [{ ticker: 'LMT' }, 'signals_by_ticker'],
    ] as const) {
      const sent: { text: string; params: readonly unknown[] }[] = [];
      await signalsJson(
        {
          query: (text, params) => {
            sent.push({ text, params: params ?? [] });
            return db.query(text, params);
          },
        },
        filter({ ...extra, availableFrom: '2001-01-01T00:00:00Z', availableTo: '2019-06-30T00:00:00Z' }),
      );
      const [statement] = sent;
      assert.ok(statement);
      const plan = await db.transaction(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        await tx.query('SET LOCAL enable_bitmapscan = off');
        const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.params);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      assert.match(plan, new RegExp(`Index (Only )?Scan using ${index} on signals`));
      assert.match(plan, /Index Cond: .*available_at >= /);
      assert.match(plan, /Index Cond: .*available_at <= /);
      assert.doesNotMatch(plan, /on contracts a\b/);
    }
  });
});
