import { KEYWORD_RULES, type KeywordRule, NAICS_HINTS } from './classifier-rules.ts';
import { classifyFromPsc } from './psc.ts';
import { CLASSIFICATION_LABELS, type ClassificationLabel } from './types.ts';

export { classifyFromPsc } from './psc.ts';

/**
 * Bump whenever rules or weights change (docs/EVALUATION.md §2 measures each version). Stored contracts
 * do not record it: a change reaches a contract when its award is ingested again.
 */
export const CLASSIFIER_VERSION = 'kw-2';

export interface ClassifyInput {
  description: string | null;
  naics?: string | null;
  psc?: string | null;
}

/** A PSC is the contracting officer's own coding of what was bought, so it outweighs any wording. */
const PSC_WEIGHT = 10;
/** NAICS describes the vendor's industry rather than this purchase: a hint, not a verdict. */
const NAICS_WEIGHT = 1.5;

/** Bulk files repeat descriptions a lot ("NAVY REQMT", DLA part nouns, option exercises). */
const CACHE_LIMIT = 100_000;
const cache = new Map<string, ClassificationLabel>();

export function classify(input: ClassifyInput): ClassificationLabel {
  const key = `${input.description ?? ''}\u0000${input.naics ?? ''}\u0000${input.psc ?? ''}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const label = classifyUncached(input);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, label);
  return label;
}

/**
 * Some legacy descriptions are raw FPDS record dumps ("200605!000064!5700!FA4484!305CONS/LGC   !…"):
 * codes, dates and numbers that match keywords by accident. Only the contracting office's name
 * (the fifth field) says anything, and only about who buys.
 */
const FPDS_DUMP = /^\s*\d{6}![0-9A-Z]{6}![0-9A-Z]{4}![0-9A-Z]{6}!([^!]*)!/;

const LABEL_INDEX = new Map<ClassificationLabel, number>(CLASSIFICATION_LABELS.map((label, i) => [label, i]));
const scratchScores = new Float64Array(CLASSIFICATION_LABELS.length);

function classifyUncached(input: ClassifyInput): ClassificationLabel {
  const scores = scratchScores;
  scores.fill(0);
  addDescriptionScores(scores, input.description ?? '');
  const naicsLabel = input.naics ? labelFromNaics(input.naics) : null;
  if (naicsLabel !== null) add(scores, naicsLabel, NAICS_WEIGHT);
  const pscLabel = input.psc ? classifyFromPsc(input.psc) : null;
  if (pscLabel !== null) add(scores, pscLabel, PSC_WEIGHT);
  return argmax(scores);
}

/** Each rule counts once however often its words repeat, so long descriptions do not snowball. */
function addDescriptionScores(scores: Float64Array, description: string): void {
  const upper = description.toUpperCase();
  const text = FPDS_DUMP.exec(upper)?.[1] ?? upper;
  if (text.trim() === '') return;
  const count = matchRules(text);
  for (let k = 0; k < count; k++) {
    const rule = KEYWORD_RULES[matches[k] as number] as KeywordRule;
    add(scores, rule.label, rule.weight);
  }
}

/** The indexes in KEYWORD_RULES of the rules whose pattern matches the (upper-cased) text. */
export function matchingRules(text: string): number[] {
  return Array.from(matches.subarray(0, matchRules(text)));
}

const matches = new Int32Array(KEYWORD_RULES.length);

/** Fills `matches` with the rules matching `text`, each once; returns how many. */
function matchRules(text: string): number {
  let count = 0;
  for (const i of LEADS.always)
    if ((KEYWORD_RULES[i] as KeywordRule).pattern.test(text)) matches[count++] = i;
  const found = candidateStarts(text);
  for (let k = 0; k < found.count; k++) {
    const i = found.rules[k] as number;
    if (matched[i] === stamp || !matchesAt(i, text, found.starts[k] as number)) continue;
    matched[i] = stamp;
    matches[count++] = i;
  }
  return count;
}

function labelFromNaics(naics: string): ClassificationLabel | null {
  const code = naics.trim();
  let best: readonly [string, ClassificationLabel] | null = null;
  for (const hint of NAICS_HINTS) {
    if (code.startsWith(hint[0]) && (best === null || hint[0].length > best[0].length)) best = hint;
  }
  return best?.[1] ?? null;
}

function add(scores: Float64Array, label: ClassificationLabel, weight: number): void {
  const i = LABEL_INDEX.get(label) ?? 0;
  scores[i] = (scores[i] ?? 0) + weight;
}

/** Ties go to the label listed first in CLASSIFICATION_LABELS (platforms before services). */
function argmax(scores: Float64Array): ClassificationLabel {
  let best: ClassificationLabel = 'other';
  let bestScore = 0;
  for (let i = 0; i < CLASSIFICATION_LABELS.length; i++) {
    const score = scores[i] ?? 0;
    if (score > bestScore) {
      best = CLASSIFICATION_LABELS[i] as ClassificationLabel;
      bestScore = score;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Which rules can match at all
//
// Every keyword alternative starts at a word boundary (`\b`, `^` or after whitespace) with a word
// character, so it can only match where a word of the text starts, and that word must begin with
// the alternative's leading literal letters ("SHIPS?" → SHIP, "F(?:15|16)…" → F15, F16; `\d` → any
// digit). The leads are read from the patterns themselves; a rule whose pattern does not have this
// shape is always tested. Looking the text's words up by their first two characters leaves only a
// few rules to test with their regular expression, which still decides.

/** The lead of alternatives starting with `\d`. */
const DIGIT = '\\d';
type Leads = Set<string> | 'any';

interface Cursor {
  src: string;
  at: number;
}

/** Leads of an alternation up to `)` or the end; `anchored`: a word boundary precedes it. */
function alternationLeads(c: Cursor, anchored: boolean): Leads {
  const leads = new Set<string>();
  let any = false;
  for (;;) {
    const one = sequenceLeads(c, anchored);
    if (one === 'any') any = true;
    else for (const lead of one) leads.add(lead);
    if (c.src[c.at] !== '|') break;
    c.at += 1;
  }
  return any ? 'any' : leads;
}

const WORD_CHAR = /^[A-Z0-9_]$/;
const BOUNDARY_GROUP = '(?:^|\\s)';

/** Leads of one alternative; consumes it (up to `|`, `)` or the end). */
function sequenceLeads(c: Cursor, outerAnchored: boolean): Leads {
  let anchored = outerAnchored;
  let prefix = '';
  let done = false;
  let result: Leads | null = null;
  const finish = (leads: Leads) => {
    if (!done) result = leads;
    done = true;
  };
  while (c.at < c.src.length && c.src[c.at] !== '|' && c.src[c.at] !== ')') {
    const ch = c.src[c.at] as string;
    if (ch === '(') {
      const boundary = c.src.startsWith(BOUNDARY_GROUP, c.at);
      // Lookarounds and named groups are not read: such a pattern is always tested.
      const plain = c.src.startsWith('(?:', c.at) || c.src[c.at + 1] !== '?';
      if (!plain) finish('any');
      c.at += c.src[c.at + 1] === '?' ? 3 : 1;
      const inner = alternationLeads(c, anchored);
      c.at += 1; // ')'
      const optional = quantifier(c) === 'optional';
      if (boundary && prefix === '' && !optional) anchored = true;
      else if (optional || inner === 'any') finish(leadsOf(prefix, anchored));
      else if (prefix === '') finish(inner);
      else finish(anchored ? withPrefix(prefix, inner) : 'any');
      continue;
    }
    if (ch === '\\') {
      const esc = c.src[c.at + 1] ?? '';
      c.at += 2;
      const q = quantifier(c);
      if (esc === 'b' && prefix === '') anchored = true;
      else if (esc === 'd' && prefix === '' && q !== 'optional') finish(anchored ? new Set([DIGIT]) : 'any');
      // A class, a boundary or a punctuation character ends the literal lead.
      else finish(leadsOf(prefix, anchored));
      continue;
    }
    if (ch === '[') {
      c.at = c.src.indexOf(']', c.at) + 1;
      quantifier(c);
      finish(leadsOf(prefix, anchored));
      continue;
    }
    if (ch === '^' && prefix === '') {
      c.at += 1;
      anchored = true;
      continue;
    }
    c.at += 1;
    const q = quantifier(c);
    if (done) continue;
    if (!WORD_CHAR.test(ch)) finish(leadsOf(prefix, anchored));
    else if (q === 'optional') finish(leadsOf(prefix, anchored));
    else {
      prefix += ch;
      if (q === 'repeat') finish(leadsOf(prefix, anchored));
    }
  }
  return result ?? leadsOf(prefix, anchored);
}

function leadsOf(prefix: string, anchored: boolean): Leads {
  return prefix === '' || !anchored ? 'any' : new Set([prefix]);
}

function withPrefix(prefix: string, inner: Set<string>): Leads {
  const out = new Set<string>();
  for (const lead of inner) out.add(lead === DIGIT ? prefix : prefix + lead);
  return out;
}

/** Skips a quantifier: `optional` when it allows zero repetitions, `repeat` for one or more. */
function quantifier(c: Cursor): 'none' | 'optional' | 'repeat' {
  const ch = c.src[c.at];
  if (ch === '?' || ch === '*') {
    c.at += 1;
    return 'optional';
  }
  if (ch === '+') {
    c.at += 1;
    return 'repeat';
  }
  if (ch === '{') {
    const end = c.src.indexOf('}', c.at);
    const min = Number.parseInt(c.src.slice(c.at + 1, end), 10);
    c.at = end + 1;
    return min === 0 ? 'optional' : 'repeat';
  }
  return 'none';
}

/** The leads of a keyword pattern, or 'any' when it has to be tested on every text. */
export function patternLeads(pattern: RegExp): Leads {
  if (pattern.flags.replace(/[gy]/g, '') !== '') return 'any';
  const c = { src: pattern.source, at: 0 };
  const leads = alternationLeads(c, false);
  return c.at === c.src.length ? leads : 'any';
}

interface LeadIndex {
  always: number[];
  digit: number[];
  /** By first character code (word characters are ASCII), the rules with a one-character lead. */
  single: (number[] | undefined)[];
  /** By `pairKey` of the first two character codes, longer leads with their rule. */
  pairs: ({ lead: string; rule: number }[] | undefined)[];
}

function buildLeadIndex(rules: readonly KeywordRule[]): LeadIndex {
  const index: LeadIndex = {
    always: [],
    digit: [],
    single: new Array(128).fill(undefined),
    pairs: new Array(128 * 128).fill(undefined),
  };
  rules.forEach((rule, i) => {
    const leads = patternLeads(rule.pattern);
    if (leads === 'any') {
      index.always.push(i);
      return;
    }
    for (const lead of leads) {
      if (lead === DIGIT) index.digit.push(i);
      else if (lead.length === 1) pushAt(index.single, lead.charCodeAt(0), i);
      else pushAt(index.pairs, pairKey(lead.charCodeAt(0), lead.charCodeAt(1)), { lead, rule: i });
    }
  });
  return index;
}

function pushAt<T>(lists: (T[] | undefined)[], at: number, item: T): void {
  const list = lists[at];
  if (list) list.push(item);
  else lists[at] = [item];
}

const pairKey = (a: number, b: number): number => a * 128 + b;

const LEADS = buildLeadIndex(KEYWORD_RULES);

/**
 * Each rule's pattern, anchored where it is tried (sticky). A match's first word character is at a
 * word start carrying one of the rule's leads; the match begins there, or one character earlier
 * when the pattern opens with `(?:^|\s)` and took the whitespace. Trying the pattern only at those
 * places decides the same as searching the whole text, without scanning it once per rule.
 */
const ANCHORED = KEYWORD_RULES.map(
  (rule) => new RegExp(rule.pattern.source, `${rule.pattern.flags.replace(/[gy]/g, '')}y`),
);
const AFTER_SPACE = KEYWORD_RULES.map((rule) => rule.pattern.source.includes(BOUNDARY_GROUP));
const SPACE = /\s/y;

function matchesAt(rule: number, text: string, p: number): boolean {
  const pattern = ANCHORED[rule] as RegExp;
  pattern.lastIndex = p;
  if (pattern.test(text)) return true;
  if (p === 0 || !AFTER_SPACE[rule]) return false;
  SPACE.lastIndex = p - 1;
  if (!SPACE.test(text)) return false;
  pattern.lastIndex = p - 1;
  return pattern.test(text);
}

/** The (rule, word start) pairs of one text, in a buffer reused from text to text. */
interface Starts {
  count: number;
  rules: Int32Array;
  starts: Int32Array;
}
const found: Starts = { count: 0, rules: new Int32Array(256), starts: new Int32Array(256) };
/** Per rule, the text (`stamp`) it last matched in and the text and word start it was last noted at. */
const matched = new Int32Array(KEYWORD_RULES.length);
const notedIn = new Int32Array(KEYWORD_RULES.length);
const notedAt = new Int32Array(KEYWORD_RULES.length);
let stamp = 0;
const MAX_STAMP = 0x7fffffff;

function isWordCode(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || (c >= 97 && c <= 122);
}

/** Where in `text` each rule may match: the word starts beginning with one of its leads (a shared buffer). */
function candidateStarts(text: string): Starts {
  if (stamp === MAX_STAMP) {
    // Two billion texts on: start the stamps again rather than let the Int32Arrays wrap around.
    stamp = 0;
    matched.fill(0);
    notedIn.fill(0);
  }
  stamp += 1;
  found.count = 0;
  let prevWord = false;
  for (let p = 0; p < text.length; p++) {
    const c = text.charCodeAt(p);
    const word = isWordCode(c);
    if (word && !prevWord) markWord(text, p, c);
    prevWord = word;
  }
  return found;
}

/** Notes the rules whose leads the word starting at `p` (first character code `c`) begins with. */
function markWord(text: string, p: number, c: number): void {
  if (c >= 48 && c <= 57) for (const i of LEADS.digit) note(i, p);
  const single = LEADS.single[c];
  if (single) for (const i of single) note(i, p);
  const next = text.charCodeAt(p + 1);
  if (!isWordCode(next)) return;
  const pairs = LEADS.pairs[pairKey(c, next)];
  if (pairs === undefined) return;
  for (const { lead, rule } of pairs) if (text.startsWith(lead, p)) note(rule, p);
}

function note(rule: number, p: number): void {
  if (notedIn[rule] === stamp && notedAt[rule] === p) return;
  notedIn[rule] = stamp;
  notedAt[rule] = p;
  if (found.count === found.rules.length) {
    const rules = new Int32Array(found.count * 2);
    const starts = new Int32Array(found.count * 2);
    rules.set(found.rules);
    starts.set(found.starts);
    found.rules = rules;
    found.starts = starts;
  }
  found.rules[found.count] = rule;
  found.starts[found.count] = p;
  found.count += 1;
}
