/** What a page read again adds to a day's stored paragraphs (src/pipeline/amendments.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { reconcile } from '../../src/pipeline/amendments.ts';
import type { AnnouncementParagraph } from '../../src/sources/announcements.ts';
import type { StoredParagraph } from '../../src/store/announcement-pages.ts';

const DATE = '2018-06-14';
const page = (...texts: string[]): AnnouncementParagraph[] =>
  texts.map((text, i) => ({ date: DATE, section: 'NAVY', paragraphNo: i + 1, text }));
const stored = (...texts: string[]): StoredParagraph[] =>
  texts.map((text, i) => ({
    id: `DOD_ANN_${DATE}_000${i + 1}`,
    paragraphNo: i + 1,
    section: 'NAVY',
    text,
    supersedes: null,
  }));

const A = 'Acme Corp., Reston, Virginia, is awarded a $9,000,000 contract (N00019-18-C-0001) for parts.';
const B = 'Beta LLC, Dayton, Ohio, is awarded a $12,000,000 contract (FA8625-18-C-0002) for repairs.';
const C = 'Gamma Inc., Mesa, Arizona, is awarded a $15,000,000 contract (W31P4Q-18-C-0003) for radios.';

describe('reconcile', () => {
  test('a first reading keeps the page’s order and numbers', () => {
    const got = reconcile([], page(A, B));
    assert.deepEqual(
      got.fresh.map((f) => [f.paragraph.paragraphNo, f.supersedes]),
      [
        [1, null],
        [2, null],
      ],
    );
  });

  test('the same text differently typeset is known; an insertion is numbered after the day’s last', () => {
    const typeset = `${A.replace("'", '\u2019').replace(/ /g, '\u00a0 ')}`;
    const got = reconcile(stored(typeset, B), page(C, A, B));
    assert.deepEqual(got.known, [`DOD_ANN_${DATE}_0001`, `DOD_ANN_${DATE}_0002`]);
    assert.deepEqual(
      got.fresh.map((f) => [f.paragraph.paragraphNo, f.paragraph.text, f.supersedes]),
      [[3, C, null]],
    );
  });

  test('a corrected paragraph supersedes the one with its contract number; a removed one is left', () => {
    const corrected = B.replace('$12,000,000', '$21,000,000');
    const got = reconcile(stored(A, B, C), page(corrected, A));
    assert.deepEqual(got.known, [`DOD_ANN_${DATE}_0001`]);
    assert.deepEqual(
      got.fresh.map((f) => [f.paragraph.paragraphNo, f.supersedes]),
      [[4, `DOD_ANN_${DATE}_0002`]],
    );
  });

  test('without contract numbers, the same opening; a same-company award with another number is new', () => {
    const plain = 'Delta Corp., Austin, Texas, has been awarded $8,000,000 for fuel.';
    const got = reconcile(
      stored(plain, A),
      page(plain.replace('$8,000,000', '$8,800,000'), A, A.replace('0001', '0009')),
    );
    assert.deepEqual(
      got.fresh.map((f) => f.supersedes),
      [`DOD_ANN_${DATE}_0001`, null],
    );
  });

  test('a version already superseded is not superseded again; its correction reread is known', () => {
    const corrected = B.replace('$12,000,000', '$21,000,000');
    const rows = [
      ...stored(A, B),
      {
        ...stored(corrected)[0],
        id: `DOD_ANN_${DATE}_0003`,
        paragraphNo: 3,
        supersedes: `DOD_ANN_${DATE}_0002`,
      },
    ] as StoredParagraph[];
    const got = reconcile(rows, page(A, corrected));
    assert.deepEqual(got.fresh, []);
    const again = reconcile(rows, page(A, B.replace('$12,000,000', '$22,000,000')));
    assert.deepEqual(
      again.fresh.map((f) => f.supersedes),
      [`DOD_ANN_${DATE}_0003`],
    );
  });
});
