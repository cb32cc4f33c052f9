import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { DatedResolver } from '../../src/domain/dated-resolver.ts';
import { coverageOf, labelledPrecision, readLabels, whyOf } from '../../src/evaluation/identity-eval.ts';
import { loadIdentityEvaluation } from '../../src/evaluation/identity-inputs.ts';

let dated: DatedResolver;
let undated: DatedResolver;
before(async () => {
  ({ dated, undated } = await loadIdentityEvaluation());
});

const event = (name: string, date: string) => ({ name, parent: null, date, value: 1_000_000, parsed: true });

describe('identity measurements', () => {
  test('each unresolved event is put down to why', () => {
    assert.equal(whyOf(dated, event('SIKORSKY AIRCRAFT CORP', '2012-01-03')), 'resolved');
    assert.equal(whyOf(dated, event('DYNCORP INTERNATIONAL LLC', '2012-01-03')), 'private');
    assert.equal(whyOf(dated, event('BELL BOEING JOINT PROJECT OFFICE', '2012-01-03')), 'joint_venture');
    assert.equal(whyOf(dated, event('UNIVERSITY OF DAYTON RESEARCH INSTITUTE', '2012-01-03')), 'government');
    assert.equal(whyOf(dated, { ...event('', '2012-01-03'), parsed: false }), 'parse_error');
    const c = coverageOf(dated, [
      event('SIKORSKY AIRCRAFT CORP', '2012-01-03'),
      event('DYNCORP INTERNATIONAL LLC', '2012-01-03'),
    ]);
    assert.deepEqual(
      c.rows.filter((r) => r.events > 0).map((r) => [r.why, r.eventShare, r.dollarShare]),
      [
        ['resolved', 0.5, 0.5],
        ['private', 0.5, 0.5],
      ],
    );
  });

  test('the labelled events: ≥ 300, era-correct precision well above the undated resolver’s', async () => {
    const labels = await readLabels();
    assert.ok(labels.length >= 300, `${labels.length} labels`);
    const withIdentity = labelledPrecision(dated, labels);
    const withoutIdentity = labelledPrecision(undated, labels);
    assert.ok(withIdentity.precision >= 0.95, `precision ${withIdentity.precision}`);
    assert.ok(withIdentity.recall >= 0.95, `recall ${withIdentity.recall}`);
    assert.ok(withoutIdentity.precision < 0.8, `undated precision ${withoutIdentity.precision}`);
  });
});
