import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES, scoresSource } from '../../src/domain/engines/index.ts';
import type { AwardRecord } from '../../src/domain/types.ts';
import { createPipelineContext, type PipelineContext } from '../../src/pipeline/context.ts';
import { ingestAwards } from '../../src/pipeline/ingest.ts';
import { copyText, type Db } from '../../src/store/db.ts';
import { timeOrderedId } from '../../src/store/ids.ts';
import { decodeRationale } from '../../src/store/rows.ts';
import { type SignalWrite, upsertContracts, upsertSignals } from '../../src/store/writes.ts';
import { lockheedAward } from '../support/awards.ts';
import { seededDb } from '../support/db.ts';

/** Engines that score USASpending awards (the announcement rule's engine scores announcements only). */
const AWARD_ENGINES = ENGINES.filter((e) => scoresSource(e, 'usaspending')).length;

describe('COPY text encoding', () => {
  test('escapes backslash, tab, newline and carriage return, drops NUL, writes null as \\N and objects as JSON', () => {
    assert.equal(
      copyText(
        [
          ['a\tb', 'line1\nline2\r', 'back\\slash', 'nul\0byte', null, undefined, 42, { k: 'x\\y' }],
          ['plain', 1.5, true],
        ],
        (row) => row,
      ),
      'a\\tb\tline1\\nline2\\r\tback\\\\slash\tnulbyte\t\\N\t\\N\t42\t{"k":"x\\\\\\\\y"}\nplain\t1.5\ttrue\n',
    );
  });

  test('finds the special characters in long texts too (they are searched differently)', () => {
    const long = 'x'.repeat(80);
    for (const [raw, escaped] of [
      ['\\', '\\\\'],
      ['\t', '\\t'],
      ['\n', '\\n'],
      ['\r', '\\r'],
      ['\0', ''],
    ]) {
      assert.equal(
        copyText([[`${long}${raw}×`, long]], (row) => row),
        `${long}${escaped}×\t${long}\n`,
      );
    }
  });
});

describe('time-ordered ids', () => {
  test('are version-7 UUIDs whose order follows their millisecond', () => {
    const ids = [
      timeOrderedId(1_700_000_000_000),
      timeOrderedId(1_700_000_000_001),
      timeOrderedId(1_800_000_000_000),
    ];
    for (const id of ids)
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(Array.from({ length: 2000 }, () => timeOrderedId(1))).size, 2000);
  });
});

describe('bulk ingest writes (COPY paths)', () => {
  let db: Db;
  let ctx: PipelineContext;
  before(async () => {
    db = await seededDb();
    ctx = await createPipelineContext(db, { signalThreshold: 75 });
  });
  after(async () => db.close());

  const award = (i: number, overrides: Partial<AwardRecord> = {}): AwardRecord =>
    lockheedAward(`BULKTEST${String(i).padStart(5, '0')}`, {
      value: 1_000_000 + i * 1000,
      description: `F-35 SUSTAINMENT LOT ${i}`,
      naics: '336411',
      psc: '1510',
      sourceModifiedAt: '2024-03-20T00:00:00Z',
      ...overrides,
    });

  test('a batch above the small-batch size round-trips text with tabs, newlines, backslashes and quotes', async () => {
    const tricky = 'LINE ONE\nLINE\tTWO \\ "QUOTED" \r END';
    const awards = Array.from({ length: 150 }, (_, i) => award(i, i === 7 ? { description: tricky } : {}));
    const counts = await ingestAwards(ctx, awards);
    assert.equal(counts.inserted, 150);
    assert.equal(counts.matched, 150);
    assert.equal(counts.signals_created, 150 * AWARD_ENGINES);
    const [row] = await db.query<{ description: string }>('SELECT description FROM contracts WHERE id = $1', [
      awards[7]?.id,
    ]);
    assert.equal(row?.description, tricky);
    const rationale = await db.query<{ rationale: string }>(
      'SELECT rationale FROM signals WHERE contract_id = $1',
      [awards[7]?.id],
    );
    assert.equal(rationale.length, AWARD_ENGINES);
    for (const r of rationale) {
      const items = decodeRationale(r.rationale);
      assert.ok(items.length > 0 && typeof items[0]?.rule === 'string');
    }
  });

  test('a re-import mixing stored, changed and new awards counts each kind once and keeps first_seen_at', async () => {
    const before = await db.query<{ id: string; first_seen_at: string }>(
      "SELECT id, first_seen_at FROM contracts WHERE id LIKE 'CONT_AWD_BULKTEST%' ORDER BY id",
    );
    const awards = Array.from({ length: 200 }, (_, i) =>
      award(i, i % 10 === 0 ? { value: 5_000_000 + i } : {}),
    );
    const counts = await ingestAwards(ctx, awards);
    assert.equal(counts.inserted, 50); // 150..199
    assert.equal(counts.updated, 16); // values of 0, 10, …, 140, and 7's description back to the plain one
    assert.equal(counts.signals_created, 50 * AWARD_ENGINES);
    const after = await db.query<{ id: string; first_seen_at: string; n: number }>(
      `SELECT c.id, c.first_seen_at, (SELECT count(*)::int FROM signals s WHERE s.contract_id = c.id) AS n
       FROM contracts c WHERE c.id LIKE 'CONT_AWD_BULKTEST%' ORDER BY c.id`,
    );
    assert.equal(after.length, 200);
    for (const row of after) assert.equal(row.n, AWARD_ENGINES);
    const firstSeen = new Map(before.map((r) => [r.id, r.first_seen_at]));
    for (const row of after.slice(0, 150)) assert.equal(row.first_seen_at, firstSeen.get(row.id));
  });

  test('rows marked fresh that were stored meanwhile fall back to the upsert instead of failing', async () => {
    const awards = Array.from({ length: 120 }, (_, i) => award(i));
    const resolved = awards.map((a) => ({
      award: a,
      ticker: 'LMT',
      classification: 'aircraft',
      matchConfidence: 1,
      matchMethod: 'alias',
      nameNorm: 'LOCKHEED MARTIN',
      identity: {
        entityId: 'lockheed_martin',
        entityName: 'Lockheed Martin Corporation',
        ownerName: 'Lockheed Martin Corporation',
        seriesTicker: 'LMT',
        basis: 'award_date',
        reason: null,
        ventureParents: null,
        resolverVersion: 'test',
      },
    }));
    // Every id is stored: the COPY would violate the primary key, so the batch is upserted (nothing changed).
    const contracts = await db.transaction((tx) => upsertContracts(tx, resolved, new Date()));
    assert.equal(contracts.filter((r) => r.inserted).length, 0);

    const engine = ENGINES[0];
    assert.ok(engine);
    const stored = await db.query<{ contract_id: string; id: string }>(
      'SELECT contract_id, id FROM signals WHERE engine_name = $1 AND engine_version = $2 AND contract_id = ANY($3::text[])',
      [engine.name, engine.version, awards.map((a) => a.id)],
    );
    const scores = { signal: 99, importance: 50, confidence: 50, risk: 50 };
    const writes: SignalWrite[] = awards.map((a) => ({
      id: timeOrderedId(),
      contractId: a.id,
      ticker: 'LMT',
      engine,
      scores,
      rationale: '[]',
      unscored: true, // wrong on purpose: these contracts were scored by the earlier test
    }));
    const written = await db.transaction((tx) => upsertSignals(tx, writes, new Date()));
    assert.equal(written.length, 120);
    assert.equal(written.filter((w) => w.inserted).length, 0);
    const ids = new Map(stored.map((r) => [r.contract_id, r.id]));
    for (const w of written) assert.equal(w.id, ids.get(w.contract_id), 'a recompute keeps the row id');
    const [{ n } = { n: -1 }] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM signals WHERE engine_name = $1 AND engine_version = $2
         AND contract_id = ANY($3::text[]) AND signal_score = 99`,
      [engine.name, engine.version, awards.map((a) => a.id)],
    );
    assert.equal(n, 120);
  });

  test('the regime of each contract is its award date regime, one stored row per date', async () => {
    const rows = await db.query<{ contract_id: string; as_of: string; dominant: string }>(
      "SELECT contract_id, as_of, dominant FROM regimes WHERE contract_id LIKE 'CONT_AWD_BULKTEST%'",
    );
    assert.equal(rows.length, 200);
    assert.equal(new Set(rows.map((r) => `${r.as_of}|${r.dominant}`)).size, 1);
    // 2024-03-15 is a Friday with candles: the regime is as of that day.
    assert.equal(rows[0]?.as_of, '2024-03-15');
    const [{ n } = { n: -1 }] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM market_regimes WHERE award_date = '2024-03-15'",
    );
    assert.equal(n, 1);
  });

  test('unmatched recipients are tallied once per new award, through the staged path of a large batch', async () => {
    // 240 awards to 120 names no alias or company matches (two awards each), one with a tab and a backslash.
    const name = (k: number) => (k === 3 ? 'ZQX\tODD \\ WORKS LLC' : `ZQXV NOWHERE ${k} FABRICATORS LLC`);
    const unmatched = (i: number) =>
      award(1000 + i, { recipientName: name(i % 120), value: 10 + i, description: 'SHOP SUPPLIES' });
    const tallied = () =>
      db.query<{ name_norm: string; sample_name: string; award_count: number; total_value: number }>(
        "SELECT * FROM unmatched_recipients WHERE name_norm LIKE 'ZQX%' ORDER BY name_norm",
      );
    const first = await ingestAwards(
      ctx,
      Array.from({ length: 240 }, (_, i) => unmatched(i)),
    );
    assert.deepEqual([first.inserted, first.unmatched], [240, 240]);
    const rows = await tallied();
    assert.equal(rows.length, 120);
    const odd = rows.find((r) => r.sample_name === name(3));
    assert.deepEqual(
      [odd?.award_count, odd?.total_value],
      [2, 10 + 3 + (10 + 123)],
      'both awards of a name, values added',
    );
    // Re-ingesting the same awards adds nothing; two new awards to one name add to its row.
    await ingestAwards(
      ctx,
      Array.from({ length: 240 }, (_, i) => unmatched(i)),
    );
    await ingestAwards(ctx, [unmatched(240), unmatched(360)]);
    const again = await tallied();
    assert.equal(again.length, 120);
    const zero = again.find((r) => r.sample_name === name(0));
    assert.deepEqual([zero?.award_count, zero?.total_value], [4, 10 + 130 + 250 + 370]);
    assert.equal(
      again.reduce((n, r) => n + r.award_count, 0),
      242,
    );
  });

  test('signals go with their contracts: deleted with them, truncated with them (triggers, not a foreign key)', async () => {
    const count = async (sql: string) =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`))[0]?.n ?? -1;
    const ids = Array.from({ length: 10 }, (_, i) => award(i).id);
    assert.equal(
      await count(`signals WHERE contract_id = ANY('{${ids.join(',')}}'::text[])`),
      10 * AWARD_ENGINES,
    );
    const before = await count('signals');
    await db.query('DELETE FROM contracts WHERE id = ANY($1::text[])', [ids]);
    assert.equal(await count('signals'), before - 10 * AWARD_ENGINES);
    assert.equal(
      await count('signals s WHERE NOT EXISTS (SELECT 1 FROM contracts c WHERE c.id = s.contract_id)'),
      0,
    );
    await db.exec('TRUNCATE contracts');
    assert.equal(await count('signals'), 0);
    // Naming both tables in one statement works too (the trigger finds signals already emptied).
    await ingestAwards(ctx, [award(1)]);
    assert.equal(await count('signals'), AWARD_ENGINES);
    await db.exec('TRUNCATE contracts, signals');
    assert.deepEqual([await count('contracts'), await count('signals')], [0, 0]);
  });
});
