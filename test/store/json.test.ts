import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seededRandom } from '../../bench/common.ts';
import type { Db } from '../../src/store/db.ts';
import { eventsJson } from '../../src/store/events.ts';
import { jsonNumber, jsonObject, jsonString, jsonTimestamp } from '../../src/store/json.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
before(async () => {
  db = await freshDb();
});
after(() => db.close());

/** Each value of `values` (as text, cast to `type`) written by `write`, in order. */
async function written(
  write: (sql: string) => string,
  type: string,
  values: readonly string[],
): Promise<string[]> {
  const rows = await db.query<{ json: string }>(
    `SELECT ${write(`t.v::${type}`)} AS json FROM unnest($1::text[]) WITH ORDINALITY AS t(v, n) ORDER BY t.n`,
    [values],
  );
  return rows.map((r) => r.json);
}

/** Doubles of every magnitude: random bit patterns, and random digits at each power of ten. */
function doubles(count: number): number[] {
  const { rand } = seededRandom(17);
  const out: number[] = [];
  const view = new DataView(new ArrayBuffer(8));
  while (out.length < count) {
    view.setUint32(0, Math.floor(rand() * 2 ** 32));
    view.setUint32(4, Math.floor(rand() * 2 ** 32));
    const bits = view.getFloat64(0);
    if (Number.isFinite(bits)) out.push(bits);
    const power = Math.floor(rand() * 640) - 325;
    const digits = Math.floor(rand() * 10 ** Math.floor(1 + rand() * 17));
    const decimal = (rand() < 0.5 ? -1 : 1) * Number(`${digits}e${power}`);
    if (Number.isFinite(decimal)) out.push(decimal);
  }
  return out;
}

describe('JSON written by the server is what JSON.stringify writes', () => {
  test('float8 numbers, as String(number) writes them (below 2^53; beyond, the same number)', async () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      0.1,
      0.1 + 0.2,
      12.5,
      1 / 3,
      2 ** 53,
      2 ** 53 + 2,
      1e-4,
      9.999999999999999e-5,
      1e-6,
      1e-7,
      9.99e-7,
      1.5e-5,
      1e15,
      999999999999999.9,
      1e20,
      1e21,
      9.999999999999999e20,
      123456789012345680000,
      5e-324,
      Number.MIN_VALUE,
      Number.MAX_VALUE,
      -2.5e-8,
      1e100,
      1e-100,
      4.35,
      0.000001234,
    ];
    const values = [...edges, ...doubles(4000)];
    const text = values.map((x) => (Object.is(x, -0) ? '-0' : String(x)));
    const out = await written(jsonNumber, 'float8', text);
    let beyond = 0;
    values.forEach((x, i) => {
      if (Math.abs(x) < 2 ** 53) assert.equal(out[i], JSON.stringify(x), `${text[i]}`);
      else {
        assert.equal(JSON.parse(out[i] ?? ''), x, `${text[i]}`);
        if (out[i] !== JSON.stringify(x)) beyond++;
      }
    });
    // Ties are rare: a handful of the thousands beyond 2^53.
    assert.ok(beyond < values.length / 100, `${beyond} written with a digit more`);
    assert.deepEqual(await written(jsonNumber, 'float8', ['NaN', 'Infinity', '-Infinity']), [
      'null',
      'null',
      'null',
    ]);
  });

  test('numeric and jsonb numbers: 12.50 is 12.5, digits beyond a double round as JSON.parse rounds them', async () => {
    const values = ['12.50', '1.000', '0.123456789012345678901', '1e21', '1E-7', '-0.0', '100'];
    const out = await written((sql) => jsonNumber(`${sql}::float8`), 'numeric', values);
    assert.deepEqual(
      out,
      values.map((v) => JSON.stringify(JSON.parse(v))),
    );
  });

  test('strings: every ASCII character, escapes, non-BMP characters and line separators', async () => {
    const ascii = Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1));
    const values = [
      ...ascii,
      ascii.join(''),
      '',
      'quote " backslash \\ slash /',
      'é × — 😀 \u2028 \u2029 \uffff',
      '"rationale":[["x",1,2,3,"y"]]',
    ];
    const out = await written(jsonString, 'text', values);
    assert.deepEqual(
      out,
      values.map((v) => JSON.stringify(v)),
    );
    assert.deepEqual(await written(jsonString, 'text', [null as unknown as string]), ['null']);
  });

  test('dates as YYYY-MM-DD, timestamps as toISOString: UTC, milliseconds truncated, Z', async () => {
    assert.deepEqual(await written(jsonString, 'date', ['2024-02-29', '0999-01-01', '1990-12-31']), [
      '"2024-02-29"',
      '"0999-01-01"',
      '"1990-12-31"',
    ]);
    const stamps = [
      '2024-01-02T03:04:05.123456+00:00',
      '2024-01-02T03:04:05.999999+00:00',
      '2024-01-02T03:04:05+00:00',
      '2024-01-02T03:04:05.5+05:30',
      '2024-12-31T23:30:00.0001-01:00',
      '0999-01-02T03:04:05.5+00:00',
    ];
    assert.deepEqual(
      await written(jsonTimestamp, 'timestamptz', stamps),
      stamps.map((s) => JSON.stringify(new Date(s).toISOString())),
    );
  });

  test('objects: keys in the order given, no whitespace, a NULL value is null', async () => {
    const [row] = await db.query<{ json: string }>(
      `SELECT ${jsonObject([
        ['b', jsonString("'x'::text")],
        ['a', jsonNumber('1.5::float8')],
        ['n', jsonString('NULL::text')],
      ])} AS json`,
    );
    assert.equal(row?.json, '{"b":"x","a":1.5,"n":null}');
  });
});

describe('the list queries', () => {
  test('run as prepared statements, planned for each execution', async () => {
    const page = (ticker: string, limit: number) => ({
      engine: 'materiality',
      withRationale: false,
      limit,
      offset: 0,
      ticker,
    });
    const [statements, mode] = await db.transaction(async (tx) => {
      await eventsJson(tx, page('LMT', 5));
      await eventsJson(tx, page('BA', 7));
      return Promise.all([
        tx.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements'),
        tx.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode'),
      ]);
    });
    assert.equal(statements.filter((s) => s.statement.includes('"contract":')).length, 1);
    assert.match(statements[0]?.name ?? '', /^mi_\d+$/);
    assert.equal(mode[0]?.plan_cache_mode, 'force_custom_plan');
  });
});
