import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { scoresSource } from '../../src/domain/engines/index.ts';
import { addDays } from '../../src/domain/trailing.ts';
import { createPipelineContext, type PipelineContext } from '../../src/pipeline/context.ts';
import { FileFormatError, importAwardFile, importCandleFile } from '../../src/pipeline/import.ts';
import { BULK_COLUMNS, textValue } from '../../src/sources/awards.ts';
import { toCsv } from '../../src/sources/csv.ts';
import type { Db } from '../../src/store/db.ts';
import { resolvesOnItsDate } from '../support/awards.ts';
import { seededDb } from '../support/db.ts';
import { recordedBulkRecords } from '../support/fake-usaspending.ts';

let db: Db;
let ctx: PipelineContext;
let dir: string;
/** Real awards of listed companies (most resolve), removed from the seeded copy so they import anew. */
let records: Record<string, unknown>[];

before(async () => {
  db = await seededDb();
  ctx = await createPipelineContext(db, { signalThreshold: 75 });
  dir = await mkdtemp(path.join(tmpdir(), 'mi-import-'));
  records = recordedBulkRecords()
    .filter((r) => resolvesOnItsDate(ctx, r))
    .slice(0, 30);
  assert.equal(records.length, 30);
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

const ids = () => records.map((r) => String(r.contract_award_unique_key));

async function forget(): Promise<void> {
  await db.query('DELETE FROM contracts WHERE id = ANY($1::text[])', [ids()]);
}

function csvOf(rows: Record<string, unknown>[]): string {
  return toCsv(
    BULK_COLUMNS,
    rows.map((r) => BULK_COLUMNS.map((c) => textValue(r[c]) ?? '')),
  );
}

async function file(name: string, content: string | Buffer): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, content);
  return target;
}

async function signalScores(contractIds: string[]): Promise<string[]> {
  const rows = await db.query<{ k: string }>(
    `SELECT contract_id || ' ' || engine_name || ' ' || signal_score || ' ' || importance_score AS k
     FROM signals WHERE contract_id = ANY($1::text[]) ORDER BY 1`,
    [contractIds],
  );
  return rows.map((r) => r.k);
}

describe('award files', () => {
  test('a bulk CSV: bad rows are reported with their line and skipped, the rest imported', async () => {
    await forget();
    const good = csvOf(records).trimEnd().split('\n');
    const [header, first, ...rest] = good;
    const broken = [
      header,
      first,
      // line 3: a description spanning two physical lines, still valid
      csvOf([{ ...records[1], prime_award_base_transaction_description: 'LINE ONE\nLINE TWO' }])
        .split('\n')
        .slice(1, 3)
        .join('\n'),
      'CONT_AWD_BAD,x', // line 5: wrong field count
      csvOf([{ ...records[2], award_base_action_date: '2024-02-30' }]).split('\n')[1], // line 6
      csvOf([{ ...records[3], recipient_name: '' }]).split('\n')[1], // line 7
      ...rest.slice(3),
    ];
    const result = await importAwardFile(ctx, await file('awards.csv', `${broken.join('\n')}\n`));
    assert.equal(result.format, 'csv');
    assert.deepEqual(
      result.rejected.map((r) => ('line' in r ? r.line : -1)),
      [5, 6, 7],
    );
    assert.match(
      JSON.stringify(result.rejected),
      /expected 15 fields, found 2.*not a valid date.*recipient_name is missing/,
    );
    // 28 good rows (records 0, 1 and 4–29) and 3 bad ones.
    assert.equal(result.received, 31);
    assert.equal(result.inserted, 28);
    assert.equal(result.matched, 28);
    assert.equal(
      result.signals_created,
      28 * ctx.engines.filter((e) => scoresSource(e, 'usaspending')).length,
    );
  });

  test('gzip is recognised by its bytes; a re-import changes nothing', async () => {
    await forget();
    const csv = csvOf(records);
    const zipped = await importAwardFile(ctx, await file('awards.csv.gz', gzipSync(csv)));
    assert.deepEqual([zipped.inserted, zipped.rejectedTotal], [30, 0]);
    const again = await importAwardFile(ctx, await file('awards-again', gzipSync(csv)));
    assert.equal(again.format, 'csv');
    assert.deepEqual([again.received, again.inserted, again.updated, again.signals_created], [30, 0, 0, 0]);
  });

  test('a JSON array: bad records are reported with their index', async () => {
    await forget();
    const items: unknown[] = [
      ...records.slice(0, 10),
      'not a record',
      { ...records[10], total_obligated_amount: 'n/a', current_total_value_of_award: null },
    ];
    const result = await importAwardFile(ctx, await file('awards.json', JSON.stringify(items)));
    assert.equal(result.format, 'json');
    assert.deepEqual(result.rejected, [
      { index: 10, message: 'record is not an object' },
      { index: 11, message: "total_obligated_amount is not a finite number: 'n/a'" },
    ]);
    assert.equal(result.inserted, 10);
  });

  test('a file imported in chunks scores exactly like one run: scoring follows the last chunk', async () => {
    // One company's awards a month apart, newest first: an early chunk cannot see the older awards
    // its trailing statistics need until a later chunk stores them.
    const base = records.find((r) => String(r.recipient_name).startsWith('ABBOTT')) ?? {};
    const monthly = Array.from({ length: 8 }, (_, i) => ({
      ...base,
      contract_award_unique_key: String(base.contract_award_unique_key).replace(
        /^CONT_AWD_([^_]+)_/,
        `CONT_AWD_$1M${i}_`,
      ),
      award_base_action_date: addDays('2019-12-01', -30 * i),
      current_total_value_of_award: 1_000_000 * (i + 1),
    }));
    const monthlyIds = monthly.map((r) => r.contract_award_unique_key);
    const csv = await file('chunked.csv', csvOf(monthly));
    const oneRun = await importAwardFile(ctx, csv);
    assert.equal(oneRun.scored, 8);
    const expected = await signalScores(monthlyIds);
    await db.query('DELETE FROM contracts WHERE id = ANY($1::text[])', [monthlyIds]);
    const chunked = await importAwardFile(ctx, csv, { chunkSize: 2 });
    assert.equal(chunked.inserted, 8);
    assert.equal(chunked.scored, 8);
    assert.deepEqual(await signalScores(monthlyIds), expected);
  });

  test('rerunning an import that stopped before scoring scores what it left', async () => {
    await forget();
    const csv = await file('interrupted.csv', csvOf(records.slice(0, 6)));
    const stored = await importAwardFile(ctx, csv);
    await db.query('DELETE FROM signals WHERE contract_id = ANY($1::text[])', [ids()]);
    const rerun = await importAwardFile(ctx, csv);
    assert.deepEqual([stored.inserted, rerun.inserted, rerun.updated], [6, 0, 0]);
    assert.equal(rerun.signals_created, 6 * ctx.engines.filter((e) => scoresSource(e, 'usaspending')).length);
  });

  test('a file that is not an award file stops before importing anything', async () => {
    await assert.rejects(
      importAwardFile(ctx, await file('other.csv', 'date,open\n2024-01-02,1\n')),
      (error: unknown) =>
        error instanceof FileFormatError && /header lacks contract_award_unique_key/.test(error.message),
    );
    await assert.rejects(importAwardFile(ctx, await file('bad.json', '[{"a":')), FileFormatError);
    await assert.rejects(importAwardFile(ctx, await file('obj.json', '{"awards":1}')), /expected an array/);
  });

  test('an unterminated quote is reported at its line and ends the file', async () => {
    await forget();
    const [header, ...rows] = csvOf(records.slice(0, 3)).trimEnd().split('\n');
    const text = [header, rows[0], rows[1], `"${rows[2]}`].join('\n');
    const result = await importAwardFile(ctx, await file('open-quote.csv', text));
    assert.deepEqual(result.rejected, [
      { line: 4, message: 'unterminated quoted field; the rest of the file is skipped' },
    ]);
    assert.equal(result.inserted, 2);
  });
});

describe('candle files', () => {
  test('bad rows are reported with their line; the rest is stored for the ticker', async () => {
    const csv = [
      'date,open,high,low,close,adj_close,volume',
      '2024-01-02,10,11,9,10.5,10.4,1000',
      '2024-01-03,10.5,11.5,10,11,10.9,1200',
      '2024-01-04,abc,11,9,10,10,100',
      '2024-02-30,10,11,9,10,10,100',
      '2024-01-05,11,10,12,11,11,100',
      '2024-01-08,11,12,10.5,11.5,11.4,900',
    ].join('\n');
    const result = await importCandleFile(db, await file('zz.csv', csv), 'zzq');
    assert.equal(result.ticker, 'ZZQ');
    assert.equal(result.imported, 3);
    assert.deepEqual(
      result.rejected.map((r) => r.line),
      [4, 5, 6],
    );
    const rows = await db.query<{ date: string; adj_close: number }>(
      "SELECT date, adj_close FROM candles WHERE ticker = 'ZZQ' ORDER BY date",
    );
    assert.deepEqual(
      rows.map((r) => [r.date, r.adj_close]),
      [
        ['2024-01-02', 10.4],
        ['2024-01-03', 10.9],
        ['2024-01-08', 11.4],
      ],
    );
  });

  test('a file without the candle columns is refused', async () => {
    await assert.rejects(importCandleFile(db, await file('x.csv', 'a,b\n1,2\n'), 'ZZQ'), FileFormatError);
  });
});
