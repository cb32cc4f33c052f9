/**
 * The announcement rule served as an engine (`announcement-size`, `ann-size-1`): after an ingest of
 * fifteen months of the shipped announcements, every announcement event's signal is exactly the
 * quartile the evaluated study puts it in (evaluate --source announcements' own path), and nothing else
 * is scored by it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QUARTILE_SCORES } from '../../src/domain/engines/announcement-size.ts';
import { getEngine } from '../../src/domain/engines/index.ts';
import { evaluateAnnouncements, SCORE_GROUPING } from '../../src/evaluation/announcement-evaluation.ts';
import { ANNOUNCEMENT_SCORE_VERSION } from '../../src/evaluation/announcement-score.ts';
import type { App } from '../../src/http/types.ts';
import { ingestAnnouncements } from '../../src/pipeline/announcements.ts';
import { createPipelineContext } from '../../src/pipeline/context.ts';
import { DEMO_DATA_DIR } from '../../src/pipeline/seed.ts';
import { loadDemoAnnouncements } from '../../src/sources/announcements.ts';
import { loadStudyCloses } from '../../src/sources/closes.ts';
import type { Db } from '../../src/store/db.ts';
import { announcementCoverage, announcementEvents } from '../../src/store/evaluation.ts';
import { closeApp, getJson, type Injector, keyedClient, testApp } from '../support/app.ts';
import { seededDb } from '../support/db.ts';

const UNTIL = '2015-10-31';
let db: Db;
let app: App;
let client: Injector;
before(async () => {
  db = await seededDb();
  const { paragraphs } = await loadDemoAnnouncements(DEMO_DATA_DIR, '2014-08-01');
  const ctx = await createPipelineContext(db, { signalThreshold: 75 });
  await ingestAnnouncements(
    ctx,
    paragraphs.filter((p) => p.date <= UNTIL),
  );
  app = await testApp(db);
  client = await keyedClient(app, db);
});
after(() => closeApp(app, db));

interface Row {
  contract_id: string;
  signal_score: number;
  engine_version: string;
}

describe('announcement-size engine', () => {
  test('its version is the evaluated rule’s', () => {
    assert.equal(getEngine('announcement-size')?.version, ANNOUNCEMENT_SCORE_VERSION);
  });

  test('every score is the quartile the evaluated study puts the event in; unscored events get none', async () => {
    const signals = await db.query<Row>(
      `SELECT contract_id, signal_score, engine_version FROM signals WHERE engine_name = 'announcement-size'`,
    );
    const byId = new Map(signals.map((s) => [s.contract_id, s.signal_score]));
    const coverage = await announcementCoverage(db);
    assert.equal(coverage.first, '2014-08-01');
    const evaluation = evaluateAnnouncements(
      await announcementEvents(db, UNTIL),
      coverage.first ?? '',
      await loadStudyCloses(),
      { from: '2014-08-01', to: UNTIL },
    );
    const quartiles = evaluation.result.groupings.find((g) => g.name === SCORE_GROUPING);
    assert.ok(quartiles);
    let scored = 0;
    for (const [id, s] of evaluation.scores) {
      if (s.score === null) {
        assert.equal(byId.get(id), undefined, `${id} has no score under the rule`);
        continue;
      }
      const label = quartiles.groupOf({
        id,
        ticker: '',
        date: '',
        kind: '',
        score: s.score,
        relativeSize: null,
      });
      assert.equal(byId.get(id), QUARTILE_SCORES[['Q1', 'Q2', 'Q3', 'Q4'].indexOf(label ?? '')], id);
      scored++;
    }
    assert.ok(scored > 200, `${scored} events scored`);
    // Nothing else: no award, no event the study leaves out of its scores (recipients not yet owned).
    assert.equal(signals.length, scored);
    assert.ok(
      signals.every((s) => s.contract_id.startsWith('DOD_ANN_') && s.engine_version === 'ann-size-1'),
    );
    const scoresSeen = new Set(signals.map((s) => s.signal_score));
    assert.deepEqual([...scoresSeen].sort(), ['20', '50', '70', '90'].map(Number).sort());
  });

  test('served by /signals?engine=announcement-size to a developer key, Q4 first', async () => {
    const { status, body } = await getJson<{
      data: { signal: { engine_name: string; signal_score: number }; contract: { id: string } }[];
    }>(client, '/api/v1/signals?engine=announcement-size&limit=5');
    assert.equal(status, 200);
    assert.ok(body.data.length === 5);
    assert.ok(
      body.data.every((d) => d.signal.engine_name === 'announcement-size' && d.signal.signal_score === 90),
    );
  });

  test('POST /contracts/{id}/score: an award is not this engine’s (404, no signal); an announcement event is', async () => {
    const [award] = await db.query<{ id: string }>(
      `SELECT id FROM contracts WHERE source = 'usaspending' AND ticker IS NOT NULL LIMIT 1`,
    );
    const refused = await client.inject({
      method: 'POST',
      url: `/api/v1/contracts/${award?.id}/score?engine=announcement-size`,
    });
    assert.equal(refused.statusCode, 404);
    assert.match(refused.body, /announcement-size/);
    const [event] = await db.query<{ contract_id: string; signal_score: number }>(
      `SELECT contract_id, signal_score FROM signals WHERE engine_name = 'announcement-size' LIMIT 1`,
    );
    const again = await client.inject({
      method: 'POST',
      url: `/api/v1/contracts/${event?.contract_id}/score?engine=announcement-size`,
    });
    assert.equal(again.statusCode, 200);
    assert.equal(
      (again.json() as { signal: { signal_score: number } }).signal.signal_score,
      event?.signal_score,
    );
  });
});
