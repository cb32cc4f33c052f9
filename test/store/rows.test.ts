import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RationaleItem } from '../../src/domain/types.ts';
import { decodeRationale, encodeRationale, widenRationales } from '../../src/store/rows.ts';

const item = (rule: string, value: number, detail: string): RationaleItem => ({
  rule,
  weight: 10,
  value,
  contribution: 10 * value,
  detail,
});

test('a rationale is stored as one JSON array per rule and read back as the same objects', () => {
  const rows = [item('award_size', 0.2388, 'award value $3,953,429'), item('agency', 1, 'quote " back\\ ×')];
  const stored = encodeRationale(rows);
  assert.equal(
    stored,
    JSON.stringify(rows.map((r) => [r.rule, r.weight, r.value, r.contribution, r.detail])),
  );
  assert.deepEqual(decodeRationale(stored), rows);
});

test('rows shared with the rationale encoded before are reused only where they are the same rows', () => {
  const a = item('a', 0.1, 'first');
  const b = item('b', 0.2, 'second');
  const c = item('c', 0.3, 'third');
  const plain = (rows: RationaleItem[]) =>
    JSON.stringify(rows.map((r) => [r.rule, r.weight, r.value, r.contribution, r.detail]));
  // A longer rationale starting with the last one's rows, then others at the same positions.
  for (const rows of [[a, b], [a, b, c], [c, a], [item('a', 0.1, 'first'), b], [], [b]]) {
    assert.equal(encodeRationale(rows), plain(rows));
  }
});

test('the rows after a shared prefix are reused only when every one of them is the same row', () => {
  const plain = (rows: RationaleItem[]) =>
    JSON.stringify(rows.map((r) => [r.rule, r.weight, r.value, r.contribution, r.detail]));
  const [a, b, c, d, e, f, g, x] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'x'].map((name, i) =>
    item(name, i / 10, `row ${name}`),
  ) as RationaleItem[] & { length: 8 };
  // Each pair: a rationale, then one extending it; the extensions share or almost share their rest.
  for (const [base, extended] of [
    [
      [a, b],
      [a, b, c, d],
    ],
    [
      [e, f],
      [e, f, c, d],
    ],
    [
      [e, f],
      [e, f, c, x],
    ],
    [[g], [g, c]],
    [[g], [g, c, d]],
  ] as RationaleItem[][][]) {
    assert.equal(encodeRationale(base ?? []), plain(base ?? []));
    assert.equal(encodeRationale(extended ?? []), plain(extended ?? []));
  }
});

test('stored rationales in JSON text are widened to the API objects, the fields copied as stored', () => {
  const rows = [
    item('award_size', 1e-7, 'quote " back\\ ], [ "rationale":[["x"]] ×'),
    item('big', 1e21, ''),
    item('a\\', 0, '\\'),
  ];
  const stored = encodeRationale(rows);
  const text = `{"data":[{"signal":{"id":"1","rationale":${stored}}},{"signal":{"id":"2","rationale":[]}},{"d":"\\"rationale\\":[1]"}]}`;
  const widened = widenRationales(text);
  assert.equal(
    widened,
    JSON.stringify(
      JSON.parse(text, (key, value) =>
        key === 'rationale' ? decodeRationale(JSON.stringify(value)) : value,
      ),
    ),
  );
  assert.deepEqual(JSON.parse(widened).data[0].signal.rationale, rows);
  assert.equal(widenRationales('{"data":[]}'), '{"data":[]}');
});

test('rationales migration 009 rewrote from jsonb (a space after each comma) are widened too', () => {
  const legacy =
    '[["agency", 10, 1, 10, "Department of Defense (defense)"], ["rule, \\"two\\"", 5, 0.5, 2.5, "x"]]';
  const widened = widenRationales(`{"rationale":${legacy}}`);
  assert.deepEqual(JSON.parse(widened).rationale, decodeRationale(legacy));
});

test('a rationale that is not rows of five fields is refused, not written half-converted', () => {
  for (const stored of [
    '[["a",1,2,3]]',
    '[["a",1,2,3,"d",6]]',
    '[["a",[1],2,3,"d"]]',
    '{}',
    '[["a",1,2,3,"d"]',
    '[["a",1,2,3,"d]]',
  ]) {
    assert.throws(() => widenRationales(`{"rationale":${stored}}`), /stored rationale malformed/, stored);
  }
});
