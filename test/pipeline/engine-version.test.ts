import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENGINES } from '../../src/domain/engines/index.ts';
import type { Engine } from '../../src/domain/types.ts';
import { createPipelineContext } from '../../src/pipeline/context.ts';
import { type ScoredContract, scoreContracts, scoreStored } from '../../src/pipeline/score.ts';
import type { Db } from '../../src/store/db.ts';
import { seededDb } from '../support/db.ts';

let db: Db;
before(async () => {
  db = await seededDb();
});
after(async () => db.close());

interface SignalRow {
  id: string;
  contract_id: string;
  engine_version: string;
  signal_score: number;
  computed_at: string;
}

const signalsOf = (engine: string, ids: string[]) =>
  db.query<SignalRow>(
    `SELECT id, contract_id, engine_version, signal_score, computed_at FROM signals
     WHERE engine_name = $1 AND contract_id = ANY($2::text[]) ORDER BY contract_id, engine_version`,
    [engine, ids],
  );

async function someContracts(n: number): Promise<ScoredContract[]> {
  return db.query<ScoredContract>(
    `SELECT id, ticker, contract_value AS value, award_date AS "awardDate", awarding_agency AS "awardingAgency",
       nlp_classification AS classification, match_confidence AS "matchConfidence"
     FROM contracts WHERE ticker IS NOT NULL ORDER BY id LIMIT $1`,
    [n],
  );
}

test('a new engine version adds rows and leaves the old version’s rows as they were', async () => {
  const current = ENGINES[0] as Engine;
  const next: Engine = { ...current, version: '9.9.9' };
  const contracts = await someContracts(40);
  const ids = contracts.map((c) => c.id);
  const old = await signalsOf(current.name, ids);
  assert.equal(old.length, 40);

  const ctx = await createPipelineContext(db, {
    signalThreshold: 75,
    engines: [next],
    now: () => new Date('2030-01-01T00:00:00Z'),
  });
  assert.equal(await scoreContracts(ctx, contracts), 40);
  const both = await signalsOf(current.name, ids);
  assert.equal(both.length, 80);
  assert.deepEqual(
    both.filter((s) => s.engine_version === current.version),
    old,
    'old rows untouched: same ids, scores and computed_at',
  );
  const added = both.filter((s) => s.engine_version === '9.9.9');
  assert.deepEqual(
    added.map((s) => s.signal_score),
    old.map((s) => s.signal_score),
    'same rules, same numbers',
  );

  assert.equal(await scoreContracts(ctx, contracts), 0, 'scoring again creates nothing');
  assert.deepEqual(
    (await signalsOf(current.name, ids)).filter((s) => s.engine_version === '9.9.9').map((s) => s.id),
    added.map((s) => s.id),
  );
});

test('`score` scores only what the current version has not, and --all rescoring creates no rows', async () => {
  const current = ENGINES[1] as Engine;
  const next: Engine = { ...current, version: '9.9.9' };
  const ctx = await createPipelineContext(db, { signalThreshold: 75, engines: [next] });
  const [{ n: matched } = { n: 0 }] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM contracts WHERE ticker IS NOT NULL',
  );
  const first = await scoreStored(ctx, { kind: 'unscored' });
  assert.deepEqual(first, { contracts: matched, created: matched });
  assert.deepEqual(await scoreStored(ctx, { kind: 'unscored' }), { contracts: 0, created: 0 });
  assert.deepEqual(await scoreStored(ctx, { kind: 'all' }), { contracts: matched, created: 0 });
  const [{ n: rows } = { n: 0 }] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM signals WHERE engine_name = $1',
    [current.name],
  );
  assert.equal(rows, 2 * matched, 'version 1 and version 9.9.9, one row each per contract');
});
