import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { AwardRecord } from '../../src/domain/types.ts';
import { FileFormatError, readAwardText } from '../../src/sources/award-files.ts';
import {
  contractAwardKey,
  loadDemoAwards,
  normalizeBulkRecord,
  parseContractAwardsJson,
  parseDateText,
  parseLegacyDatafeedCsv,
  parseSpendingByAwardResults,
  parseTop100Csv,
  parseTransactionsCsv,
  supersedes,
} from '../../src/sources/awards.ts';
import { parseCsv } from '../../src/sources/csv.ts';
import { readTextFile } from '../../src/sources/files.ts';

const dataDir = fileURLToPath(new URL('../../data', import.meta.url));
const shipped = (p: string): Promise<string> => readTextFile(join(dataDir, p));

const base = {
  contract_award_unique_key: 'CONT_AWD_N0001924C0025_9700_-NONE-_-NONE-',
  recipient_name: 'THE BOEING COMPANY',
  award_base_action_date: '2024-02-29',
  current_total_value_of_award: '1190593943.49',
};

function ok(rec: Record<string, unknown>): AwardRecord {
  const r = normalizeBulkRecord(rec);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.award;
}

function rejectMessage(rec: Record<string, unknown>): string {
  const r = normalizeBulkRecord(rec);
  assert.equal(r.ok, false);
  return r.ok ? '' : r.message;
}

test('normalizeBulkRecord: a NUL character, which PostgreSQL text cannot hold, rejects the record', () => {
  assert.equal(
    rejectMessage({ ...base, recipient_name: 'THE BOEING\u0000 COMPANY' }),
    'recipient_name contains a NUL character',
  );
  assert.equal(
    rejectMessage({ ...base, prime_award_base_transaction_description: 'F-15\u0000EX' }),
    'prime_award_base_transaction_description contains a NUL character',
  );
  assert.equal(
    rejectMessage({ ...base, recipient_name: '\u0000 ' }),
    'recipient_name contains a NUL character',
  );
});

test('normalizeBulkRecord: minimal record, rounding, derived agency, unknown columns ignored', () => {
  const a = ok({ ...base, some_unknown_column: 'x' });
  assert.deepEqual(a, {
    id: 'CONT_AWD_N0001924C0025_9700_-NONE-_-NONE-',
    piid: null,
    recipientName: 'THE BOEING COMPANY',
    recipientUei: null,
    parentName: null,
    parentUei: null,
    awardingAgency: 'Department of Defense',
    awardingSubAgency: null,
    value: 1190593943,
    awardDate: '2024-02-29',
    description: null,
    naics: null,
    psc: null,
    sourceModifiedAt: null,
  });
});

test('normalizeBulkRecord: all columns mapped', () => {
  const a = ok({
    ...base,
    award_id_piid: 'N0001924C0025',
    recipient_uei: 'WZWRLY4G3PL8',
    recipient_parent_name: 'THE BOEING COMPANY',
    recipient_parent_uei: 'WZWRLY4G3PL8',
    awarding_agency_name: 'Department of Defense',
    awarding_sub_agency_name: 'Department of the Navy',
    prime_award_base_transaction_description: ' CANADA AND GERMANY LOT 13 P-8A AIRCRAFT ',
    naics_code: 336411,
    product_or_service_code: '1510: AIRCRAFT, FIXED WING',
    last_modified_date: '2025-03-04 12:30:00',
  });
  assert.equal(a.piid, 'N0001924C0025');
  assert.equal(a.parentUei, 'WZWRLY4G3PL8');
  assert.equal(a.awardingSubAgency, 'Department of the Navy');
  assert.equal(a.description, 'CANADA AND GERMANY LOT 13 P-8A AIRCRAFT');
  assert.equal(a.naics, '336411');
  assert.equal(a.psc, '1510');
  assert.equal(a.sourceModifiedAt, '2025-03-04T12:30:00.000Z');
});

test('normalizeBulkRecord: value falls back to total_obligated_amount; negative obligations and $1,234 accepted', () => {
  assert.equal(
    ok({ ...base, current_total_value_of_award: '', total_obligated_amount: '-952.50' }).value,
    -952,
  );
  assert.equal(ok({ ...base, current_total_value_of_award: '$1,234,567.50' }).value, 1234568);
  assert.equal(ok({ ...base, current_total_value_of_award: 12.4 }).value, 12);
  const netZero = { ...base, current_total_value_of_award: '', total_obligated_amount: '-0.2' };
  assert.ok(Object.is(ok(netZero).value, 0));
});

test('normalizeBulkRecord: amounts, dates and lengths at their limits are accepted', () => {
  assert.equal(ok({ ...base, current_total_value_of_award: 1e15 }).value, 1e15);
  assert.equal(
    ok({ ...base, current_total_value_of_award: '', total_obligated_amount: '-1e15' }).value,
    -1e15,
  );
  assert.equal(ok({ ...base, award_base_action_date: '1900-01-01' }).awardDate, '1900-01-01');
  assert.equal(ok({ ...base, award_base_action_date: '12/31/2200' }).awardDate, '2200-12-31');
  const long = ok({
    ...base,
    contract_award_unique_key: `CONT_AWD_${'X'.repeat(191)}`,
    recipient_name: 'A'.repeat(500),
    prime_award_base_transaction_description: `${'x'.repeat(9_998)}\u{1F680}`,
  });
  assert.equal(long.id.length, 200);
  assert.equal(long.description?.length, 10_000, 'a surrogate pair is no lone surrogate');
});

test('normalizeBulkRecord: date formats', () => {
  assert.equal(ok({ ...base, award_base_action_date: '2024-02-29 13:45:00' }).awardDate, '2024-02-29');
  assert.equal(ok({ ...base, award_base_action_date: '02/29/2024' }).awardDate, '2024-02-29');
  assert.equal(ok({ ...base, award_base_action_date: '9/5/2006' }).awardDate, '2006-09-05');
  assert.equal(parseDateText('2024-01-31T23:30:00-05:00')?.iso, '2024-02-01T04:30:00.000Z');
  for (const bad of [
    '2023-02-29',
    '2024-13-01',
    '31/12/2024',
    '2024/01/01',
    '20240101',
    '2024-01-01 25:00:00',
  ]) {
    assert.match(
      rejectMessage({ ...base, award_base_action_date: bad }),
      /^award_base_action_date is not a valid date/,
    );
  }
});

test('normalizeBulkRecord: rejections name the field', () => {
  const { contract_award_unique_key: _id, ...noId } = base;
  assert.equal(rejectMessage(noId), 'contract_award_unique_key is missing');
  assert.match(
    rejectMessage({ ...base, contract_award_unique_key: 'ASST_NON_123' }),
    /^contract_award_unique_key is not a CONT_AWD_/,
  );
  assert.equal(rejectMessage({ ...base, recipient_name: '  ' }), 'recipient_name is missing');
  assert.equal(rejectMessage({ ...base, award_base_action_date: null }), 'award_base_action_date is missing');
  assert.equal(
    rejectMessage({ ...base, current_total_value_of_award: undefined }),
    'current_total_value_of_award and total_obligated_amount are missing',
  );
  assert.match(
    rejectMessage({ ...base, current_total_value_of_award: 'abc' }),
    /^current_total_value_of_award is not a finite number/,
  );
  assert.match(
    rejectMessage({ ...base, current_total_value_of_award: Number.POSITIVE_INFINITY }),
    /current_total_value_of_award/,
  );
  assert.match(
    rejectMessage({ ...base, current_total_value_of_award: '', total_obligated_amount: '1e999' }),
    /^total_obligated_amount is not a finite number/,
  );
});

test('award CSV text: rejected rows carry the physical line where the record starts', async () => {
  const header =
    'contract_award_unique_key,recipient_name,award_base_action_date,current_total_value_of_award,prime_award_base_transaction_description';
  const text = [
    header,
    'CONT_AWD_A1_9700_-NONE-_-NONE-,ACME INC,2024-01-02,100,"two\nlines"',
    'CONT_AWD_A2_9700_-NONE-_-NONE-,,2024-01-02,100,x',
    'CONT_AWD_A3_9700_-NONE-_-NONE-,ACME INC,2024-01-02,100',
    'CONT_AWD_A4_9700_-NONE-_-NONE-,ACME INC,not a date,100,x',
    'CONT_AWD_A5_8000_-NONE-_-NONE-,ACME INC,01/15/2024,"1,000.6",ok',
  ].join('\r\n');
  const { awards, rejected } = await readAwardText(text, 'csv');
  assert.deepEqual(
    awards.map((a) => [a.id, a.value, a.awardingAgency, a.description]),
    [
      ['CONT_AWD_A1_9700_-NONE-_-NONE-', 100, 'Department of Defense', 'two\nlines'],
      ['CONT_AWD_A5_8000_-NONE-_-NONE-', 1001, 'National Aeronautics and Space Administration', 'ok'],
    ],
  );
  assert.deepEqual(rejected, [
    { line: 4, message: 'recipient_name is missing' },
    { line: 5, message: 'expected 5 fields, found 4' },
    {
      line: 6,
      message:
        "award_base_action_date is not a valid date in 1900–2200 (YYYY-MM-DD, YYYY-MM-DD hh:mm:ss or MM/DD/YYYY): 'not a date'",
    },
  ]);
});

test('award CSV text of 300,000 records is read whole (one batch, never spread into an argument list)', async () => {
  const rows = Array.from({ length: 300_000 }, (_, i) => `CONT_AWD_M${i}_9700,ACME INC,2024-01-02,${i + 1}`);
  const text = [
    'contract_award_unique_key,recipient_name,award_base_action_date,current_total_value_of_award',
    ...rows,
  ].join('\n');
  const { awards, rejected } = await readAwardText(text, 'csv');
  assert.equal(awards.length, 300_000);
  assert.deepEqual(rejected, []);
  assert.equal(awards.at(-1)?.value, 300_000);
});

test('award JSON text: rejects carry the index; anything but an array is not an award file', async () => {
  const good = { ...base };
  const r = await readAwardText(JSON.stringify([good, 'nope', { ...base, recipient_name: null }]), 'json');
  assert.equal(r.awards.length, 1);
  assert.deepEqual(r.rejected, [
    { index: 1, message: 'record is not an object' },
    { index: 2, message: 'recipient_name is missing' },
  ]);
  await assert.rejects(readAwardText(JSON.stringify({ awards: [good] }), 'json'), FileFormatError);
});

test('contractAwardKey follows the USASpending pattern', () => {
  assert.equal(
    contractAwardKey('w9133l06f0294', '9700', 'GS07F0256N', '4730'),
    'CONT_AWD_W9133L06F0294_9700_GS07F0256N_4730',
  );
  assert.equal(
    contractAwardKey('FA871806C0001', '9700', null, null),
    'CONT_AWD_FA871806C0001_9700_-NONE-_-NONE-',
  );
});

test('12-primes transactions: real rows, and the shipped file has no ticker columns', async () => {
  const text = await shipped('awards/usaspending_transactions_12primes_2021-2025_award_dedup.csv.gz');
  const { header } = parseCsv(text.slice(0, 2000).split('\n')[0] ?? '');
  for (const col of ['ticker', 'company_name', 'company_query']) assert.ok(!header.includes(col), col);
  const { awards, rejected } = parseTransactionsCsv(text);
  assert.equal(awards.length, 5650);
  assert.deepEqual(rejected, []);
  assert.deepEqual(awards[0], {
    id: 'CONT_AWD_FA862511C6600_9700_-NONE-_-NONE-',
    piid: 'FA862511C6600',
    recipientName: 'THE BOEING COMPANY',
    recipientUei: 'WZWRLY4G3PL8',
    parentName: null,
    parentUei: null,
    awardingAgency: 'Department of Defense',
    awardingSubAgency: 'Department of the Air Force',
    value: 1687359008,
    awardDate: '2021-01-12',
    description: 'ACAT 1D, KC-46, LOT 6 AND LOT 7 OPTION',
    naics: null,
    psc: null,
    sourceModifiedAt: null,
  });
  const h47 = awards[2];
  assert.equal(h47?.id, 'CONT_AWD_H9224119F0091_9700_W9121516G0001_9700');
  assert.equal(h47?.value, 575747271); // 575747271.15
  assert.equal(h47?.awardingSubAgency, 'U.S. Special Operations Command');
});

test('contract awards JSON: real rows with derived top-tier agency', async () => {
  const { awards, rejected } = parseContractAwardsJson(
    await shipped('awards/usaspending_contract_awards.json.gz'),
  );
  assert.equal(awards.length, 238);
  assert.deepEqual(rejected, []);
  assert.deepEqual(awards[0], {
    id: 'CONT_AWD_75N90019F00095_7529_36F79719D0024_3600',
    piid: '75N90019F00095',
    recipientName: 'ABBOTT LABORATORIES INC.',
    recipientUei: 'NH3LDK8CFAK7',
    parentName: null,
    parentUei: null,
    awardingAgency: 'Department of Health and Human Services',
    awardingSubAgency: 'National Institutes of Health',
    value: 4602564, // 4602564.33
    awardDate: '2019-04-25',
    description: 'ABBOTT LABORATORIES:1107303 [19-009467]',
    naics: '334516',
    psc: '6640',
    sourceModifiedAt: '2026-04-22T14:21:11.000Z',
  });
  const bellBoeing = awards.find((a) => a.id === 'CONT_AWD_N0038324FCF0E_9700_SPRPA121GCF01_9700');
  assert.equal(bellBoeing?.awardingAgency, 'Department of Defense');
  assert.equal(bellBoeing?.value, 152913);
  // "Departmental Offices" with code 1406 is Interior, not Treasury: the code decides.
  const interior = awards.filter((a) => a.awardingSubAgency === 'Departmental Offices');
  assert.ok(interior.length > 0);
  assert.ok(interior.every((a) => a.awardingAgency === 'Department of the Interior'));
  assert.ok(awards.every((a) => a.awardingAgency !== 'Unknown'));
});

test('top-100 CSV: real row', async () => {
  const { awards, rejected } = parseTop100Csv(
    await shipped('awards/usaspending_top100_awards_spending_by_award.csv'),
  );
  assert.equal(awards.length, 100);
  assert.deepEqual(rejected, []);
  const lms = awards[1];
  assert.equal(lms?.id, 'CONT_AWD_F0470195C0017_9700_-NONE-_-NONE-');
  assert.equal(lms?.piid, 'F0470195C0017');
  assert.equal(lms?.recipientName, 'LOCKHEED MISSILES & SPACE COMP');
  assert.equal(lms?.value, 9458382766); // 9458382765.59
  assert.equal(lms?.awardDate, '1995-11-08');
  assert.equal(lms?.awardingAgency, 'Department of Defense');
  assert.equal(lms?.awardingSubAgency, 'Department of the Air Force');
  assert.equal(awards[0]?.recipientName, 'NATIONAL TECHNOLOGY & ENGINEERING SOLUTIONS OF SANDIA, LLC');
  assert.equal(awards[0]?.value, 41728778748);
});

test('legacy FY2006 data feed: id built from piid/agencyid/idvpiid/idvagencyid, value rule', async () => {
  const { awards, rejected } = parseLegacyDatafeedCsv(
    await shipped('awards/usaspending_legacy_datafeed_dod_fy2006_sample999.csv.gz'),
  );
  assert.equal(awards.length, 999);
  assert.deepEqual(rejected, []);
  assert.deepEqual(awards[0], {
    id: 'CONT_AWD_W9133L06F0294_9700_GS07F0256N_4730',
    piid: 'W9133L06F0294',
    recipientName: 'DOCUMENT AND PACKAGING BROKERS',
    recipientUei: null,
    parentName: 'DOCUMENT AND PACKAGING BROKERS  INC.',
    parentUei: null,
    awardingAgency: 'Department of Defense',
    awardingSubAgency: 'Department of the Army',
    value: 787880,
    awardDate: '2006-09-26',
    description: 'LOCAL SPORTS MARKETING',
    naics: '339941',
    psc: 'R701',
    sourceModifiedAt: '2013-03-28T00:00:00.000Z',
  });
  // Row 2: baseandalloptionsvalue .00 → dollarsobligated (-952), a modification under an IDV.
  assert.equal(awards[1]?.id, 'CONT_AWD_0022_9700_DADA1001D0019_9700');
  assert.equal(awards[1]?.value, -952);
  assert.equal(awards[1]?.awardDate, '2006-09-13');
  // Row 4: blank description → null; AF sub-agency; no IDV → -NONE-.
  assert.equal(awards[3]?.id, 'CONT_AWD_FA871806C0001_9700_-NONE-_-NONE-');
  assert.equal(awards[3]?.description, null);
  assert.equal(awards[3]?.awardingSubAgency, 'Department of the Air Force');
  assert.equal(awards[3]?.psc, 'AJ91');
  assert.equal(awards[3]?.naics, '541710');
});

test('legacy data feed: missing piid is rejected with its line', () => {
  const text =
    'piid,agencyid,idvpiid,idvagencyid,vendorname,signeddate,dollarsobligated,baseandalloptionsvalue\n,9700: DEPT OF DEFENSE,,,X,10/01/2005,5,0\n';
  assert.deepEqual(parseLegacyDatafeedCsv(text).rejected, [
    { line: 2, message: 'piid is missing (needed for contract_award_unique_key)' },
  ]);
});

test('spending_by_award fixtures: NAICS/PSC objects, Start Date fallback, Last Modified Date', async () => {
  const a = parseSpendingByAwardResults(
    await readFile(join(dataDir, 'fixtures', 'nasa_spending_by_award_contracts.json'), 'utf8'),
  );
  assert.deepEqual(a.rejected, []);
  assert.deepEqual(a.awards[0], {
    id: 'CONT_AWD_GSFC0200211DNAS502200_8000_-NONE-_-NONE-',
    piid: 'GSFC0200211DNAS502200',
    recipientName: 'NORTHROP GRUMMAN SYSTEMS CORPORATION',
    recipientUei: 'VSBAFMDKTWL4',
    parentName: null,
    parentUei: null,
    awardingAgency: 'National Aeronautics and Space Administration',
    awardingSubAgency: 'National Aeronautics and Space Administration',
    value: 4345585999,
    awardDate: '2003-10-01',
    description: a.awards[0]?.description ?? null,
    naics: '336414',
    psc: 'AR34',
    sourceModifiedAt: null,
  });
  assert.match(a.awards[0]?.description ?? '', /^THE JAMES WEBB SPACE TELESCOPE/);

  const b = parseSpendingByAwardResults(
    JSON.parse(
      await readFile(
        join(dataDir, 'fixtures', 'nasa_spending_by_award_search_results_contracts.json'),
        'utf8',
      ),
    ),
  );
  assert.equal(b.awards.length, 5);
  const [iowa, boeing, lmt] = b.awards;
  assert.equal(iowa?.awardDate, '2018-03-05');
  assert.equal(iowa?.naics, null);
  assert.equal(iowa?.psc, null);
  assert.equal(iowa?.sourceModifiedAt, '2025-06-23T00:00:00.000Z');
  assert.equal(boeing?.id, 'CONT_AWD_NAS1510000_8000_-NONE-_-NONE-');
  assert.equal(boeing?.value, 22108961402);
  assert.equal(lmt?.awardDate, '2006-08-31'); // Base Obligation Date wins over Start Date 2006-09-06
  assert.equal(lmt?.psc, 'AR33');
  assert.throws(() => parseSpendingByAwardResults({ page_metadata: {} }), /results array/);
});

test('dedup rule: an award-level record beats a transaction, then later date, then larger value', () => {
  const a = { award: ok(base), level: 'transaction' as const };
  const later = { award: { ...a.award, awardDate: '2024-03-01', value: 1 }, level: 'transaction' as const };
  const bigger = { award: { ...a.award, value: a.award.value + 1 }, level: 'transaction' as const };
  const awardLevel = { award: { ...a.award, awardDate: '2001-01-01' }, level: 'award' as const };
  assert.equal(supersedes(later, a), true);
  assert.equal(supersedes(a, later), false);
  assert.equal(supersedes(bigger, a), true);
  assert.equal(supersedes(a, a), false);
  assert.equal(supersedes(awardLevel, later), true);
  assert.equal(supersedes(later, awardLevel), false);
});

test('loadDemoAwards: totals and per-source counts', async () => {
  const r = await loadDemoAwards(dataDir);
  assert.deepEqual(r.rejected, []);
  assert.deepEqual(
    r.counts.map((c) => [c.source, c.parsed, c.rejected, c.kept]),
    [
      ['transactions_12primes_2021_2025', 5650, 0, 5615],
      ['contract_awards_2007_2024', 238, 0, 237],
      ['top100_awards', 100, 0, 98],
      ['legacy_datafeed_dod_fy2006', 999, 0, 998],
    ],
  );
  assert.equal(r.awards.length, 6948);
  assert.equal(r.duplicates, 5650 + 238 + 100 + 999 - 6948);
  assert.equal(new Set(r.awards.map((a) => a.id)).size, r.awards.length);
  assert.equal(r.provenance.size, r.awards.length);
  for (let i = 1; i < r.awards.length; i++) {
    assert.ok((r.awards[i - 1]?.awardDate ?? '') <= (r.awards[i]?.awardDate ?? ''), 'sorted by date');
  }
  // Same award in the JSON file (base date 2007-08-28, $10.46B total) and the transactions file
  // (a 2021-01-15 modification of $84.1M): the award-level record describes the award and wins.
  const cst100 = r.awards.find((a) => a.id === 'CONT_AWD_NNM07AB03C_8000_-NONE-_-NONE-');
  assert.equal(cst100?.awardDate, '2007-08-28');
  assert.equal(cst100?.value, 10462406426);
  assert.equal(r.provenance.get(cst100?.id ?? ''), 'contract_awards_2007_2024');
  // Same date in both files: the larger value (JSON, 3,614,162 vs 1,548,025) wins.
  const sameDay = r.awards.find((a) => a.id === 'CONT_AWD_1333ND22FNB770021_1341_DOCSB134118CQ0004_1341');
  assert.equal(sameDay?.value, 3614162);
  assert.equal(r.provenance.get(sameDay?.id ?? ''), 'contract_awards_2007_2024');
  // The legacy file has one award twice (two transactions): the later one (2006-02-25) survives.
  const legacyDup = r.awards.filter((a) => a.piid === 'N6238106C2007');
  assert.equal(legacyDup.length, 1);
  assert.equal(legacyDup[0]?.awardDate, '2006-02-25');
  assert.equal(legacyDup[0]?.value, 99941);
});
