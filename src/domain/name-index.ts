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
  /** Which rule gave the similarity (diagnostics and the resolver's conflict check). */
  rule?: SimilarityRule;
}

export type SimilarityRule = 'exact' | 'prefix' | 'brand' | 'jaccard';

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
/**
 * Generic words that qualify a subsidiary of a company rather than form a different company's name:
 * "HONEYWELL INTERNATIONAL", "OSHKOSH DEFENSE", "CACI INC FEDERAL", "DELL FEDERAL SYSTEMS". The other
 * generic words (GROUP, INDUSTRIES, RESEARCH, ASSOCIATES …) and initials do form names: "EASTERN
 * RESEARCH GROUP" is not The Eastern Company, "R A MILLER INDUSTRIES" is not Miller Industries.
 */
// biome-ignore format: keep the word list compact
const QUALIFIER_WORDS = new Set([
  'AND', 'OF', 'THE', 'FOR', 'DE',
  'SYSTEMS', 'SYSTEM', 'TECHNOLOGIES', 'TECHNOLOGY', 'SERVICES', 'SERVICE', 'SOLUTIONS',
  'INTERNATIONAL', 'DEFENSE', 'FEDERAL', 'GLOBAL', 'OPERATIONS', 'GOVERNMENT', 'MISSION', 'INTEGRATED',
  'AMERICA', 'AMERICAS', 'NORTH', 'US', 'USA', 'WORLDWIDE',
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
/**
 * A recipient that starts with a curated family's brand is most likely another member of that
 * family: "L3HARRIS MARITIME SERVICES" when "L3HARRIS GLOBAL COMMUNICATIONS" is an alias of LHX,
 * "HII NUCLEAR" when "HII FLEET SUPPORT GROUP" is one of HII. The brand = the leading words shared
 * with an alias of the ticker, found in no other ticker's names. Uniqueness among company names
 * alone is not enough: "CAPITOL SUPPLY" is not Capitol Federal, "FULCRUM IT" is not Fulcrum
 * Therapeutics. Weaker evidence than a full-name prefix: it lands just above the default threshold.
 */
const BRAND_SIMILARITY = 0.85;
/**
 * A one-word brand is backed by two aliases starting with it ("HII FLEET SUPPORT GROUP", "HII
 * TECHNICAL SOLUTIONS"), or by one where it is the whole distinctive head ("PALANTIR TECHNOLOGIES",
 * "FLUOR FEDERAL SERVICES") and it is at least LONG_BRAND_LENGTH long; "PRATT & WHITNEY" does not
 * make PRATT a brand (Pratt & Miller is Oshkosh's), "TRU SIMULATION" does not make TRU one.
 */
const MIN_BRAND_LENGTH = 3;
const LONG_BRAND_LENGTH = 5;
/** Connectors join two names rather than qualify one. */
const CONNECTORS = new Set(['AND', 'OF', 'THE', 'FOR', 'DE']);
/** Leading-word sequences indexed for the brand check. */
const MAX_BRAND_WORDS = 3;

interface IndexedEntry extends NameEntry {
  norm: string;
  tokenSet: Set<string>;
  /** The distinct tokens, with their weights and whether each is generic (precomputed for speed). */
  unique: string[];
  uniqueWeights: number[];
  uniqueGeneric: boolean[];
  weight: number;
  distinctive: boolean;
  order: number;
}

interface BrandSupport {
  aliases: number;
  heads: number;
}

interface IndexData {
  entries: IndexedEntry[];
  weights: Map<string, number>;
  unknownWeight: number;
  postings: Map<string, number[]>;
  /** Token → tickers whose entries contain it anywhere. */
  tokenTickers: Map<string, Set<string>>;
  /** First 1..MAX_BRAND_WORDS tokens of an entry, joined → tickers whose entries start so. */
  leadTickers: Map<string, Set<string>>;
  /** The same for alias entries only: per ticker, how many aliases start so, and in how many the lead is the whole head. */
  aliasLeadTickers: Map<string, Map<string, BrandSupport>>;
  /** Per entry, the last query that collected it (deduplicates candidates without a Set). */
  stamps: Int32Array;
  query: number;
}

export function buildNameIndex(entries: readonly NameEntry[]): NameIndex {
  const data = indexData(entries);
  return {
    rank(tokens) {
      const input = describeInput(tokens, data);
      if (input.weight === 0) return [];
      // Keep the TOP_K best in order as they come: same result as sorting every candidate.
      const top: { entry: IndexedEntry; similarity: number }[] = [];
      for (const entry of collectCandidates(input, data)) {
        const similarity = similarityOf(input, entry, data);
        if (similarity <= 0) continue;
        const last = top.length === TOP_K ? top[TOP_K - 1] : undefined;
        if (last !== undefined && byRank(entry, similarity, last) >= 0) continue;
        if (last !== undefined) top.pop();
        let at = top.length;
        while (at > 0 && byRank(entry, similarity, top[at - 1] as (typeof top)[number]) < 0) at -= 1;
        top.splice(at, 0, { entry, similarity });
      }
      return top.map(({ entry, similarity }) => ({
        ticker: entry.ticker,
        norm: entry.norm,
        kind: entry.kind,
        similarity,
        rule: ruleOf(input, entry, data, similarity),
      }));
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
    ...tickerMaps(indexed),
    stamps: new Int32Array(indexed.length),
    query: 0,
  };
}

function tickerMaps(
  entries: readonly IndexedEntry[],
): Pick<IndexData, 'tokenTickers' | 'leadTickers' | 'aliasLeadTickers'> {
  const tokenTickers = new Map<string, Set<string>>();
  const leadTickers = new Map<string, Set<string>>();
  const aliasLeadTickers = new Map<string, Map<string, BrandSupport>>();
  const note = (map: Map<string, Set<string>>, key: string, ticker: string): void => {
    const set = map.get(key);
    if (set === undefined) map.set(key, new Set([ticker]));
    else set.add(ticker);
  };
  for (const entry of entries) {
    for (const token of entry.tokenSet) note(tokenTickers, token, entry.ticker);
    for (let n = 1; n <= Math.min(MAX_BRAND_WORDS, entry.tokens.length); n++) {
      const lead = entry.tokens.slice(0, n).join(' ');
      note(leadTickers, lead, entry.ticker);
      if (entry.kind === 'alias') {
        const byTicker = aliasLeadTickers.get(lead) ?? new Map<string, BrandSupport>();
        const support = byTicker.get(entry.ticker) ?? { aliases: 0, heads: 0 };
        const next = entry.tokens[n];
        support.aliases += 1;
        if (next === undefined || (isQualifier(next) && !CONNECTORS.has(next))) support.heads += 1;
        byTicker.set(entry.ticker, support);
        aliasLeadTickers.set(lead, byTicker);
      }
    }
  }
  return { tokenTickers, leadTickers, aliasLeadTickers };
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
  const unique = [...tokenSet];
  const uniqueWeights = unique.map(weightOf);
  return {
    ...entry,
    norm: entry.tokens.join(' '),
    tokenSet,
    unique,
    uniqueWeights,
    uniqueGeneric: unique.map(isGeneric),
    weight: uniqueWeights.reduce((a, b) => a + b, 0),
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
  /** The distinct tokens, in order (iterating an array is cheaper than a Set). */
  unique: string[];
  weight: number;
}

function describeInput(tokens: readonly string[], data: IndexData): InputName {
  const tokenSet = new Set(tokens);
  let weight = 0;
  for (const token of tokenSet) {
    // A word no indexed name contains is rare, hence telling — unless it is a generic word.
    weight +=
      data.weights.get(token) ??
      (isGeneric(token) ? data.unknownWeight * GENERIC_FACTOR : data.unknownWeight);
  }
  return { tokens, norm: tokens.join(' '), tokenSet, unique: [...tokenSet], weight };
}

/** Generic words would pull in thousands of candidates that can never win; skip them when we can. */
function collectCandidates(input: InputName, data: IndexData): IndexedEntry[] {
  const distinctive = input.unique.filter((t) => !isGeneric(t));
  const keys = distinctive.length > 0 ? distinctive : input.unique;
  data.query = data.query === 0x7fffffff ? 1 : data.query + 1;
  const stamp = data.query;
  const out: IndexedEntry[] = [];
  for (const token of keys) {
    const list = data.postings.get(token);
    if (list === undefined || list.length > MAX_POSTINGS) continue;
    for (const i of list) {
      if (data.stamps[i] === stamp) continue;
      data.stamps[i] = stamp;
      const entry = data.entries[i];
      if (entry !== undefined) out.push(entry);
    }
  }
  return out;
}

function similarityOf(input: InputName, entry: IndexedEntry, data: IndexData): number {
  if (input.norm === entry.norm) return 1;
  const best = Math.max(cappedJaccard(input, entry), prefixSimilarity(input, entry));
  if (best < BRAND_SIMILARITY && brandMatch(input, entry, data)) return BRAND_SIMILARITY;
  return best;
}

/** Which rule gave `similarity` (the same order of precedence as similarityOf). */
function ruleOf(input: InputName, entry: IndexedEntry, data: IndexData, similarity: number): SimilarityRule {
  if (input.norm === entry.norm) return 'exact';
  const jaccard = cappedJaccard(input, entry);
  const prefix = prefixSimilarity(input, entry);
  if (
    Math.max(jaccard, prefix) < BRAND_SIMILARITY &&
    similarity === BRAND_SIMILARITY &&
    brandMatch(input, entry, data)
  ) {
    return 'brand';
  }
  return prefix > jaccard ? 'prefix' : 'jaccard';
}

/**
 * The input starts with the entry's leading words (or is them); an alias of the
 * entry's ticker starts with the same words; and they belong to that ticker alone: one word of
 * MIN_BRAND_LENGTH+ characters found in no other ticker's names, or two-three words (one of them
 * distinctive) no other ticker's name starts with.
 */
function brandMatch(input: InputName, entry: IndexedEntry, data: IndexData): boolean {
  const limit = Math.min(MAX_BRAND_WORDS, entry.tokens.length, input.tokens.length);
  let shared = 0;
  while (shared < limit && entry.tokens[shared] === input.tokens[shared]) shared += 1;
  // "PRATT AND MILLER" shares "PRATT AND" with "PRATT AND WHITNEY": the brand would be PRATT.
  while (shared > 0 && CONNECTORS.has(entry.tokens[shared - 1] ?? '')) shared -= 1;
  // The whole input may be the brand ("AEROJET ROCKETDYNE" for "AEROJET ROCKETDYNE COLEMAN
  // AEROSPACE"), but something must differ: equal names are the exact rule's.
  if (shared === 0 || (shared === input.tokens.length && shared === entry.tokens.length)) return false;
  const lead = entry.tokens.slice(0, shared);
  if (!lead.some((t) => !isGeneric(t))) return false;
  const key = lead.join(' ');
  const support = data.aliasLeadTickers.get(key)?.get(entry.ticker);
  if (support === undefined) return false;
  if (shared === 1) {
    const [word = ''] = lead;
    const backed = support.aliases >= 2 || (support.heads >= 1 && word.length >= LONG_BRAND_LENGTH);
    if (word.length < MIN_BRAND_LENGTH || !backed) return false;
    return (data.tokenTickers.get(word)?.size ?? 0) === 1;
  }
  return (data.leadTickers.get(key)?.size ?? 0) === 1;
}

function cappedJaccard(input: InputName, entry: IndexedEntry): number {
  let shared = 0;
  let distinctiveShared = 0;
  let only = '';
  for (let i = 0; i < entry.unique.length; i++) {
    const token = entry.unique[i] ?? '';
    if (!input.tokenSet.has(token)) continue;
    shared += entry.uniqueWeights[i] ?? 0;
    if (!entry.uniqueGeneric[i]) {
      distinctiveShared += 1;
      only = token;
    }
  }
  const jaccard = shared / (input.weight + entry.weight - shared);
  if (distinctiveShared >= 2) return jaccard;
  if (
    distinctiveShared === 1 &&
    only.length >= MIN_SINGLE_WORD_LENGTH &&
    differsByGenericOnly(input, entry)
  ) {
    return jaccard;
  }
  return Math.min(jaccard, SINGLE_WORD_CAP);
}

/**
 * One name's words are all in the other, and the extra words qualify a subsidiary (see
 * QUALIFIER_WORDS) or are legal suffix words left mid-name: "HONEYWELL" and "HONEYWELL
 * INTERNATIONAL", "OSHKOSH DEFENSE" and "OSHKOSH". Not two different extras: "TRITON SYSTEMS" and
 * "TRITON INTERNATIONAL" are two firms.
 */
function differsByGenericOnly(input: InputName, entry: IndexedEntry): boolean {
  return input.unique.length <= entry.unique.length
    ? extrasQualify(input.unique, input.tokenSet, entry.unique, entry.tokenSet)
    : extrasQualify(entry.unique, entry.tokenSet, input.unique, input.tokenSet);
}

function extrasQualify(
  small: readonly string[],
  smallSet: ReadonlySet<string>,
  large: readonly string[],
  largeSet: ReadonlySet<string>,
): boolean {
  for (const token of small) if (!largeSet.has(token)) return false;
  for (const token of large) if (!smallSet.has(token) && !isQualifier(token)) return false;
  return true;
}

function isQualifier(token: string): boolean {
  return QUALIFIER_WORDS.has(token) || (LEGAL_SUFFIX_WORDS.has(token) && token.length > 1);
}

/**
 * Subsidiaries are named "<parent> <division>". A curated alias may be one word ("BOEING"); a
 * company's own name needs two words and a mostly generic tail, so "NATIONAL STEEL AND
 * SHIPBUILDING" is not National Steel and "APPLE VALLEY FARMS" is not Apple.
 */
function prefixSimilarity(input: InputName, entry: IndexedEntry): number {
  if (!entry.distinctive || entry.tokens.length >= input.tokens.length) return 0;
  for (let i = 0; i < entry.tokens.length; i++) if (input.tokens[i] !== entry.tokens[i]) return 0;
  const coverage = Math.min(entry.weight / input.weight, 1);
  if (entry.kind === 'name' && (entry.tokens.length < 2 || coverage < MIN_NAME_PREFIX_COVERAGE)) return 0;
  return PREFIX_BASE + PREFIX_SPAN * coverage;
}

/** Higher similarity first; on a tie a curated alias beats a name, then input order decides. */
function byRank(
  entry: IndexedEntry,
  similarity: number,
  b: { entry: IndexedEntry; similarity: number },
): number {
  if (b.similarity !== similarity) return b.similarity - similarity;
  if (entry.kind !== b.entry.kind) return entry.kind === 'alias' ? -1 : 1;
  return entry.order - b.entry.order;
}
