import { buildNameIndex, type NameEntry, type NameIndex, type RankedCandidate } from './name-index.ts';
import { nameTokens, normalizeName } from './names.ts';

export interface AliasEntry {
  aliasNorm: string;
  ticker: string;
  source: string;
}

export interface CompanyName {
  ticker: string;
  name: string;
}

/** How a recipient that resolved was matched; a contract's `match_method` is one of these. */
export const MATCH_METHODS = ['exact_alias', 'parent_alias', 'fuzzy'] as const;
/** `none`: no ticker was found (the recipient is tallied as unmatched, never served as a contract). */
export type MatchMethod = (typeof MATCH_METHODS)[number] | 'none';

export interface ResolveInput {
  recipientName: string;
  parentName?: string | null;
}

export interface Resolution {
  ticker: string | null;
  confidence: number;
  method: MatchMethod;
  nameNorm: string;
}

export interface Resolver {
  resolve(input: ResolveInput): Resolution;
}

export interface ResolverOptions {
  threshold?: number;
}

export const DEFAULT_THRESHOLD = 0.8;
const EXACT_ALIAS_CONFIDENCE = 0.99;
const PARENT_ALIAS_CONFIDENCE = 0.95;
/** A fuzzy hit, however close, never outranks a curated alias. */
const FUZZY_CEILING = 0.97;
/** The parent name describes the corporate family, not the recipient itself. */
const PARENT_FUZZY_FACTOR = 0.95;
/** Two different companies this close make the pick a coin toss. */
const AMBIGUITY_MARGIN = 0.02;
const AMBIGUITY_PENALTY = 0.05;
/**
 * A name that holds two companies' names ("RAYTHEON/LOCKHEED MARTIN JAVELIN JV", "BOEING SIKORSKY
 * AIRCRAFT SUPPORT") is a joint venture: once the best match's words are taken out, what is left
 * still matches another ticker by prefix or brand at this similarity or more.
 */
const RIVAL_SIMILARITY = 0.84;
/** A joint venture is left for curation: one ticker would be a guess. */
const JOINT_VENTURE_CONFIDENCE = 0.5;
const CACHE_LIMIT = 200_000;

export function buildResolver(
  aliases: AliasEntry[],
  companies: CompanyName[],
  opts: ResolverOptions = {},
): Resolver {
  const threshold = opts.threshold ?? DEFAULT_THRESHOLD;
  const aliasTickers = buildAliasMap(aliases);
  const index = buildNameIndex(entriesFrom(aliasTickers, companies));
  const cache = new PairCache();
  // A parent name, or a recipient spelled several ways, comes back with many different pairs: its
  // normalization and fuzzy hits are kept per name, not per pair.
  const norms = new Map<string, string>();
  const ownHits = memoizedHits(index, 1);
  const parentHits = memoizedHits(index, PARENT_FUZZY_FACTOR);
  const normalized = (raw: string): string => {
    let norm = norms.get(raw);
    if (norm === undefined) {
      norm = normalizeName(raw);
      remember(norms, raw, norm);
    }
    return norm;
  };

  function resolveUncached(nameNorm: string, parentNorm: string): Resolution {
    const exact = aliasTickers.get(nameNorm);
    if (exact !== undefined) {
      return { ticker: exact, confidence: EXACT_ALIAS_CONFIDENCE, method: 'exact_alias', nameNorm };
    }
    const parent = parentNorm === '' ? undefined : aliasTickers.get(parentNorm);
    if (parent !== undefined) {
      return { ticker: parent, confidence: PARENT_ALIAS_CONFIDENCE, method: 'parent_alias', nameNorm };
    }
    const own = ownHits(nameNorm);
    // A parent spelled like the recipient can only score the recipient's own match × 0.95.
    const parentHit = parentNorm === '' || parentNorm === nameNorm ? null : parentHits(parentNorm);
    const fuzzy = betterHit(own, parentHit);
    if (fuzzy === null || fuzzy.confidence < threshold) {
      return { ticker: null, confidence: fuzzy?.confidence ?? 0, method: 'none', nameNorm };
    }
    return { ticker: fuzzy.ticker, confidence: fuzzy.confidence, method: 'fuzzy', nameNorm };
  }

  // Raw spellings first (no normalization on a hit), then normalized names (spelling variants).
  const rawCache = new PairCache();
  return {
    resolve(input) {
      const parentName = input.parentName ?? '';
      const seen = rawCache.get(input.recipientName, parentName);
      if (seen !== undefined) return seen;
      const nameNorm = normalized(input.recipientName);
      const parentNorm = parentName === '' ? '' : normalized(parentName);
      let result = cache.get(nameNorm, parentNorm);
      if (result === undefined) {
        result = resolveUncached(nameNorm, parentNorm);
        cache.set(nameNorm, parentNorm, result);
      }
      rawCache.set(input.recipientName, parentName, result);
      return result;
    },
  };
}

/** Resolutions by recipient, then parent: a lookup builds no key string. */
class PairCache {
  private readonly byName = new Map<string, Map<string, Resolution>>();
  private size = 0;

  get(name: string, parent: string): Resolution | undefined {
    return this.byName.get(name)?.get(parent);
  }

  /** Called after a miss: the pair is new. */
  set(name: string, parent: string, result: Resolution): void {
    if (this.size >= CACHE_LIMIT) {
      this.byName.clear();
      this.size = 0;
    }
    const byParent = this.byName.get(name);
    if (byParent === undefined) this.byName.set(name, new Map([[parent, result]]));
    else byParent.set(parent, result);
    this.size += 1;
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= CACHE_LIMIT) map.clear();
  map.set(key, value);
}

/** The first alias wins on conflict, so the caller orders aliases by source priority. */
function buildAliasMap(aliases: readonly AliasEntry[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const alias of aliases) {
    const norm = normalizeName(alias.aliasNorm);
    if (norm !== '' && !map.has(norm)) map.set(norm, alias.ticker);
  }
  return map;
}

function entriesFrom(aliasTickers: Map<string, string>, companies: readonly CompanyName[]): NameEntry[] {
  const entries: NameEntry[] = [];
  for (const [norm, ticker] of aliasTickers) {
    entries.push({ ticker, tokens: nameTokens(norm), kind: 'alias' });
  }
  for (const company of companies) {
    const tokens = nameTokens(normalizeName(company.name));
    if (tokens.length > 0) entries.push({ ticker: company.ticker, tokens, kind: 'name' });
  }
  return entries;
}

interface FuzzyHit {
  ticker: string;
  confidence: number;
}

/** fuzzyHit depends on the name alone: one lookup per distinct name and factor. */
function memoizedHits(index: NameIndex, factor: number): (norm: string) => FuzzyHit | null {
  const hits = new Map<string, FuzzyHit | null>();
  return (norm) => {
    const seen = hits.get(norm);
    if (seen !== undefined) return seen;
    const hit = fuzzyHit(index, norm, factor);
    remember(hits, norm, hit);
    return hit;
  };
}

function betterHit(own: FuzzyHit | null, parent: FuzzyHit | null): FuzzyHit | null {
  if (own === null) return parent;
  if (parent === null) return own;
  return parent.confidence > own.confidence ? parent : own;
}

function fuzzyHit(index: NameIndex, norm: string, factor: number): FuzzyHit | null {
  const tokens = nameTokens(norm);
  const ranked = index.rank(tokens);
  const best = ranked[0];
  if (best === undefined) return null;
  let confidence = Math.min(best.similarity, 1) * FUZZY_CEILING * factor;
  const rival = firstRival(ranked, best);
  if (rival !== undefined && best.similarity - rival.similarity < AMBIGUITY_MARGIN) {
    confidence -= AMBIGUITY_PENALTY;
  }
  // Only a confidence above the cap can change; most names never get there.
  if (
    confidence > JOINT_VENTURE_CONFIDENCE &&
    best.rule !== 'exact' &&
    namesAnotherCompany(index, tokens, best)
  ) {
    confidence = Math.min(confidence, JOINT_VENTURE_CONFIDENCE);
  }
  return { ticker: best.ticker, confidence: round4(confidence) };
}

/** A loop rather than find(): see bestCandidates in name-index.ts on closures per call. */
function firstRival(ranked: readonly RankedCandidate[], best: RankedCandidate): RankedCandidate | undefined {
  for (const c of ranked) if (c.ticker !== best.ticker && c.norm !== best.norm) return c;
  return undefined;
}

function namesAnotherCompany(index: NameIndex, tokens: readonly string[], best: RankedCandidate): boolean {
  const used = new Set(nameTokens(best.norm));
  const rest = tokens.filter((t) => !used.has(t));
  if (rest.length === 0) return false;
  return index
    .rank(rest)
    .some(
      (c) =>
        c.ticker !== best.ticker &&
        c.similarity >= RIVAL_SIMILARITY &&
        (c.rule === 'exact' || c.rule === 'prefix' || c.rule === 'brand'),
    );
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
