import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BULK_COLUMNS, textValue } from '../../src/sources/awards.ts';
import { toCsv } from '../../src/sources/csv.ts';
import { cli } from '../support/cli.ts';
import { FakeUsaspending, recordedBulkRecords, syntheticResults } from '../support/fake-usaspending.ts';

describe('ingest, score and unmatched commands (embedded mode)', () => {
  let dir: string;
  let env: Record<string, string>;
  let server: FakeUsaspending;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mi-cli-ingest-'));
    // As root, PostgreSQL runs as its own user, which must pass through to DATA_DIR inside.
    await chmod(dir, 0o711);
    server = await FakeUsaspending.start(syntheticResults(150, 'C'));
    env = { DATA_DIR: path.join(dir, 'data'), USASPENDING_BASE_URL: server.url };
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('ingest usaspending --file reports bad lines and a summary; unmatched lists the recipients', async () => {
    const records = recordedBulkRecords().slice(0, 3);
    const rows = records.map((r) => BULK_COLUMNS.map((c) => textValue(r[c]) ?? ''));
    const broken = [...rows.slice(0, 2), rows[2]?.map((v, i) => (i === 0 ? 'AWD_123' : v)) ?? []];
    const file = path.join(dir, 'awards.csv');
    await writeFile(file, toCsv(BULK_COLUMNS, broken));
    const run = await cli(['ingest', 'usaspending', '--file', file], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /rejected line 4: contract_award_unique_key is not a CONT_AWD_ award id/);
    assert.match(
      run.stderr.trim().split('\n').at(-1) ?? '',
      /^ingest: .*\(csv\): 3 received, 2 new, 0 updated/,
    );

    const listed = await cli(['unmatched', '--limit', '5', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const report = JSON.parse(listed.stdout) as { sample_name: string; total_value: number }[];
    assert.equal(report.length, 2, 'an empty database knows no companies: both recipients are unmatched');
    assert.ok((report[0]?.total_value ?? 0) >= (report[1]?.total_value ?? 0));
  });

  test('ingest usaspending --from/--to pages the API; a failed run exits 1 and the rerun resumes', async () => {
    server.failAlways(2, { kind: 'status', status: 400 });
    const failed = await cli(['ingest', 'usaspending', '--from', '2024-01-01', '--to', '2024-01-31'], env);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /answered 400.*page 2.*rerun the same command to resume/);

    server.heal();
    server.requests.length = 0;
    const resumed = await cli(['ingest', 'usaspending', '--from', '2024-01-01', '--to', '2024-01-31'], env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(server.pagesRequested(), [2]);
    assert.match(resumed.stderr, /resuming .* at page 2/);
    assert.match(resumed.stderr, /1 page, 50 received, 50 new/);

    const scored = await cli(['score'], env);
    assert.equal(scored.code, 0, scored.stderr);
    assert.match(scored.stderr, /^score: \d+ contract scorings \(materiality .*\), \d+ signals created$/m);
  });

  test('ingest candles stores the good rows and reports the bad ones with their line', async () => {
    const file = path.join(dir, 'candles.csv');
    await writeFile(
      file,
      'date,open,high,low,close,volume\n2024-01-02,1,2,0.5,1.5,10\n2024-01-03,1,x,1,1,1\n',
    );
    const run = await cli(['ingest', 'candles', '--file', file, '--ticker', 'ltst'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /rejected line 3: high is not a number/);
    assert.match(run.stderr, /candles: 1 bars stored for LTST, 1 rejected/);
  });

  test('bad arguments exit 2 with a message naming the problem', async () => {
    const cases: [string[], RegExp][] = [
      [['ingest', 'usaspending'], /--file F, or --from YYYY-MM-DD --to YYYY-MM-DD/],
      [
        ['ingest', 'usaspending', '--file', 'a.csv', '--from', '2024-01-01', '--to', '2024-01-02'],
        /--file F, or/,
      ],
      [
        ['ingest', 'usaspending', '--from', '2024-02-30', '--to', '2024-03-01'],
        /invalid --from: expected a date/,
      ],
      [
        ['ingest', 'usaspending', '--from', '2024-03-02', '--to', '2024-03-01'],
        /invalid --from: .* after --to/,
      ],
      [
        ['ingest', 'usaspending', '--from', '2005-01-01', '--to', '2005-02-01'],
        /start at 2007-10-01; use --file/,
      ],
      [
        ['ingest', 'usaspending', '--file', path.join(dir, 'missing.csv')],
        /invalid --file: .* not a readable file/,
      ],
      [['ingest', 'candles', '--file', 'x.csv'], /needs --file F and --ticker T/],
      [['score', '--engine', 'nope'], /unknown engine "nope"; known engines: materiality, regime-aware/],
      [['unmatched', '--limit', '0'], /invalid --limit/],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(args, env)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i] ?? [[], /$^/];
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message, args.join(' '));
    });
  });

  test('while another process holds the data directory and its server is not up, ingest stops at once and says why', async () => {
    const lockDir = path.join(dir, 'busy');
    await mkdir(lockDir, { recursive: true });
    // This test process is alive, so its pid in the lock file is a live owner.
    await writeFile(path.join(lockDir, 'market-intel.lock'), String(process.pid));
    const file = path.join(dir, 'awards.csv');
    const run = await cli(['ingest', 'usaspending', '--file', file], {
      ...env,
      DATA_DIR: path.join(dir, 'busy'),
    });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /is run by another market-intel server \(pid \d+\): stop that server first/);
  });
});
