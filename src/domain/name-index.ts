import { LEGAL_SUFFIX_WORDS } from './names.ts';

/**
 * Weighted token index behind the resolver's fuzzy step. Token weights are IDF over the index,
 * scaled down for words that say nothing about which company it is, so that "GENERAL DYNAMICS"
 * and "GENERAL MILLS" share almost no weight while "NORTHROP GRUMMAN SYSTEMS" still matches
 * "NORTHROP GRUMMAN".
 */

export interface NameEntry {
  ticker: string;
  tokens: string[];
  kind: 'alias' | 'name';
}

export interface RankedCandidate {
  ticker: string;
  norm: string;
  kind: 'alias' | 'name';
  similarity: number;
}

export interface NameIndex {
  /** Best candidates first; at most a handful. */
  rank(tokens: readonly string[]): RankedCandidate[];
}

// biome-ignore format: keep the word list compact
const GENERIC_WORDS = new Set([
  'AND', 'OF', 'THE', 'FOR', 'DE', 'A',
  'SYSTEMS', 'SYSTEM', 'TECHNOLOGIES', 'TECHNOLOGY', 'SERVICES', 'SERVICE', 'SOLUTIONS',
  'INTERNATIONAL', 'DEFENSE', 'FEDERAL', 'GLOBAL', 'GROUP', 'INDUSTRIES', 'ENTERPRISES',
  'ENTERPRISE', 'PARTNERS', 'ASSOCIATES', 'MANAGEMENT', 'CONSULTING', 'ENGINEERING', 'RESEARCH',
  'SCIENCES', 'SCIENCE', 'INFORMATION', 'INTEGRATED', 'OPERATIONS', 'GOVERNMENT', 'NATIONAL', 'MISSION',
  'AMERICA', 'AMERICAN', 'AMERICAS', 'NORTH', 'US', 'USA', 'UNITED', 'STATES', 'GENERAL',
  'ADVANCED', 'TRUST', 'FUND', 'CAPITAL', 'INVESTMENT', 'WORLDWIDE', 'PRODUCTS',
]);
const GENERIC_FACTOR = 0.1;
/** Posting lists longer than this are not used to find candidates (they would be all generic). */
const MAX_POSTINGS = 3000;
const TOP_K = 5;
/** A recipient that starts with a known name ("LOCKHEED MARTIN AERONAUTICS") scores from here up. */
const PREFIX_BASE = 0.84;
const PREFIX_SPAN = 0.12;
/** A company name's prefix only counts when what follows it is mostly generic words. */
const MIN_NAME_PREFIX_COVERAGE = 0.6;
/**
 * One shared distinctive word is not enough on its own: "TRITON SYSTEMS" is not Triton
 * International and "FUSION TECHNOLOGY" is not American Fusion. Such pairs stay just under the
 * default threshold unless one name is the other plus generic words ("HONEYWELL" and "HONEYWELL
 * INTERNATIONAL") and the shared word is longer than an acronym ("SOS INTERNATIONAL" ≠ SOS Ltd).
 */
const SINGLE_WORD_CAP = 0.8;
const MIN_SINGLE_WORD_LENGTH = 4;

interface IndexedEntry extends NameEntry {
  norm: string;
  tokenSet: Set<string>;
  weight: number;
  distinctive: boolean;
  order: number;
}

interface IndexData {
  entries: IndexedEntry[];
  weights: Map<string, number>;
  unknownWeight: number;
  postings: Map<string, number[]>;
}

export function buildNameIndex(entries: readonly NameEntry[]): NameIndex {
  const data = indexData(entries);
  return {
    rank(tokens) {
      const input = describeInput(tokens, data);
      if (input.weight === 0) return [];
      const ranked: (RankedCandidate & { order: number })[] = [];
      for (const entry of collectCandidates(input, data)) {
        const similarity = similarityOf(input, entry, data);
        if (similarity > 0) {
          ranked.push({
            ticker: entry.ticker,
            norm: entry.norm,
            kind: entry.kind,
            similarity,
            order: entry.order,
          });
        }
      }
      ranked.sort(byRank);
      return ranked.slice(0, TOP_K).map(({ order: _order, ...rest }) => rest);
    },
  };
}

function indexData(entries: readonly NameEntry[]): IndexData {
  const df = documentFrequencies(entries);
  const total = entries.length;
  const weights = new Map<string, number>();
  for (const [token, count] of df) weights.set(token, tokenWeight(token, count, total));
  const weightOf = (t: string): number => weights.get(t) ?? 0;
  const indexed = entries.map((entry, order) => indexEntry(entry, order, weightOf));
  return {
    entries: indexed,
    weights,
    unknownWeight: Math.log(total + 1) + 1,
    postings: buildPostings(indexed),
  };
}

function isGeneric(token: string): boolean {
  return GENERIC_WORDS.has(token) || LEGAL_SUFFIX_WORDS.has(token) || token.length === 1;
}

function tokenWeight(token: string, df: number, total: number): number {
  const idf = Math.log((total + 1) / (df + 1)) + 1;
  return isGeneric(token) ? idf * GENERIC_FACTOR : idf;
}

function documentFrequencies(entries: readonly NameEntry[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const entry of entries) {
    for (const token of new Set(entry.tokens)) df.set(token, (df.get(token) ?? 0) + 1);
  }
  return df;
}

function indexEntry(entry: NameEntry, order: number, weightOf: (t: string) => number): IndexedEntry {
  const tokenSet = new Set(entry.tokens);
  let weight = 0;
  for (const token of tokenSet) weight += weightOf(token);
  return {
    ...entry,
    norm: entry.tokens.join(' '),
    tokenSet,
    weight,
    distinctive: entry.tokens.some((t) => !isGeneric(t)),
    order,
  };
}

function buildPostings(entries: readonly IndexedEntry[]): Map<string, number[]> {
  const postings = new Map<string, number[]>();
  entries.forEach((entry, i) => {
    for (const token of entry.tokenSet) {
      const list = postings.get(token);
      if (list === undefined) postings.set(token, [i]);
      else list.push(i);
    }
  });
  return postings;
}

interface InputName {
  tokens: readonly string[];
  norm: string;
  tokenSet: Set<string>;
  weight: number;
}

function describeInput(tokens: readonly string[], data: IndexData): InputName {
  const tokenSet = new Set(tokens);
  let weight = 0;
  for (const token of tokenSet) weight += data.weights.get(token) ?? data.unknownWeight;
  return { tokens, norm: tokens.join(' '), tokenSet, weight };
}

/** Generic words would pull in thousands of candidates that can never win; skip them when we can. */
function collectCandidates(input: InputName, data: IndexData): IndexedEntry[] {
  const distinctive = [...input.tokenSet].filter((t) => !isGeneric(t));
  const keys = distinctive.length > 0 ? distinctive : [...input.tokenSet];
  const seen = new Set<number>();
  for (const token of keys) {
    const list = data.postings.get(token);
    if (list === undefined || list.length > MAX_POSTINGS) continue;
    for (const i of list) seen.add(i);
  }
  const out: IndexedEntry[] = [];
  for (const i of seen) {
    const entry = data.entries[i];
    if (entry !== undefined) out.push(entry);
  }
  return out;
}

function similarityOf(input: InputName, entry: IndexedEntry, data: IndexData): number {
  if (input.norm === entry.norm) return 1;
  return Math.max(cappedJaccard(input, entry, data), prefixSimilarity(input, entry));
}

function cappedJaccard(input: InputName, entry: IndexedEntry, data: IndexData): number {
  let shared = 0;
  const sharedDistinctive: string[] = [];
  for (const token of entry.tokenSet) {
    if (!input.tokenSet.has(token)) continue;
    shared += data.weights.get(token) ?? 0;
    if (!isGeneric(token)) sharedDistinctive.push(token);
  }
  const jaccard = shared / (input.weight + entry.weight - shared);
  const [only] = sharedDistinctive;
  if (sharedDistinctive.length >= 2) return jaccard;
  if (only !== undefined && only.length >= MIN_SINGLE_WORD_LENGTH && differsByGenericOnly(input, entry)) {
    return jaccard;
  }
  return Math.min(jaccard, SINGLE_WORD_CAP);
}

/** One name's words are all in the other, and the extra words are generic. */
function differsByGenericOnly(input: InputName, entry: IndexedEntry): boolean {
  const [small, large] =
    input.tokenSet.size <= entry.tokenSet.size
      ? [input.tokenSet, entry.tokenSet]
      : [entry.tokenSet, input.tokenSet];
  for (const token of small) if (!large.has(token)) return false;
  for (const token of large) if (!small.has(token) && !isGeneric(token)) return false;
  return true;
}

/**
 * Subsidiaries are named "<parent> <division>". A curated alias may be one word ("BOEING"); a
 * company's own name needs two words and a mostly generic tail, so "NATIONAL STEEL AND
 * SHIPBUILDING" is not National Steel and "APPLE VALLEY FARMS" is not Apple.
 */
function prefixSimilarity(input: InputName, entry: IndexedEntry): number {
  if (!entry.distinctive || entry.tokens.length >= input.tokens.length) return 0;
  if (!entry.tokens.every((t, i) => input.tokens[i] === t)) return 0;
  const coverage = Math.min(entry.weight / input.weight, 1);
  if (entry.kind === 'name' && (entry.tokens.length < 2 || coverage < MIN_NAME_PREFIX_COVERAGE)) return 0;
  return PREFIX_BASE + PREFIX_SPAN * coverage;
}

/** Higher similarity first; on a tie a curated alias beats a name, then input order decides. */
function byRank(a: RankedCandidate & { order: number }, b: RankedCandidate & { order: number }): number {
  if (b.similarity !== a.similarity) return b.similarity - a.similarity;
  if (a.kind !== b.kind) return a.kind === 'alias' ? -1 : 1;
  return a.order - b.order;
}
