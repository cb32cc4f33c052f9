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

/**
 * Tokens are numbered when the index is built, so that a query compares and marks small integers
 * instead of hashing strings. A word that no indexed name contains is UNKNOWN: equal to no entry's.
 */
const UNKNOWN = -1;

interface TokenTable {
  ids: Map<string, number>;
  weights: Float64Array;
  generic: Uint8Array;
  qualifier: Uint8Array;
  connector: Uint8Array;
  lengths: Int32Array;
}

interface IndexedEntry {
  ticker: string;
  kind: 'alias' | 'name';
  norm: string;
  /** Token ids in name order (prefix and brand rules). */
  ids: Int32Array;
  /** The distinct token ids, in name order (the Jaccard rule). */
  uniqueIds: Int32Array;
  weight: number;
  distinctive: boolean;
  /** brandLeads[n] is 1 when the first n words (1..MAX_BRAND_WORDS) are a brand of this ticker alone. */
  brandLeads: Uint8Array;
  order: number;
}

interface BrandSupport {
  aliases: number;
  heads: number;
}

interface IndexData {
  entries: IndexedEntry[];
  tokens: TokenTable;
  unknownWeight: number;
  /** Token id → indexes of the entries that contain it. */
  postings: Int32Array[];
  /** Per entry, the last query that collected it (deduplicates candidates without a Set). */
  entryStamps: Int32Array;
  /** Per token, the last query that contained it (the query's token set without a Set). */
  tokenStamps: Int32Array;
  query: number;
}

interface Ranked {
  entry: IndexedEntry;
  similarity: number;
}

export function buildNameIndex(entries: readonly NameEntry[]): NameIndex {
  const data = indexData(entries);
  return {
    rank(tokens) {
      const input = describeInput(tokens, data);
      if (input.weight === 0) return [];
      const ranked: RankedCandidate[] = [];
      for (const { entry, similarity } of bestCandidates(input, data)) {
        const rule = ruleOf(input, entry, data, similarity);
        ranked.push({ ticker: entry.ticker, norm: entry.norm, kind: entry.kind, similarity, rule });
      }
      return ranked;
    },
  };
}

/**
 * Every entry that shares a key token with the input, once, ranked; overlong posting lists are
 * skipped. Rarest keys first: an entry first met in a later list lacks every earlier key, so the
 * weight it can share is bounded by what is left, and once TOP_K are kept, an entry whose bound
 * cannot reach the last of them is not scored. Plain loops throughout: under tsx (esbuild's keepNames)
 * every closure created per query or per candidate also pays a defineProperty call.
 */
function bestCandidates(input: InputName, data: IndexData): Ranked[] {
  const { entryStamps, entries, query } = data;
  const top: Ranked[] = [];
  let reachable = input.knownWeight;
  for (const key of keysRarestFirst(input, data)) {
    const list = data.postings[key] ?? EMPTY;
    for (let k = 0; k < list.length; k++) {
      const i = list[k] ?? 0;
      if (entryStamps[i] === query) continue;
      entryStamps[i] = query;
      const entry = entries[i];
      if (entry === undefined) continue;
      const last = top.length === TOP_K ? top[TOP_K - 1] : undefined;
      // Different first words rule out the exact, prefix and brand rules: only Jaccard is left.
      if (
        last !== undefined &&
        entry.ids[0] !== input.ids[0] &&
        jaccardBound(input, entry, reachable) < last.similarity - ROUNDING_SLACK
      ) {
        continue;
      }
      const similarity = similarityOf(input, entry, data);
      if (similarity > 0) keepBest(top, entry, similarity);
    }
    reachable -= data.tokens.weights[key] ?? 0;
  }
  return top;
}

const EMPTY = new Int32Array(0);
/** The bound and the similarity add weights in different orders. */
const ROUNDING_SLACK = 1e-9;

/** The input's key tokens with a usable posting list, shortest list first. */
function keysRarestFirst(input: InputName, data: IndexData): number[] {
  const keys: number[] = [];
  for (const key of input.keys) {
    const length = data.postings[key]?.length ?? 0;
    if (length > MAX_POSTINGS) continue;
    let at = keys.length;
    while (at > 0 && (data.postings[keys[at - 1] ?? 0]?.length ?? 0) > length) at -= 1;
    keys.splice(at, 0, key);
  }
  return keys;
}

/** The most Jaccard similarity an entry can reach when it shares at most `reachable` weight. */
function jaccardBound(input: InputName, entry: IndexedEntry, reachable: number): number {
  const shared = Math.min(reachable, entry.weight, input.weight);
  return shared / (input.weight + entry.weight - shared);
}

/** Keeps the TOP_K best in order as they come: the same result as sorting every candidate. */
function keepBest(top: Ranked[], entry: IndexedEntry, similarity: number): void {
  const last = top.length === TOP_K ? top[TOP_K - 1] : undefined;
  if (last !== undefined && byRank(entry, similarity, last) >= 0) return;
  if (last !== undefined) top.pop();
  let at = top.length;
  while (at > 0 && byRank(entry, similarity, top[at - 1] as Ranked) < 0) at -= 1;
  top.splice(at, 0, { entry, similarity });
}

function indexData(entries: readonly NameEntry[]): IndexData {
  const tokens = tokenTable(entries);
  const brands = brandTables(entries);
  const indexed = entries.map((entry, order) => indexEntry(entry, order, tokens, brands));
  return {
    entries: indexed,
    tokens,
    unknownWeight: Math.log(entries.length + 1) + 1,
    postings: buildPostings(indexed, tokens.ids.size),
    entryStamps: new Int32Array(indexed.length),
    tokenStamps: new Int32Array(tokens.ids.size),
    query: 0,
  };
}

function tokenTable(entries: readonly NameEntry[]): TokenTable {
  const df = documentFrequencies(entries);
  const size = df.size;
  const table: TokenTable = {
    ids: new Map(),
    weights: new Float64Array(size),
    generic: new Uint8Array(size),
    qualifier: new Uint8Array(size),
    connector: new Uint8Array(size),
    lengths: new Int32Array(size),
  };
  for (const [token, count] of df) {
    const id = table.ids.size;
    table.ids.set(token, id);
    table.weights[id] = tokenWeight(token, count, entries.length);
    table.generic[id] = isGeneric(token) ? 1 : 0;
    table.qualifier[id] = isQualifier(token) ? 1 : 0;
    table.connector[id] = CONNECTORS.has(token) ? 1 : 0;
    table.lengths[id] = token.length;
  }
  return table;
}

interface BrandTables {
  /** Token → tickers whose entries contain it anywhere. */
  tokenTickers: Map<string, Set<string>>;
  /** First 1..MAX_BRAND_WORDS tokens of an entry, joined → tickers whose entries start so. */
  leadTickers: Map<string, Set<string>>;
  /** The same for alias entries only: per ticker, how many aliases start so, and in how many the lead is the whole head. */
  aliasLeadTickers: Map<string, Map<string, BrandSupport>>;
}

function brandTables(entries: readonly NameEntry[]): BrandTables {
  const tokenTickers = new Map<string, Set<string>>();
  const leadTickers = new Map<string, Set<string>>();
  const aliasLeadTickers = new Map<string, Map<string, BrandSupport>>();
  const note = (map: Map<string, Set<string>>, key: string, ticker: string): void => {
    const set = map.get(key);
    if (set === undefined) map.set(key, new Set([ticker]));
    else set.add(ticker);
  };
  for (const entry of entries) {
    for (const token of entry.tokens) note(tokenTickers, token, entry.ticker);
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

/**
 * Whether the entry's first n words are its ticker's brand: an alias of the ticker starts with the
 * same words, and they belong to that ticker alone: one word of MIN_BRAND_LENGTH+ characters found
 * in no other ticker's names, or two-three words (one of them distinctive) no other ticker's name
 * starts with.
 */
function isBrandLead(entry: NameEntry, n: number, tables: BrandTables): boolean {
  const lead = entry.tokens.slice(0, n);
  if (!lead.some((t) => !isGeneric(t))) return false;
  const key = lead.join(' ');
  const support = tables.aliasLeadTickers.get(key)?.get(entry.ticker);
  if (support === undefined) return false;
  if (n === 1) {
    const [word = ''] = lead;
    const backed = support.aliases >= 2 || (support.heads >= 1 && word.length >= LONG_BRAND_LENGTH);
    if (word.length < MIN_BRAND_LENGTH || !backed) return false;
    return (tables.tokenTickers.get(word)?.size ?? 0) === 1;
  }
  return (tables.leadTickers.get(key)?.size ?? 0) === 1;
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

function indexEntry(entry: NameEntry, order: number, tokens: TokenTable, brands: BrandTables): IndexedEntry {
  const idOf = (t: string): number => tokens.ids.get(t) ?? UNKNOWN;
  const uniqueIds = Int32Array.from(new Set(entry.tokens), idOf);
  let weight = 0;
  for (const id of uniqueIds) weight += tokens.weights[id] ?? 0;
  const brandLeads = new Uint8Array(MAX_BRAND_WORDS + 1);
  for (let n = 1; n <= Math.min(MAX_BRAND_WORDS, entry.tokens.length); n++) {
    brandLeads[n] = isBrandLead(entry, n, brands) ? 1 : 0;
  }
  return {
    ticker: entry.ticker,
    kind: entry.kind,
    norm: entry.tokens.join(' '),
    ids: Int32Array.from(entry.tokens, idOf),
    uniqueIds,
    weight,
    distinctive: entry.tokens.some((t) => !isGeneric(t)),
    brandLeads,
    order,
  };
}

function buildPostings(entries: readonly IndexedEntry[], tokenCount: number): Int32Array[] {
  const lists: number[][] = Array.from({ length: tokenCount }, () => []);
  entries.forEach((entry, i) => {
    for (const id of entry.uniqueIds) lists[id]?.push(i);
  });
  return lists.map((list) => Int32Array.from(list));
}

interface InputName {
  norm: string;
  /** Token ids in order; UNKNOWN for words no indexed name contains. */
  ids: number[];
  /** The distinct tokens in order (two unknown words stay two), and whether each qualifies a name. */
  uniqueIds: number[];
  uniqueQualifier: boolean[];
  /** The tokens whose postings give the candidates. */
  keys: number[];
  weight: number;
  /** The part of the weight an indexed name can share: that of the known words. */
  knownWeight: number;
}

/** Starts a query: its tokens are stamped in data.tokenStamps until the next one. */
function describeInput(tokens: readonly string[], data: IndexData): InputName {
  const stamp = nextQuery(data);
  const { weights, generic } = data.tokens;
  const unique = [...new Set(tokens)];
  const uniqueIds: number[] = [];
  const uniqueQualifier: boolean[] = [];
  let weight = 0;
  let knownWeight = 0;
  let distinctive = false;
  for (const token of unique) {
    const id = tokenId(data, token);
    uniqueIds.push(id);
    uniqueQualifier.push(isQualifier(token));
    const tokenGeneric = id === UNKNOWN ? isGeneric(token) : generic[id] === 1;
    if (!tokenGeneric) distinctive = true;
    // A word no indexed name contains is rare, hence telling — unless it is a generic word.
    if (id !== UNKNOWN) {
      weight += weights[id] ?? 0;
      knownWeight += weights[id] ?? 0;
      data.tokenStamps[id] = stamp;
    } else weight += tokenGeneric ? data.unknownWeight * GENERIC_FACTOR : data.unknownWeight;
  }
  // Generic words would pull in thousands of candidates that can never win; skip them when we can.
  const keys: number[] = [];
  for (const id of uniqueIds) if (id !== UNKNOWN && (!distinctive || generic[id] === 0)) keys.push(id);
  const ids: number[] = [];
  for (const token of tokens) ids.push(tokenId(data, token));
  return { norm: tokens.join(' '), ids, uniqueIds, uniqueQualifier, keys, weight, knownWeight };
}

function tokenId(data: IndexData, token: string): number {
  return data.tokens.ids.get(token) ?? UNKNOWN;
}

function nextQuery(data: IndexData): number {
  if (data.query === 0x7fffffff) {
    data.query = 0;
    data.entryStamps.fill(0);
    data.tokenStamps.fill(0);
  }
  data.query += 1;
  return data.query;
}

function similarityOf(input: InputName, entry: IndexedEntry, data: IndexData): number {
  if (input.norm === entry.norm) return 1;
  const best = Math.max(cappedJaccard(input, entry, data), prefixSimilarity(input, entry));
  if (best < BRAND_SIMILARITY && brandMatch(input, entry, data)) return BRAND_SIMILARITY;
  return best;
}

/** Which rule gave `similarity` (the same order of precedence as similarityOf). */
function ruleOf(input: InputName, entry: IndexedEntry, data: IndexData, similarity: number): SimilarityRule {
  if (input.norm === entry.norm) return 'exact';
  const jaccard = cappedJaccard(input, entry, data);
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
 * The input starts with the entry's leading words (or is them) and these are the entry's brand
 * (see isBrandLead).
 */
function brandMatch(input: InputName, entry: IndexedEntry, data: IndexData): boolean {
  const limit = Math.min(MAX_BRAND_WORDS, entry.ids.length, input.ids.length);
  let shared = 0;
  while (shared < limit && entry.ids[shared] === input.ids[shared]) shared += 1;
  // "PRATT AND MILLER" shares "PRATT AND" with "PRATT AND WHITNEY": the brand would be PRATT.
  while (shared > 0 && data.tokens.connector[entry.ids[shared - 1] ?? 0] === 1) shared -= 1;
  // The whole input may be the brand ("AEROJET ROCKETDYNE" for "AEROJET ROCKETDYNE COLEMAN
  // AEROSPACE"), but something must differ: equal names are the exact rule's.
  if (shared === 0 || (shared === input.ids.length && shared === entry.ids.length)) return false;
  return entry.brandLeads[shared] === 1;
}

function cappedJaccard(input: InputName, entry: IndexedEntry, data: IndexData): number {
  const { weights, generic, lengths } = data.tokens;
  let shared = 0;
  let distinctiveShared = 0;
  let onlyLength = 0;
  for (let i = 0; i < entry.uniqueIds.length; i++) {
    const id = entry.uniqueIds[i] ?? 0;
    if (data.tokenStamps[id] !== data.query) continue;
    shared += weights[id] ?? 0;
    if (generic[id] === 0) {
      distinctiveShared += 1;
      onlyLength = lengths[id] ?? 0;
    }
  }
  const jaccard = shared / (input.weight + entry.weight - shared);
  if (distinctiveShared >= 2) return jaccard;
  if (
    distinctiveShared === 1 &&
    onlyLength >= MIN_SINGLE_WORD_LENGTH &&
    differsByGenericOnly(input, entry, data)
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
function differsByGenericOnly(input: InputName, entry: IndexedEntry, data: IndexData): boolean {
  const { tokenStamps, query } = data;
  if (input.uniqueIds.length <= entry.uniqueIds.length) {
    for (const id of input.uniqueIds) if (!entryHas(entry, id)) return false;
    for (const id of entry.uniqueIds) {
      if (tokenStamps[id] !== query && data.tokens.qualifier[id] === 0) return false;
    }
    return true;
  }
  for (const id of entry.uniqueIds) if (tokenStamps[id] !== query) return false;
  for (let i = 0; i < input.uniqueIds.length; i++) {
    if (!entryHas(entry, input.uniqueIds[i] ?? UNKNOWN) && !input.uniqueQualifier[i]) return false;
  }
  return true;
}

function entryHas(entry: IndexedEntry, id: number): boolean {
  return id !== UNKNOWN && entry.uniqueIds.includes(id);
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
  if (!entry.distinctive || entry.ids.length >= input.ids.length) return 0;
  for (let i = 0; i < entry.ids.length; i++) if (input.ids[i] !== entry.ids[i]) return 0;
  const coverage = Math.min(entry.weight / input.weight, 1);
  if (entry.kind === 'name' && (entry.ids.length < 2 || coverage < MIN_NAME_PREFIX_COVERAGE)) return 0;
  return PREFIX_BASE + PREFIX_SPAN * coverage;
}

/** Higher similarity first; on a tie a curated alias beats a name, then input order decides. */
function byRank(entry: IndexedEntry, similarity: number, b: Ranked): number {
  if (b.similarity !== similarity) return b.similarity - similarity;
  if (entry.kind !== b.entry.kind) return entry.kind === 'alias' ? -1 : 1;
  return entry.order - b.entry.order;
}
