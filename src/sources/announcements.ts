/**
 * DoD contract announcements → structured awards. The Department of Defense publishes every contract
 * action of $7.5 M or more on its daily "Contracts for <date>" page at about 17:00 New York time: one
 * paragraph per action under a heading naming the service. This module splits a page into paragraphs
 * and reads each paragraph's awardees, amounts, contract numbers, contract types, kind, competition and
 * contracting activity. The text is written by people in a loose house style, so every field is read by
 * patterns; test/fixtures/announcements/labels.jsonl measures how often they are right.
 */
import { join } from 'node:path';
import { parseCsv, rowToObject } from './csv.ts';
import { readTextFile } from './files.ts';

export const ANNOUNCEMENT_KINDS = ['award', 'modification', 'option', 'order', 'other'] as const;
export type AnnouncementKind = (typeof ANNOUNCEMENT_KINDS)[number];

export const CONTRACT_TYPES = [
  'firm-fixed-price',
  'fixed-price-incentive',
  'fixed-price-award-fee',
  'fixed-price-economic-price-adjustment',
  'cost-plus-fixed-fee',
  'cost-plus-incentive-fee',
  'cost-plus-award-fee',
  'cost-reimbursement',
  'cost-sharing',
  'time-and-materials',
  'labor-hour',
  'indefinite-delivery/indefinite-quantity',
  'requirements',
  'letter',
  'other-transaction',
] as const;
export type ContractType = (typeof CONTRACT_TYPES)[number];

export interface Awardee {
  name: string;
  location: string | null;
  contractNumbers: string[];
}

export interface ParsedParagraph {
  kind: AnnouncementKind;
  awardees: Awardee[];
  multipleAward: boolean;
  /** Whole dollars: the action's announced value, a shared ceiling counted once. */
  faceValue: number | null;
  /** Whole dollars obligated at award; 0 when the text says none, null when it does not say. */
  obligatedAtAward: number | null;
  contractNumbers: string[];
  modificationNumber: string | null;
  contractTypes: ContractType[];
  competition: { competed: boolean | null; offers: number | null };
  contractingActivity: string | null;
}

/** One paragraph of a daily page, where it was. */
export interface AnnouncementParagraph {
  /** The announcement date, YYYY-MM-DD (the page's "Contracts for" date). */
  date: string;
  /** The heading it sits under (NAVY, ARMY, DEFENSE LOGISTICS AGENCY, …), as written. */
  section: string;
  /** 1-based order within the day. */
  paragraphNo: number;
  text: string;
}

// ---------------------------------------------------------------------------------------------
// Pages and files

const SECTION_WORDS =
  /\b(NAVY|ARMY|AIR FORCE|AGENCY|COMMAND|DEFENSE|SERVICES?|ACTIVITY|ORGANIZATION|UNIVERSITY|TRANSCOM|MARINE|SPACE FORCE|HEADQUARTERS|OFFICE)\b/;

function isHeading(line: string): boolean {
  return line.length <= 70 && !line.includes('$') && line === line.toUpperCase() && SECTION_WORDS.test(line);
}

/**
 * The paragraphs of one day's page as plain text: an all-caps line naming a service starts a section
 * (a bare `AGENCY`/`SERVICES` line right after one continues it); every other non-empty line is a
 * paragraph. `CONTRACTS` and `- END -` lines are dropped.
 */
export function splitAnnouncementPage(date: string, text: string): AnnouncementParagraph[] {
  const paragraphs: AnnouncementParagraph[] = [];
  let section = '';
  let lastWasHeading = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\u00a0/g, ' ').trim();
    if (!line || line === 'CONTRACTS' || /^-\s*END\s*-$/.test(line)) continue;
    if (lastWasHeading && /^(AGENCY|SERVICES?)$/.test(line)) {
      section = `${section} ${line}`;
      continue;
    }
    if (isHeading(line)) {
      section = line;
      lastWasHeading = true;
      continue;
    }
    lastWasHeading = false;
    paragraphs.push({ date, section, paragraphNo: paragraphs.length + 1, text: line });
  }
  return paragraphs;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** `February 29, 2016` → `2016-02-29`; null when it is not such a date. */
export function longDate(text: string): string | null {
  const m = /^\s*([A-Za-z]+)\.?\s+(\d{1,2}),\s*(\d{4})\s*$/.exec(text);
  if (!m) return null;
  const month = MONTHS.findIndex((name) => name.startsWith((m[1] ?? '').toLowerCase()));
  if (month < 0 || (m[1] ?? '').length < 3) return null;
  const iso = `${m[3]}-${String(month + 1).padStart(2, '0')}-${String(Number(m[2])).padStart(2, '0')}`;
  return isCalendarDate(iso) ? iso : null;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** YYYY-MM-DD naming a day that exists (2014-02-30 does not), in 1900–2200. */
function isCalendarDate(date: string): boolean {
  if (!ISO_DATE.test(date)) return false;
  const parsed = new Date(`${date}T00:00:00Z`);
  const year = Number(date.slice(0, 4));
  return (
    !Number.isNaN(parsed.getTime()) &&
    parsed.toISOString().slice(0, 10) === date &&
    year >= 1900 &&
    year <= 2200
  );
}

export interface AnnouncementFileResult {
  paragraphs: AnnouncementParagraph[];
  rejected: { line: number; message: string }[];
}

/**
 * An announcements CSV in either shape the project knows: one paragraph per row with
 * `announcement_date, section, paragraph_no, text` (other columns ignored), or
 * `announcement, date` with a long date (`February 29, 2016`; paragraphs numbered in file order per day).
 */
export function parseAnnouncementsCsv(text: string): AnnouncementFileResult {
  const { header, rows } = parseCsv(text);
  const paragraphs: AnnouncementParagraph[] = [];
  const rejected: { line: number; message: string }[] = [];
  const paragraphShape = ['announcement_date', 'text'].every((c) => header.includes(c));
  const scrapeShape = ['announcement', 'date'].every((c) => header.includes(c));
  if (!paragraphShape && !scrapeShape) {
    throw new Error(
      'not an announcements CSV: expected columns announcement_date, text (and section, paragraph_no) or announcement, date',
    );
  }
  const perDay = new Map<string, number>();
  for (const { line, fields } of rows) {
    if (fields.length !== header.length) {
      rejected.push({ line, message: `expected ${header.length} fields, found ${fields.length}` });
      continue;
    }
    const row = rowToObject(header, fields);
    const body = (paragraphShape ? row.text : row.announcement)?.trim() ?? '';
    const date = paragraphShape ? (row.announcement_date?.trim() ?? '') : longDate(row.date ?? '');
    if (!date || !isCalendarDate(date)) {
      rejected.push({
        line,
        message: `not a valid announcement date: '${(paragraphShape ? row.announcement_date : row.date) ?? ''}'`,
      });
      continue;
    }
    if (!body) {
      rejected.push({ line, message: 'empty paragraph' });
      continue;
    }
    if (body.length > MAX_PARAGRAPH) {
      rejected.push({ line, message: `paragraph longer than ${MAX_PARAGRAPH} characters` });
      continue;
    }
    if (body.includes('\u0000') || /\p{Cs}/u.test(body)) {
      rejected.push({ line, message: 'paragraph holds NUL or a lone surrogate' });
      continue;
    }
    const next = (perDay.get(date) ?? 0) + 1;
    perDay.set(date, next);
    const given = Number(row.paragraph_no);
    paragraphs.push({
      date,
      section: (row.section ?? '').trim().slice(0, 200),
      paragraphNo: paragraphShape && Number.isInteger(given) && given > 0 ? given : next,
      text: body,
    });
  }
  return { paragraphs, rejected };
}

export const MAX_PARAGRAPH = 20_000;

/** The shipped announcements (data/SOURCES.md), sorted by date. */
export const DEMO_ANNOUNCEMENTS = 'announcements/dod_contract_announcements_2014-08_2019-03.csv.gz';

/**
 * The shipped announcements from `since` on. The file is sorted by date, so only its tail is parsed:
 * the demo seed takes the last months without reading four years of paragraphs.
 */
export async function loadDemoAnnouncements(dataDir: string, since: string): Promise<AnnouncementFileResult> {
  const text = await readTextFile(join(dataDir, DEMO_ANNOUNCEMENTS));
  const headerEnd = text.indexOf('\n');
  let at = -1;
  for (let day = 0; day < 62 && at < 0; day++) {
    const date = new Date(Date.parse(`${since}T00:00:00Z`) + day * 86_400_000).toISOString().slice(0, 10);
    at = text.indexOf(`\n${date},`, headerEnd - 1);
  }
  if (headerEnd < 0 || at < 0) return { paragraphs: [], rejected: [] };
  return parseAnnouncementsCsv(text.slice(0, headerEnd) + text.slice(at));
}

// ---------------------------------------------------------------------------------------------
// One paragraph

const US_STATES = new Set(
  [
    'Alabama',
    'Alaska',
    'Arizona',
    'Arkansas',
    'California',
    'Colorado',
    'Connecticut',
    'Delaware',
    'Florida',
    'Georgia',
    'Hawaii',
    'Idaho',
    'Illinois',
    'Indiana',
    'Iowa',
    'Kansas',
    'Kentucky',
    'Louisiana',
    'Maine',
    'Maryland',
    'Massachusetts',
    'Michigan',
    'Minnesota',
    'Mississippi',
    'Missouri',
    'Montana',
    'Nebraska',
    'Nevada',
    'New Hampshire',
    'New Jersey',
    'New Mexico',
    'New York',
    'North Carolina',
    'North Dakota',
    'Ohio',
    'Oklahoma',
    'Oregon',
    'Pennsylvania',
    'Rhode Island',
    'South Carolina',
    'South Dakota',
    'Tennessee',
    'Texas',
    'Utah',
    'Vermont',
    'Virginia',
    'Washington',
    'West Virginia',
    'Wisconsin',
    'Wyoming',
    'District of Columbia',
    'Washington, D.C.',
    'D.C.',
    'Puerto Rico',
    'Guam',
    'U.S. Virgin Islands',
    'Virgin Islands',
  ].map((s) => s.toLowerCase()),
);

const COUNTRIES = new Set(
  [
    'Canada',
    'United Kingdom',
    'England',
    'Scotland',
    'Wales',
    'Northern Ireland',
    'Australia',
    'Germany',
    'Israel',
    'Japan',
    'Italy',
    'Norway',
    'France',
    'Netherlands',
    'the Netherlands',
    'Sweden',
    'Denmark',
    'Spain',
    'Belgium',
    'Switzerland',
    'South Korea',
    'Republic of Korea',
    'Korea',
    'Turkey',
    'Poland',
    'Kuwait',
    'Saudi Arabia',
    'United Arab Emirates',
    'Qatar',
    'Bahrain',
    'Afghanistan',
    'Iraq',
    'Jordan',
    'Egypt',
    'Singapore',
    'Taiwan',
    'India',
    'Finland',
    'Greece',
    'Portugal',
    'Czech Republic',
    'Ireland',
    'Austria',
    'New Zealand',
    'Mexico',
    'Brazil',
    'Philippines',
    'Romania',
    'Bulgaria',
    'Estonia',
    'Latvia',
    'Lithuania',
    'Ukraine',
    'Oman',
    'Djibouti',
    'Kenya',
    'Greenland',
    'Iceland',
    'Luxembourg',
    'Hungary',
    'Slovakia',
    'Colombia',
    'Chile',
    'Peru',
    'Thailand',
    'Malaysia',
    'Indonesia',
    'Pakistan',
    'South Africa',
    'Cyprus',
  ].map((s) => s.toLowerCase()),
);

/** Provinces and the like that sit between a foreign city and its country. */
const REGIONS = new Set(
  [
    'Ontario',
    'Quebec',
    'British Columbia',
    'Alberta',
    'Nova Scotia',
    'Manitoba',
    'Saskatchewan',
    'New Brunswick',
    'Newfoundland',
    'New South Wales',
    'Victoria',
    'Queensland',
    'South Australia',
    'Western Australia',
    'Bavaria',
    'England',
    'Scotland',
    'Wales',
  ].map((s) => s.toLowerCase()),
);

/** Where the awardees end and the action begins. */
const AWARD_VERB =
  /,?\s*\b(?:is|are|was|were|has|have|will\s+be|will)\s+(?:each\s+|jointly\s+|both\s+|all\s+|also\s+|collectively\s+)?(?:been\s+|being\s+|be\s+)*(?:awarded|issued|added|selected|modified|receiving)\b|,?\s*\b(?:received|receives|wins|won)\b/i;

const PIID = /\b[A-Z][A-Z0-9]{5}-\d{2}-[A-Z]-[A-Z0-9]{4}\b/g;
/** Solicitations (request for proposals or quotations) are not contracts. */
const SOLICITATION_TYPE = /^[A-Z][A-Z0-9]{5}-\d{2}-[RQ]-/;

const MONEY = /\$\s?(\d[\d,]*(?:\.\d+)?)(?:\s*(million|billion))?/gi;

function dollars(digits: string, scale: string | undefined): number {
  const value = Number(digits.replace(/,/g, ''));
  const factor = scale?.toLowerCase() === 'billion' ? 1e9 : scale?.toLowerCase() === 'million' ? 1e6 : 1;
  return Math.round(value * factor);
}

/** No single action is worth more than this; a larger figure is a typo or hostile, not a value. */
const MAX_DOLLARS = 1e15;

function amounts(text: string): { value: number; at: number }[] {
  return [...text.matchAll(MONEY)]
    .map((m) => ({ value: dollars(m[1] ?? '0', m[2]), at: m.index ?? 0 }))
    .filter((a) => Number.isFinite(a.value) && a.value <= MAX_DOLLARS);
}

/** Sentences, not split after abbreviations (`Inc.`, `Co.`, `U.S.`, `Jan.`) or inside numbers. */
function sentences(text: string): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  const boundary =
    /(?<![A-Z]|\b(?:Inc|Co|Corp|Ltd|Ft|St|Mt|No|Jr|Sr|Bros|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|etc|approx|Assn|Intl|Mfg|Dept|Div|Svcs|Sys))\.\s+(?=[A-Z(“"])/g;
  let start = 0;
  for (const m of text.matchAll(boundary)) {
    const end = (m.index ?? 0) + 1;
    out.push({ text: text.slice(start, end), start });
    start = end + (m[0].length - 1);
  }
  if (start < text.length) out.push({ text: text.slice(start), start });
  return out;
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  a: 1,
  an: 1,
  single: 1,
  only: 1,
};

function count(word: string): number | null {
  const w = word.toLowerCase().replace(/,/g, '');
  if (/^\d+$/.test(w)) return Number(w);
  const parts = w.split('-');
  if (parts.length === 2) {
    const [tens, ones] = parts.map((p) => NUMBER_WORDS[p]);
    return tens !== undefined && ones !== undefined ? tens + ones : null;
  }
  return NUMBER_WORDS[w] ?? null;
}

const TYPE_PATTERNS: [ContractType, RegExp][] = [
  ['firm-fixed-price', /firm[\s-]+fixed[\s-]+price/i],
  ['fixed-price-incentive', /fixed[\s-]+price[\s-]+incentive/i],
  ['fixed-price-award-fee', /fixed[\s-]+price[\s-]+(?:with[\s-]+)?award[\s-]+fee/i],
  [
    'fixed-price-economic-price-adjustment',
    /fixed[\s-]+price[\s-]+(?:with[\s-]+)?economic[\s-]+price[\s-]+adjustment/i,
  ],
  ['cost-plus-fixed-fee', /cost[\s-]+plus[\s-]+fixed[\s-]+fee/i],
  ['cost-plus-incentive-fee', /cost[\s-]+plus[\s-]+incentive[\s-]+fee/i],
  ['cost-plus-award-fee', /cost[\s-]+plus[\s-]+award[\s-]+fee/i],
  ['cost-reimbursement', /cost[\s-]+reimburs\w*|cost[\s-]+only|cost[\s-]+no[\s-]+fee|\bcost[\s-]+type\b/i],
  ['cost-sharing', /cost[\s-]+shar\w*/i],
  ['time-and-materials', /time[\s-]+and[\s-]+materials?/i],
  ['labor-hour', /labor[\s-]+hours?\b/i],
  [
    'indefinite-delivery/indefinite-quantity',
    /indefinite[\s-]+delivery[\s/,-]+(?:and\s+|\/\s*)?indefinite[\s-]+quantity|\bIDIQ\b|\bID\/IQ\b/i,
  ],
  ['requirements', /\brequirements(?:[\s-]+type)?\s+contract/i],
  ['letter', /\bletter\s+contract/i],
  ['other-transaction', /\bother[\s-]+transaction/i],
];

function contractTypes(text: string): ContractType[] {
  return TYPE_PATTERNS.map(([type, pattern]) => ({ type, at: text.search(pattern) }))
    .filter((t) => t.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((t) => t.type);
}

function competition(text: string): ParsedParagraph['competition'] {
  const offers = offerCount(text);
  if (
    /sole[\s-]+source|not\s+(?:been\s+)?competitively|non-?competitive|only\s+one\s+responsible\s+source|6\.302-\d|other\s+than\s+full\s+and\s+open|without\s+full\s+and\s+open|was\s+not\s+competed|were\s+not\s+competed|single[\s-]+source/i.test(
      text,
    )
  )
    return { competed: false, offers };
  if (
    offers !== null ||
    /competitive(?:ly)?|\bwas\s+competed|\bwere\s+competed|full\s+and\s+open|fair\s+opportunity|\bsolicited\b|\bcompetition\b/i.test(
      text,
    )
  )
    return { competed: true, offers };
  return { competed: null, offers: null };
}

const OFFER_NOUN = '(?:offers?|bids?|proposals?|quotations?|quotes?|responses?|submissions?)';
const COUNT_WORD = '(\\d+|[a-z]+(?:-[a-z]+)?)';

function offerCount(text: string): number | null {
  const patterns = [
    new RegExp(
      `\\b${COUNT_WORD}\\s+(?:timely\\s+|responsive\\s+|acceptable\\s+|technically\\s+acceptable\\s+)?${OFFER_NOUN}\\s+(?:were\\s+|was\\s+)?(?:received|submitted)`,
      'i',
    ),
    new RegExp(`\\bwith\\s+${COUNT_WORD}\\s+(?:${OFFER_NOUN}\\s+)?received`, 'i'),
    new RegExp(`\\breceived\\s+${COUNT_WORD}\\s+(?:timely\\s+|responsive\\s+)?${OFFER_NOUN}`, 'i'),
    new RegExp(`\\b${COUNT_WORD}\\s+${OFFER_NOUN}\\s+(?:were\\s+|was\\s+)?(?:received|submitted)`, 'i'),
  ];
  for (const pattern of patterns) {
    const m = pattern.exec(text);
    const n = m ? count(m[1] ?? '') : null;
    if (n !== null) return n;
  }
  return null;
}

function contractingActivity(text: string): string | null {
  for (const { text: sentence } of sentences(text)) {
    const before =
      /^(.*?),?\s+(?:is|are|was|were)\s+the\s+contracting\s+(?:activity|agency|activities)/is.exec(sentence);
    if (before) return cleanActivity(before[1] ?? '');
    const after =
      /the\s+contracting\s+(?:activity|agency)\s+(?:is|was)\s+(?:the\s+)?(.*?)(?:\s*\([^)]*\))?\.?\s*$/is.exec(
        sentence,
      );
    if (after) return cleanActivity(after[1] ?? '');
  }
  return null;
}

function cleanActivity(text: string): string | null {
  const cleaned = text
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[,.]$/, '');
  return cleaned || null;
}

function piids(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(PIID)) {
    const piid = m[0];
    if (!SOLICITATION_TYPE.test(piid) && !found.includes(piid)) found.push(piid);
  }
  return found;
}

/** Splits the awardees' part of a paragraph into names and places. */
function awardees(head: string): Awardee[] {
  const list: Awardee[] = [];
  const parts = head.split(/;\s*/);
  for (const rawPart of parts) {
    const part = rawPart.replace(/^\s*(?:and|&)\s+/i, '').trim();
    if (!part) continue;
    const numbers = piids(part);
    const tokens = part
      .replace(/\([^)]*\)/g, ' ')
      .split(',')
      .map((t) => t.replace(/\*/g, '').replace(/\s+/g, ' ').trim())
      .filter((t) => t.length > 0);
    let name: string[] = [];
    let i = 0;
    while (i < tokens.length) {
      const token = tokens[i] as string;
      const lower = token.replace(/^and\s+/i, '').toLowerCase();
      if (i > 0 && (US_STATES.has(lower) || COUNTRIES.has(lower)) && name.length > 1) {
        let cityAt = name.length - 1;
        if (COUNTRIES.has(lower) && cityAt > 0 && REGIONS.has((name[cityAt] ?? '').toLowerCase()))
          cityAt -= 1;
        const location = [...name.slice(cityAt), token.replace(/^and\s+/i, '')].join(', ');
        const company = name.slice(0, cityAt).join(', ');
        if (company) list.push({ name: company, location, contractNumbers: [] });
        name = [];
        i += 1;
        continue;
      }
      // "…, Texas, and Other Co., Place, State": the next company starts after "and".
      name.push(name.length === 0 ? token.replace(/^and\s+/i, '') : token);
      i += 1;
    }
    if (name.length > 0 && list.length === 0)
      list.push({ name: name.join(', '), location: null, contractNumbers: [] });
    const last = list[list.length - 1];
    if (last && numbers.length > 0 && parts.length > 1) last.contractNumbers = numbers;
  }
  return list;
}

function kindOf(first: string): AnnouncementKind {
  if (
    /\bexercis\w*\b[^.]{0,80}?\boptions?\b|\boptions?\s+(?:period|year)s?\b[^.]{0,40}?\bexercised\b|\boption\s+exercise\b/i.test(
      first,
    )
  )
    return 'option';
  if (
    /\bmodification\b|\bmodif(?:y|ies|ying|ied)\b|\bundefinitiz\w*|\bcontract\s+(?:increase|extension)\b/i.test(
      first,
    )
  )
    return 'modification';
  if (
    /\b(?:task|delivery)[\s-]+orders?\b|\bcall\s+orders?\b|\border\s+(?:number|no\.)|\bissued\s+against\b/i.test(
      first,
    )
  )
    return 'order';
  return 'award';
}

/** Reads one paragraph. */
export function parseParagraph(raw: string): ParsedParagraph {
  const text = raw.replace(/\s+/g, ' ').trim();
  const none: ParsedParagraph = {
    kind: 'other',
    awardees: [],
    multipleAward: false,
    faceValue: null,
    obligatedAtAward: null,
    contractNumbers: [],
    modificationNumber: null,
    contractTypes: [],
    competition: { competed: null, offers: null },
    contractingActivity: null,
  };
  const body = text.replace(/^(?:UPDATE|CORRECTION)\s*:\s*/i, '');
  const isCorrection = body !== text && /^CORRECTION/i.test(text);
  const verb = AWARD_VERB.exec(body);
  if (text.startsWith('*') || !body.includes('$') || !verb || isCorrection) return none;
  const head = body.slice(0, verb.index);
  const rest = body.slice(verb.index);
  const people = awardees(head);
  if (people.length === 0) return none;
  const all = sentences(body);
  const firstEnd = all.find((s) => s.start + s.text.length > verb.index) ?? all[0];
  const first = body.slice(verb.index, (firstEnd?.start ?? 0) + (firstEnd?.text.length ?? body.length));
  const mod = /\b(P[0-9A-Z]\d{3,4}|A0\d{4})\b/.exec(body);
  return {
    kind: kindOf(first),
    awardees: people,
    multipleAward: people.length > 1,
    faceValue: faceValue(body, verb.index, people.length > 1),
    obligatedAtAward: obligated(body),
    contractNumbers: piids(body),
    modificationNumber: mod ? (mod[1] ?? null) : null,
    contractTypes: contractTypes(rest),
    competition: competition(rest),
    contractingActivity: contractingActivity(body),
  };
}

const OBLIGATION = /obligat/i;
const CUMULATIVE =
  /cumulative|bringing\s+the\s+total|brings\s+the\s+total|total\s+(?:contract\s+)?value\s+(?:to|of\s+the\s+contract\s+to)/i;

function faceValue(body: string, verbAt: number, multiple: boolean): number | null {
  const all = sentences(body);
  if (multiple) {
    for (const { text } of all) {
      if (
        /\b(?:combined|aggregate|shared|collective|total)\b[^$]{0,120}\b(?:value|ceiling|maximum|capacity|amount)\b/i.test(
          text,
        ) &&
        !OBLIGATION.test(text)
      ) {
        const found = amounts(text);
        if (found.length > 0) return found[0]?.value ?? null;
      }
    }
  }
  for (const { text, start } of all) {
    if (start + text.length <= verbAt) continue;
    if ((OBLIGATION.test(text) && !/awarded\s+an?\s+(?:\w+\s+){0,3}\$/i.test(text)) || /\bexpire/i.test(text))
      continue;
    const slice = start < verbAt ? text.slice(verbAt - start) : text;
    const cut = slice.search(CUMULATIVE);
    const found = amounts(cut >= 0 ? slice.slice(0, cut) : slice);
    if (found.length > 0) return found[0]?.value ?? null;
  }
  return null;
}

function obligated(body: string): number | null {
  for (const { text } of sentences(body)) {
    if (!OBLIGATION.test(text)) continue;
    if (
      /\bno\s+(?:\w+\s+){0,4}funds?\b[^.]*\bobligat/i.test(text) ||
      /\bfunds?\s+will\s+not\s+be\s+obligated/i.test(text)
    )
      return 0;
    if (
      !/time\s+of\s+(?:the\s+)?award|at\s+award|on\s+this\s+award|on\s+the\s+first|being\s+obligated|are\s+obligated|were\s+obligated|will\s+be\s+obligated|was\s+obligated|is\s+obligated|obligated\s+at/i.test(
        text,
      )
    )
      continue;
    const cut = text.search(/,?\s*of\s+which|\bwhich\s+will\s+expire|\bwill\s+expire/i);
    const scope = cut >= 0 ? text.slice(0, cut) : text;
    const total = /\b(?:for\s+a\s+total\s+of|totaling|totalling|total\s+of)\s+\$/i.exec(scope);
    const found = amounts(total ? scope.slice(total.index) : scope);
    if (found.length === 0) continue;
    return total ? (found[0]?.value ?? null) : found.reduce((sum, a) => sum + a.value, 0);
  }
  return null;
}
