/**
 * `ingest announcements` end to end in embedded mode: from a file, and from a local server playing
 * DoD's daily contracts pages (built from real paragraphs, test/fixtures/announcements/pages/).
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli } from '../support/cli.ts';
import { FakeDod, fixturePage, fixtureParagraphs } from '../support/fake-dod.ts';

describe('ingest announcements (embedded mode)', () => {
  let dir: string;
  let env: Record<string, string>;
  let server: FakeDod;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mi-cli-ann-'));
    // As root, PostgreSQL runs as its own user, which must pass through to DATA_DIR inside.
    await chmod(dir, 0o711);
    server = await FakeDod.start();
    env = { DATA_DIR: path.join(dir, 'data'), DOD_CONTRACTS_BASE_URL: server.url };
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('--from/--to fetches each day, skips days without a page, stores what the pages say', async () => {
    server.setPage('2018-06-15', fixturePage('2018-06-15'));
    const run = await cli(['ingest', 'announcements', '--from', '2018-06-15', '--to', '2018-06-17'], env);
    assert.equal(run.code, 0, run.stderr);
    const expected = fixtureParagraphs().get('2018-06-15')?.length ?? 0;
    assert.ok(expected > 10);
    assert.match(run.stderr, new RegExp(`announcements: 2018-06-15: ${expected} paragraphs, \\d+ events`));
    assert.match(run.stderr, /announcements: 2018-06-16: no page/);
    assert.match(
      run.stderr.trim().split('\n').at(-1) ?? '',
      /^ingest: announcements 2018-06-15\.\.2018-06-17: 1 pages, \d+ awardee events/,
    );
    assert.deepEqual(
      server.requests.map((r) => r.date),
      ['2018-06-15', '2018-06-16', '2018-06-17'],
    );
    // The same day again changes nothing.
    const again = await cli(['ingest', 'announcements', '--from', '2018-06-15', '--to', '2018-06-15'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /1 pages, 0 awardee events, 0 signals created/);
  });

  test('--file reads a paragraphs CSV or a plain-text page with --date; bad arguments exit 2', async () => {
    const csv = path.join(dir, 'paragraphs.csv');
    await writeFile(
      csv,
      'announcement_date,section,paragraph_no,text\n2017-01-06,NAVY,1,"Lockheed Martin Corp., Owego, New York, is being awarded a $99,000,000 firm-fixed-price contract (N00019-17-C-0001) for helicopters. Naval Air Systems Command, Patuxent River, Maryland, is the contracting activity."\n2017-02-30,NAVY,2,"bad date"\n',
    );
    const fromCsv = await cli(['ingest', 'announcements', '--file', csv], env);
    assert.equal(fromCsv.code, 0, fromCsv.stderr);
    assert.match(fromCsv.stderr, /rejected line 3: not a valid announcement date/);
    // The CLI only migrated this data directory (no demo seed): no company to match the name to.
    assert.match(fromCsv.stderr, /1 paragraphs, 1 announcing an action, 1 awardee events \(0 matched\)/);

    const page = path.join(dir, 'page.txt');
    await writeFile(
      page,
      'CONTRACTS\nARMY\nGeneral Dynamics Land Systems, Sterling Heights, Michigan, was awarded a $50,000,000 modification (P00042) to contract W56HZV-15-C-0001 for Abrams tanks. U.S. Army Contracting Command, Warren, Michigan, is the contracting activity.\n',
    );
    const fromPage = await cli(['ingest', 'announcements', '--file', page, '--date', '2017-01-09'], env);
    assert.equal(fromPage.code, 0, fromPage.stderr);
    assert.match(fromPage.stderr, /1 paragraphs, 1 announcing an action, 1 awardee events/);

    for (const args of [
      ['--from', '2018-01-02'],
      ['--from', '2018-01-02', '--to', '2017-01-01'],
      ['--from', '2016-01-01', '--to', '2018-01-01'],
      ['--from', 'yesterday', '--to', '2018-01-01'],
      ['--file', page, '--date', '2017-02-30'],
      ['--file', csv, '--from', '2018-01-01', '--to', '2018-01-02'],
    ]) {
      const bad = await cli(['ingest', 'announcements', ...args], env);
      assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
      assert.doesNotMatch(bad.stderr, /\n\s+at /);
    }
  });
});
