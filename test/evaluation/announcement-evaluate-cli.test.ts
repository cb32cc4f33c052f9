/**
 * `evaluate --source announcements` end to end: a scratch database with the seeded companies, a
 * small announcements file ingested through the CLI, and the study priced from the shipped closes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { toCsv } from '../../src/sources/csv.ts';
import { loadDollarVolume } from '../../src/sources/dollar-volume.ts';
import { openDb } from '../../src/store/db.ts';
import { cli } from '../support/cli.ts';
import { admin, appUrl, SEED_TEMPLATE } from '../support/db.ts';

let piid = 0;
const paragraph = (awardee: string, dollars: number): string =>
  `${awardee}, is being awarded a $${dollars.toLocaleString('en-US')} firm-fixed-price contract ` +
  `(N00019-16-C-${String(++piid).padStart(4, '0')}) for spare parts. Work is expected to be completed in 2020. ` +
  'This contract was not competitively procured. The Naval Air Systems Command, Patuxent River, Maryland, is the ' +
  'contracting activity.';

const LMT = 'Lockheed Martin Corp., Rotary and Mission Systems, Owego, New York';
const GD = 'General Dynamics Land Systems Inc., Sterling Heights, Michigan';
const NOC = 'Northrop Grumman Systems Corp., Linthicum, Maryland';

/** [date, awardee, dollars]: a year of history, then the period 2016-05-01 → 2016-12-31. */
const PAGES: [string, string, number][] = [
  ['2015-06-01', LMT, 3_000_000_000],
  ['2015-06-01', GD, 1_000_000_000],
  ['2015-12-01', LMT, 2_000_000_000],
  ['2015-12-01', GD, 1_000_000_000],
  ['2015-12-01', NOC, 1_000_000_000],
  // Less than a year after the first page: no score.
  ['2016-05-16', GD, 50_000_000],
  // 30 M / LMT's 2 B of 2015-12-01 (2015-06-01 is more than 365 days before): 0.015, the third quartile.
  ['2016-06-15', LMT, 30_000_000],
  ['2016-06-15', GD, 1_000_000],
  ['2016-07-12', NOC, 400_000_000],
  ['2016-07-12', 'Raytheon Co., Tucson, Arizona', 100_000_000],
  ['2016-08-09', 'Alliant Techsystems Operations LLC, Plymouth, Minnesota', 90_000_000],
  ['2016-08-09', 'ViaSat Inc., Carlsbad, California', 20_000_000],
  // Parsons was private until its 2019 listing: the era-correct resolver leaves this one without a ticker.
  ['2016-09-13', 'Parsons Government Services Inc., Pasadena, California', 20_000_000],
  ['2016-09-13', LMT, 500_000_000],
  ['2016-10-11', GD, 2_000_000],
  ['2016-11-15', NOC, 3_000_000],
];

describe('evaluate --source announcements', () => {
  let dir: string;
  let name: string;
  let env: Record<string, string>;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mi-ann-eval-'));
    name = `market_intel_t_${process.pid}_${randomBytes(4).toString('hex')}`;
    await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${SEED_TEMPLATE}`));
    env = { DATABASE_URL: appUrl(name), DATA_DIR: path.join(dir, 'data') };
  });
  after(async () => {
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    await rm(dir, { recursive: true, force: true });
  });

  test('bad arguments exit 2 with a message', async () => {
    const cases: [string[], RegExp][] = [
      [['--from', '2016-13-01'], /invalid --from: expected a date YYYY-MM-DD, got "2016-13-01"/],
      [['--to', '2016-02-30'], /invalid --to: expected a date YYYY-MM-DD, got "2016-02-30"/],
      [['--from', '2017-01-01', '--to', '2016-12-31'], /invalid --from: 2017-01-01 is after --to 2016-12-31/],
      [['--engine', 'materiality'], /invalid --engine: not with --source announcements/],
      [['--rule', 'ann-dv-2'], /invalid --rule: expected ann-size-1 or ann-dv-1, got "ann-dv-2"/],
      [['--rule', ''], /invalid --rule: expected ann-size-1 or ann-dv-1, got ""/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(['evaluate', '--source', 'announcements', ...args], env);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    }
    const unknown = await cli(['evaluate', '--source', 'tweets'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /invalid --source: expected signals or announcements, got "tweets"/);
    const signals = await cli(['evaluate', '--from', '2016-01-01'], env);
    assert.equal(signals.code, 2);
    assert.match(signals.stderr, /invalid --from: only with --source announcements/);
    const rule = await cli(['evaluate', '--rule', 'ann-dv-1'], env);
    assert.equal(rule.code, 2);
    assert.match(rule.stderr, /invalid --rule: only with --source announcements/);
  });

  test('with no announcements stored it says what to run', async () => {
    // The demo seed brings the last months of the shipped announcements: take them out first.
    const db = await openDb({ databaseUrl: env.DATABASE_URL as string, dataDir: '' });
    try {
      await db.query(`DELETE FROM contracts WHERE id LIKE 'DOD\\_ANN\\_%'`);
      await db.query('DELETE FROM announcement_piids');
      await db.query('DELETE FROM announcements');
    } finally {
      await db.close();
    }
    const run = await cli(['evaluate', '--source', 'announcements', '--out', path.join(dir, 'none')], env);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /no announcements in the database; run `ingest announcements --file F` first/);
  });

  test('ingested announcements are scored, priced and reported', async () => {
    const file = path.join(dir, 'paragraphs.csv');
    const perDay = new Map<string, number>();
    const rows = PAGES.map(([date, awardee, dollars]) => {
      const no = (perDay.get(date) ?? 0) + 1;
      perDay.set(date, no);
      return [date, 'NAVY', String(no), paragraph(awardee, dollars)];
    });
    await writeFile(file, toCsv(['announcement_date', 'section', 'paragraph_no', 'text'], rows));
    const ingest = await cli(['ingest', 'announcements', '--file', file], env);
    assert.equal(ingest.code, 0, ingest.stderr);
    assert.match(ingest.stderr, /16 paragraphs, 16 announcing an action, 16 awardee events \(15 matched\)/);

    const out = path.join(dir, 'report');
    const run = await cli(
      ['evaluate', '--source', 'announcements', '--from', '2016-05-01', '--to', '2016-12-31', '--out', out],
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), path.join(out, 'REPORT.md'));
    const report = await readFile(path.join(out, 'REPORT.md'), 'utf8');
    assert.match(report, /^# Announcement study: ann-size-1, 2016-05-01 → 2016-12-31\n/);
    assert.match(
      report,
      /^6 announcement events studied of 10 stored events with a ticker dated in the period\./m,
    );
    for (const [reason, count] of [
      // Era-correct identities: Raytheon Co. and Alliant Techsystems of 2016 resolve to their own
      // tickers then (RTN, OA), which ship no series; Parsons, private until 2019, resolves to no ticker.
      ['no price series for the ticker', 3],
      ['less than a year of announcement history before the date', 1],
    ] as const) {
      assert.match(
        report,
        new RegExp(`\\| left out: ${reason.replace(/[()]/g, '\\$&')}[^|]*\\| ${count} \\|`),
      );
    }
    assert.match(
      report,
      /Quartile cut points 0\.002018, 0\.006078, 0\.01894 \(in sample 2014-08-01 → 2016-12-31/,
    );
    assert.match(report, /\| XAR market-adjusted \| 0→\+5 \| 6 \| none \|/);

    const csv = (await readFile(path.join(out, 'events.csv'), 'utf8')).trim().split('\n');
    assert.equal(csv.length, 7);
    const lmt = csv.find((line) => line.startsWith('DOD_ANN_2016-06-15_0001_1,'))?.split(',');
    assert.deepEqual(lmt?.slice(1, 9), [
      'LMT',
      '2016-06-15',
      'award',
      '30000000',
      '2000000000',
      '0.015',
      '0.015',
      'Q3',
    ]);
    // The NOC page of 2016-07-12 is scored against NOC's own 1 B only, not Orbital ATK's later page.
    const noc = csv.find((line) => line.startsWith('DOD_ANN_2016-07-12_0001_1,'))?.split(',');
    assert.deepEqual(noc?.slice(4, 9), ['400000000', '1000000000', '0.4', '0.4', 'Q4']);
    const svg = await readFile(path.join(out, 'chart.svg'), 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(!svg.includes('NaN'));

    // The same events under ann-dv-1: LMT's $30 M / its mean dollar volume of the 60 trading days before.
    const dvOut = path.join(dir, 'report-dv');
    const dv = await cli(
      [
        'evaluate',
        '--source',
        'announcements',
        '--rule',
        'ann-dv-1',
        '--from',
        '2016-05-01',
        '--to',
        '2016-12-31',
        '--out',
        dvOut,
      ],
      env,
    );
    assert.equal(dv.code, 0, dv.stderr);
    const dvReport = await readFile(path.join(dvOut, 'REPORT.md'), 'utf8');
    assert.match(dvReport, /^# Announcement study: ann-dv-1, 2016-05-01 → 2016-12-31\n/);
    assert.match(
      dvReport,
      /Quartile cut points 0\.08086, 0\.2593, 0\.7559 \(in sample 2014-08-01 → 2016-12-31, ann-dv-1\)/,
    );
    const lmtVolume =
      (await loadDollarVolume())
        .get('LMT')
        ?.filter((p) => p.date < '2016-06-15')
        .slice(-60) ?? [];
    assert.equal(lmtVolume.length, 60);
    const adv = lmtVolume.reduce((sum, p) => sum + p.dollars, 0) / 60;
    const dvCsv = (await readFile(path.join(dvOut, 'events.csv'), 'utf8')).trim().split('\n');
    const dvLmt = dvCsv.find((line) => line.startsWith('DOD_ANN_2016-06-15_0001_1,'))?.split(',');
    assert.ok(dvLmt, 'the LMT event is studied');
    assert.ok(
      Math.abs(Number(dvLmt[6]) / (30_000_000 / adv) - 1) < 1e-3,
      `${dvLmt[6]} vs ${30_000_000 / adv}`,
    );
  });
});
