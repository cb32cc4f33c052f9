/**
 * The announcement rules served as engines (`announcement-size`, `ann-size-1`; `announcement-dv`,
 * `ann-dv-1`): after an ingest of fifteen months of the shipped announcements, every announcement
 * event's signal is exactly the quartile the evaluated study puts it in (evaluate --source
 * announcements' own path), and nothing else is scored by them. And the demo's multiple-award ceiling
 * of 2019-01-22 is a licence in every engine, not a $663.2 M award to each holder.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QUARTILE_SCORES } from '../../src/domain/engines/announcement-size.ts';
import { getEngine } from '../../src/domain/engines/index.ts';
import { DV_SCORE_VERSION, dollarVolumeRule } from '../../src/evaluation/announcement-dv.ts';
import { evaluateAnnouncements, SCORE_GROUPING } from '../../src/evaluation/announcement-evaluation.ts';
import { ANNOUNCEMENT_SCORE_VERSION } from '../../src/evaluation/announcement-score.ts';
import type { App } from '../../src/http/types.ts';
import { ingestAnnouncements } from '../../src/pipeline/announcements.ts';
import { createPipelineContext } from '../../src/pipeline/context.ts';
import { DEMO_DATA_DIR } from '../../src/pipeline/seed.ts';
import { loadDemoAnnouncements } from '../../src/sources/announcements.ts';
import { loadStudyCloses } from '../../src/sources/closes.ts';
import { loadDollarVolume } from '../../src/sources/dollar-volume.ts';
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

/** Every signal of `engine` up to UNTIL is the quartile the study of its rule puts the event in; nothing else. */
async function assertEngineIsRule(engine: string, version: string, dv: boolean): Promise<void> {
  const signals = await db.query<Row>(
    `SELECT s.contract_id, s.signal_score, s.engine_version FROM signals s JOIN contracts c ON c.id = s.contract_id
     WHERE s.engine_name = $1 AND c.award_date <= $2::date`,
    [engine, UNTIL],
  );
  const byId = new Map(signals.map((s) => [s.contract_id, s.signal_score]));
  const coverage = await announcementCoverage(db);
  assert.equal(coverage.first, '2014-08-01');
  const events = await announcementEvents(db, UNTIL);
  const period = { from: '2014-08-01', to: UNTIL };
  const closes = await loadStudyCloses();
  const evaluation = dv
    ? evaluateAnnouncements(
        events,
        coverage.first ?? '',
        closes,
        period,
        dollarVolumeRule(await loadDollarVolume()),
      )
    : evaluateAnnouncements(events, coverage.first ?? '', closes, period);
  assert.equal(evaluation.version, version);
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
  assert.ok(signals.every((s) => s.contract_id.startsWith('DOD_ANN_') && s.engine_version === version));
  const scoresSeen = new Set(signals.map((s) => s.signal_score));
  assert.deepEqual([...scoresSeen].sort(), ['20', '50', '70', '90'].map(Number).sort());
}

describe('announcement-size engine', () => {
  test('its version is the evaluated rule’s', () => {
    assert.equal(getEngine('announcement-size')?.version, ANNOUNCEMENT_SCORE_VERSION);
  });

  test('every score is the quartile the evaluated study puts the event in; unscored events get none', async () => {
    await assertEngineIsRule('announcement-size', ANNOUNCEMENT_SCORE_VERSION, false);
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

describe('announcement-dv engine', () => {
  test('its version is the evaluated rule’s, served to a developer key', () => {
    assert.equal(getEngine('announcement-dv')?.version, DV_SCORE_VERSION);
    assert.equal(getEngine('announcement-dv')?.tier, 'developer');
  });

  test('every score is the quartile the evaluated ann-dv-1 study puts the event in; unscored events get none', async () => {
    await assertEngineIsRule('announcement-dv', DV_SCORE_VERSION, true);
  });

  test('its rationale names the awarded value and the dollar volume', async () => {
    const { status, body } = await getJson<{
      data: { signal: { engine_name: string; rationale: { rule: string; detail: string }[] } }[];
    }>(client, '/api/v1/signals?engine=announcement-dv&limit=1');
    assert.equal(status, 200);
    const row = body.data[0]?.signal.rationale[0];
    assert.equal(row?.rule, 'page_awarded_over_dollar_volume');
    assert.match(
      row?.detail ?? '',
      /^Q[1-4]: the company's awarded value on the page, \$\d+, .* days of trading$/,
    );
  });
});

describe('a shared ceiling is a licence in every engine', () => {
  // 2019-01-22, NAVY 1: CMMARS, nineteen holders of a $12.6 G aggregate ceiling, nothing obligated at award.
  const CMMARS = 'DOD_ANN_2019-01-22_0001_%';

  test('each holder’s event is the money obligated at award (none), not a $663.2 M share', async () => {
    const rows = await db.query<{ contract_value: number }>(
      `SELECT contract_value FROM contracts WHERE id LIKE $1`,
      [CMMARS],
    );
    assert.equal(rows.length, 19);
    assert.ok(rows.every((r) => Number(r.contract_value) === 0));
  });

  test('the Signals page no longer ranks them first: materiality scores them below the top', async () => {
    const [top] = await db.query<{ contract_id: string; signal_score: number }>(
      `SELECT contract_id, signal_score FROM signals WHERE engine_name = 'materiality'
       ORDER BY signal_score DESC, contract_id LIMIT 1`,
    );
    const cmmars = await db.query<{ signal_score: number }>(
      `SELECT signal_score FROM signals WHERE engine_name = 'materiality' AND contract_id LIKE $1`,
      [CMMARS],
    );
    assert.ok(cmmars.length > 0, 'the holders with a ticker are scored');
    assert.ok(!top?.contract_id.startsWith('DOD_ANN_2019-01-22_0001'));
    assert.ok(
      cmmars.every((s) => s.signal_score < 60),
      `materiality scores ${cmmars.map((s) => s.signal_score).join(', ')}`,
    );
    const { body } = await getJson<{ data: { contract: { id: string } }[] }>(
      client,
      '/api/v1/signals?min_score=60&available_from=2019-01-22T00:00:00Z&available_to=2019-01-23T00:00:00Z&limit=200',
    );
    assert.ok(body.data.every((d) => !d.contract.id.startsWith('DOD_ANN_2019-01-22_0001')));
  });
});
