import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  PARSER_FIELDS,
  type ParagraphLabel,
  parserAccuracy,
} from '../../src/evaluation/announcement-parser-eval.ts';
import {
  longDate,
  parseAnnouncementsCsv,
  parseParagraph,
  splitAnnouncementPage,
} from '../../src/sources/announcements.ts';
import { JSON_VALUES } from '../support/hostile.ts';

/** The hostile JSON values as text: strings decoded, the rest as written. */
const HOSTILE_TEXTS = JSON_VALUES.map((value) => {
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'string' ? parsed : value;
  } catch {
    return value;
  }
});

const EXELIS =
  'Exelis, Inc., Clifton, New Jersey, is being awarded a $190,000,000 indefinite-delivery/indefinite-quantity contract to provide Suite of Integrated Radio Frequency Countermeasure components. Fiscal 2014 operations and maintenance funds in the amount of $8,618,657 are being obligated at time of award on the first task order. This contract was a not competitively procured in accordance with FAR 6.302-1. U.S. Special Operations Command, Tampa, Florida, is the contracting activity (H92241-14-D-0006).';

const NAVFAC =
  'Baldi Bros., Inc.*, Beaumont, California (N62473-14-D-0064); CJW Construction, Inc.*, Santa Ana, California (N62473-14-D-0065); and Reyes Construction, Inc., Pomona, California (N62473-14-D-0068), are each being awarded a firm-fixed-price, indefinite-delivery/indefinite-quantity multiple award construction contract for new construction. The combined maximum dollar value for all three contracts, including the base period and four option years, is $99,000,000. Fiscal 2014 operation and maintenance (Navy) contract funds in the amount of $25,000 are obligated on this award and will expire at the end of the current fiscal year. This contract was competitively procured via the Navy Electronic Commerce Online website, with seven proposals received. The Naval Facilities Engineering Command Southwest, San Diego, California, is the contracting activity.';

test('a single award: company, place, value, obligation, type, sole source, activity', () => {
  const p = parseParagraph(EXELIS);
  assert.equal(p.kind, 'award');
  assert.deepEqual(p.awardees, [
    { name: 'Exelis, Inc.', location: 'Clifton, New Jersey', contractNumbers: [] },
  ]);
  assert.equal(p.multipleAward, false);
  assert.equal(p.faceValue, 190_000_000);
  assert.equal(p.obligatedAtAward, 8_618_657);
  assert.deepEqual(p.contractNumbers, ['H92241-14-D-0006']);
  assert.deepEqual(p.contractTypes, ['indefinite-delivery/indefinite-quantity']);
  assert.deepEqual(p.competition, { competed: false, offers: null });
  assert.equal(p.contractingActivity, 'U.S. Special Operations Command, Tampa, Florida');
});

test('a multiple award: every company with its own PIID, the shared ceiling once', () => {
  const p = parseParagraph(NAVFAC);
  assert.deepEqual(
    p.awardees.map((a) => [a.name, a.location, a.contractNumbers]),
    [
      ['Baldi Bros., Inc.', 'Beaumont, California', ['N62473-14-D-0064']],
      ['CJW Construction, Inc.', 'Santa Ana, California', ['N62473-14-D-0065']],
      ['Reyes Construction, Inc.', 'Pomona, California', ['N62473-14-D-0068']],
    ],
  );
  assert.equal(p.multipleAward, true);
  assert.equal(p.faceValue, 99_000_000);
  assert.equal(p.obligatedAtAward, 25_000);
  assert.deepEqual(p.contractTypes, ['firm-fixed-price', 'indefinite-delivery/indefinite-quantity']);
  assert.deepEqual(p.competition, { competed: true, offers: 7 });
  assert.equal(
    p.contractingActivity,
    'The Naval Facilities Engineering Command Southwest, San Diego, California',
  );
});

test('kinds: option, modification, order; a footnote or a correction is not an award', () => {
  assert.equal(
    parseParagraph(
      'Owens and Minor Distribution Inc., Mechanicsville, Virginia, has been awarded a maximum $240,332,793 modification (P00051) exercising the second 20-month option period of a 20-month base contract (SPM2DV-11-D-0002).',
    ).kind,
    'option',
  );
  const mod = parseParagraph(
    'Raytheon Co., Tucson, Arizona, was awarded a $53,202,570 modification (P00012) to contract W31P4Q-14-C-0100 for Stinger missiles. No funds are being obligated at time of award.',
  );
  assert.equal(mod.kind, 'modification');
  assert.equal(mod.modificationNumber, 'P00012');
  assert.equal(mod.obligatedAtAward, 0);
  assert.equal(
    parseParagraph(
      'Jacobs Technologies, Tullahoma, Tennessee (H92222-17-F-0069), is being awarded a $771,331,027, cost-plus-fixed-fee task order for enterprise operations. Four quotations were received.',
    ).kind,
    'order',
  );
  assert.equal(parseParagraph('*Small Business').kind, 'other');
  assert.equal(
    parseParagraph(
      'CORRECTION: The contract announced on Aug. 5, 2014, for Parker Hannifin Corp., Irvine, California, for a $238,050,000 contract was announced with an incorrect award date.',
    ).kind,
    'other',
  );
});

test('a daily page splits into sections and numbered paragraphs', () => {
  const page = [
    'CONTRACTS',
    'NAVY',
    EXELIS,
    '',
    'DEFENSE LOGISTICS',
    'AGENCY',
    NAVFAC,
    '*Small business',
    '- END -',
  ].join('\n');
  const paragraphs = splitAnnouncementPage('2014-08-01', page);
  assert.deepEqual(
    paragraphs.map((p) => [p.section, p.paragraphNo, p.text.slice(0, 12)]),
    [
      ['NAVY', 1, 'Exelis, Inc.'],
      ['DEFENSE LOGISTICS AGENCY', 2, 'Baldi Bros.,'],
      ['DEFENSE LOGISTICS AGENCY', 3, '*Small busin'],
    ],
  );
});

test('both CSV shapes; bad rows are rejected with their line, never thrown', () => {
  const paragraphsCsv = [
    'announcement_date,section,paragraph_no,row_type,text',
    `2014-08-01,NAVY,1,award,"${EXELIS}"`,
    '2014-02-30,NAVY,2,award,"bad date"',
    '2014-08-01,NAVY,3,award,""',
    '2014-08-01,NAVY',
  ].join('\n');
  const a = parseAnnouncementsCsv(paragraphsCsv);
  assert.deepEqual(
    a.paragraphs.map((p) => [p.date, p.section, p.paragraphNo]),
    [['2014-08-01', 'NAVY', 1]],
  );
  assert.deepEqual(
    a.rejected.map((r) => r.line),
    [3, 4, 5],
  );
  const scrape = parseAnnouncementsCsv(
    [
      'url_id,announcement,date',
      `6,"${EXELIS}","February 29, 2016"`,
      `6,"${NAVFAC}","February 29, 2016"`,
    ].join('\n'),
  );
  assert.deepEqual(
    scrape.paragraphs.map((p) => [p.date, p.paragraphNo]),
    [
      ['2016-02-29', 1],
      ['2016-02-29', 2],
    ],
  );
  assert.throws(() => parseAnnouncementsCsv('a,b\n1,2'), /not an announcements CSV/);
  assert.equal(longDate('February 30, 2016'), null);
  assert.equal(longDate('Sept. 4, 2018'), '2018-09-04');
});

test('hostile paragraph text is read or rejected, never thrown', () => {
  for (const text of HOSTILE_TEXTS) {
    const p = parseParagraph(`${text}, Tucson, Arizona, was awarded a $1,000,000 contract. ${text}`);
    assert.ok(['award', 'other'].includes(p.kind));
    const csv = parseAnnouncementsCsv(`announcement_date,text\n2016-01-04,"${text.replaceAll('"', '""')}"`);
    assert.equal(csv.paragraphs.length + csv.rejected.length, 1);
  }
  const huge = parseParagraph(`Acme, Tucson, Arizona, was awarded a $${'9'.repeat(400)} contract.`);
  assert.equal(Number.isFinite(huge.faceValue ?? 0) || huge.faceValue === null, true);
});

test('accuracy on 240 hand-labelled paragraphs: at least 90 % on every field', () => {
  const rows = readFileSync(new URL('../fixtures/announcements/labels.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { text: string; label: ParagraphLabel });
  assert.ok(rows.length >= 200);
  const accuracy = parserAccuracy(rows.map((r) => ({ parsed: parseParagraph(r.text), label: r.label })));
  assert.deepEqual(
    accuracy.map((a) => a.field),
    [...PARSER_FIELDS],
  );
  for (const a of accuracy) assert.ok(a.accuracy >= 0.9, `${a.field}: ${(100 * a.accuracy).toFixed(1)} %`);
});
