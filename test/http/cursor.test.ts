import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeCursor, encodeCursor, filterDigest, isKeyValue } from '../../src/http/cursor.ts';
import { ApiError } from '../../src/http/errors.ts';
import { KEYSETS } from '../../src/store/keyset.ts';

const digest = filterDigest({}, { ticker: 'LMT', limit: 50, offset: 0 });
const b64 = (text: string) => Buffer.from(text).toString('base64url');

/** The 400 a bad cursor is, with the words of its message. */
function refused(text: string, keyset = KEYSETS.events, filters = digest): string {
  try {
    decodeCursor(text, keyset, filters);
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.code, 'invalid_parameter');
    assert.match(error.message, /"cursor"/);
    return error.message;
  }
  assert.fail(`accepted ${text}`);
}

describe('cursor encoding', () => {
  test('decodes what it encodes, for each list', () => {
    const positions = {
      events: ['2024-03-01', 'CONT_AWD_X_9700_-NONE-_-NONE-'],
      signals: ['87', '2024-03-01T12:34:56.123456Z', '0190c7a2-4a4e-7000-8000-000000000001'],
      unmatched: ['-9223372036854775808', 'ÉCOLE 😀 NAME'],
    } as const;
    for (const [name, position] of Object.entries(positions)) {
      const keyset = KEYSETS[name as keyof typeof positions];
      const cursor = encodeCursor(keyset, digest, position);
      assert.match(cursor, /^[A-Za-z0-9_-]+$/, 'URL-safe as it is');
      assert.deepEqual(decodeCursor(cursor, keyset, digest), position);
    }
  });

  test('the filter digest ignores the page parameters and the order of the others', () => {
    assert.equal(
      filterDigest({}, { ticker: 'LMT', from: '2024-01-01', limit: 5, offset: 0, cursor: 'x' }),
      filterDigest({}, { from: '2024-01-01', ticker: 'LMT', limit: 200 }),
    );
    assert.notEqual(filterDigest({}, { ticker: 'LMT' }), filterDigest({}, { ticker: 'BA' }));
    assert.notEqual(filterDigest({ id: 'a' }, {}), filterDigest({ id: 'b' }, {}));
    assert.equal(filterDigest({}, { ticker: undefined }), filterDigest({}, {}));
  });

  test('refuses a cursor of another list, or of other filters', () => {
    const signals = encodeCursor(KEYSETS.signals, digest, [
      '1',
      '2024-03-01T00:00:00.000000Z',
      '0190c7a2-4a4e-7000-8000-000000000001',
    ]);
    assert.match(refused(signals), /another list/);
    const events = encodeCursor(KEYSETS.events, filterDigest({}, { ticker: 'BA' }), ['2024-03-01', 'x']);
    assert.match(refused(events), /other filters/);
  });

  test('refuses text that is no cursor: garbage, bad base64, bad JSON, huge, wrong shape', () => {
    for (const text of [
      '',
      'not a cursor!',
      '%00',
      'A',
      'AAAA',
      'x'.repeat(5000),
      b64('{"v":1}'),
      b64('null'),
      b64('[1,"events"'),
      b64(JSON.stringify([2, 'events', digest, ['2024-03-01', 'x']])),
      b64(JSON.stringify([1, 'events', digest, ['2024-03-01']])),
      b64(JSON.stringify([1, 'events', digest, ['2024-03-01', 'x', 'y']])),
      b64(JSON.stringify([1, 'events', digest, '2024-03-01'])),
      b64(JSON.stringify([1, 'events', digest, [20240301, 'x']])),
      b64(JSON.stringify([1, 'events', digest, [null, 'x']])),
      b64(JSON.stringify([1, 'events', digest, ['2024-03-01', { id: 'x' }]])),
      b64(JSON.stringify([1, 'events', digest, ['2024-02-30', 'x']])),
      b64(JSON.stringify([1, 'events', digest, ['0000-01-01', 'x']])),
      b64(JSON.stringify([1, 'events', digest, ['2024-03-01', 'x\u0000y']])),
      b64(JSON.stringify([1, 'events', digest, ['2024-03-01', '\ud800']])),
      b64(JSON.stringify([1, 'events', digest, ['2024-03-01', 'x'.repeat(600)]])),
      `${b64(JSON.stringify([1, 'events', digest, ['2024-03-01', 'x']]))}=`,
    ]) {
      refused(text);
    }
  });

  test('each key type takes only what PostgreSQL casts to it', () => {
    assert.ok(isKeyValue('int4', '2147483647') && !isKeyValue('int4', '2147483648'));
    assert.ok(isKeyValue('int8', '-9223372036854775808') && !isKeyValue('int8', '9223372036854775808'));
    assert.ok(!isKeyValue('int4', '1.5') && !isKeyValue('int4', ' 1') && !isKeyValue('int4', '1e3'));
    assert.ok(isKeyValue('timestamptz', '2024-02-29T23:59:59.999999Z'));
    for (const bad of [
      '2024-02-30T00:00:00.000000Z',
      '2024-03-01T24:00:00.000000Z',
      '2024-03-01T00:00:00Z',
    ]) {
      assert.ok(!isKeyValue('timestamptz', bad), bad);
    }
    assert.ok(isKeyValue('uuid', '0190c7a2-4a4e-7000-8000-000000000001'));
    assert.ok(!isKeyValue('uuid', '0190C7A2-4A4E-7000-8000-00000000000'));
    assert.ok(!isKeyValue('date', 1) && !isKeyValue('text', null));
  });
});
