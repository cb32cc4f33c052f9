/**
 * The scoring service has one code path: a contract scored on its own (as `POST /contracts/{id}/score`
 * does, one engine at a time) gets exactly the signal and regime a batch gives it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENGINES } from '../../src/domain/engines/index.ts';
import { scoreContract, scoreStored } from '../../src/pipeline/score.ts';
import type { Db } from '../../src/store/db.ts';
import { seededDb } from '../support/db.ts';

let db: Db;
before(async () => {
  db = await seededDb();
});
after(async () => db.close());

const NOW = new Date('2026-01-05T12:00:00Z');
const THRESHOLD = 75;

const UNIVERSAL = ENGINES.filter((e) => e.sources === undefined);

/** A small deterministic generator, so a failing subset can be replayed from its seed. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], n: number, random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, n);
}

/** Everything a signal says, without its row id and time. */
const signalsOf = (ids: readonly string[]) =>
  db.query<{ contract_id: string; engine_name: string }>(
    `SELECT contract_id, ticker, engine_name, engine_version, engine_tier, signal_score, importance_score,
       confidence_score, risk_score, rationale::text AS rationale
     FROM signals WHERE contract_id = ANY($1::text[]) ORDER BY contract_id, engine_name, engine_version`,
    [ids],
  );

const regimesOf = (ids: readonly string[]) =>
  db.query(
    `SELECT r.award_date, r.as_of, r.benchmark, r.dominant, r.scores::text AS scores, r.features::text AS features,
       r.engine_version
     FROM market_regimes r WHERE r.award_date IN (SELECT award_date FROM contracts WHERE id = ANY($1::text[]))
     ORDER BY r.award_date`,
    [ids],
  );

async function forget(ids: readonly string[]): Promise<void> {
  await db.query('DELETE FROM signals WHERE contract_id = ANY($1::text[])', [ids]);
  await db.query(
    'DELETE FROM market_regimes WHERE award_date IN (SELECT award_date FROM contracts WHERE id = ANY($1::text[]))',
    [ids],
  );
}

async function batch(ids: readonly string[]) {
  await forget(ids);
  const ctx = { db, engines: ENGINES, signalThreshold: THRESHOLD, now: () => NOW };
  const done = await scoreStored(ctx, { kind: 'ids', ids });
  assert.equal(done.contracts, ids.length);
  return { signals: await signalsOf(ids), regimes: await regimesOf(ids) };
}

async function oneAtATime(ids: readonly string[], random: () => number) {
  await forget(ids);
  // Every engine of the event's source. The engines that score every event must score it; an
  // announcement rule's engine may not (announcement-size scores no demo event: none has a year of
  // history; announcement-dv none without dollar volume).
  const calls = ids.flatMap((id) =>
    ENGINES.filter((e) => e.sources === undefined || id.startsWith('DOD_ANN_')).map((engine) => ({
      id,
      engine,
    })),
  );
  for (const { id, engine } of pick(calls, calls.length, random)) {
    const result = await scoreContract(db, id, engine, NOW, THRESHOLD);
    if (!UNIVERSAL.includes(engine) && !result?.signal) continue;
    assert.ok(result?.signal, `${id} ${engine.name} scored`);
    assert.equal(result.created, true);
    assert.equal(result.signal?.engine_name, engine.name);
  }
  return { signals: await signalsOf(ids), regimes: await regimesOf(ids) };
}

test('one contract at a time, in any order, gives the signals and regimes of one batch', async () => {
  const matched = (
    await db.query<{ id: string }>('SELECT id FROM contracts WHERE ticker IS NOT NULL ORDER BY id')
  ).map((r) => r.id);
  assert.ok(matched.length > 100);
  for (const seed of [1, 2, 3]) {
    const random = mulberry32(seed);
    const ids = pick(matched, 25, random);
    const expected = await batch(ids);
    // Beyond the universal engines' signals, only announcement-dv's of announcement events
    // (announcement-size scores no demo event: none has a year of announcement history).
    const extra = expected.signals.filter((s) => !UNIVERSAL.some((e) => e.name === s.engine_name));
    assert.equal(expected.signals.length - extra.length, ids.length * UNIVERSAL.length);
    assert.ok(
      extra.every((s) => s.engine_name === 'announcement-dv' && s.contract_id.startsWith('DOD_ANN_')),
    );
    assert.ok(expected.regimes.length > 0, 'the demo data has benchmark candles for these dates');
    assert.deepEqual(await oneAtATime(ids, random), expected, `seed ${seed}`);
  }
});

test('a company’s awards close together (trailing statistics inside the set) score alike both ways', async () => {
  const [busiest] = await db.query<{ ticker: string; year: number }>(
    `SELECT ticker, extract(year FROM award_date)::int AS year FROM contracts WHERE ticker IS NOT NULL
     GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
  );
  assert.ok(busiest);
  const ids = (
    await db.query<{ id: string }>(
      `SELECT id FROM contracts WHERE ticker = $1 AND extract(year FROM award_date) = $2 ORDER BY id LIMIT 30`,
      [busiest.ticker, busiest.year],
    )
  ).map((r) => r.id);
  assert.ok(ids.length >= 10);
  const expected = await batch(ids);
  assert.deepEqual(await oneAtATime(ids, mulberry32(7)), expected);
});

test('an unknown or unmatched contract is not scored', async () => {
  const engine = ENGINES[0];
  assert.ok(engine);
  assert.equal(await scoreContract(db, 'CONT_AWD_NOPE', engine, NOW, THRESHOLD), null);
  const [unmatched] = await db.query<{ id: string }>('SELECT id FROM contracts WHERE ticker IS NULL LIMIT 1');
  if (unmatched) assert.equal(await scoreContract(db, unmatched.id, engine, NOW, THRESHOLD), null);
});
