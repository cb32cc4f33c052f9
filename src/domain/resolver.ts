import { buildNameIndex, type NameEntry, type NameIndex } from './name-index.ts';
import { nameTokens, normalizeName } from './names.ts';

/** Bump whenever matching rules or confidences change: stored match_confidence values depend on it. */
export const RESOLVER_VERSION = 'res-1';

export interface AliasEntry {
  aliasNorm: string;
  ticker: string;
  source: string;
}

export interface CompanyName {
  ticker: string;
  name: string;
}

export type MatchMethod = 'exact_alias' | 'parent_alias' | 'fuzzy' | 'none';

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
const CACHE_LIMIT = 200_000;

export function buildResolver(
  aliases: AliasEntry[],
  companies: CompanyName[],
  opts: ResolverOptions = {},
): Resolver {
  const threshold = opts.threshold ?? DEFAULT_THRESHOLD;
  const aliasTickers = buildAliasMap(aliases);
  const index = buildNameIndex(entriesFrom(aliasTickers, companies));
  const cache = new Map<string, Resolution>();

  function resolveUncached(nameNorm: string, parentNorm: string): Resolution {
    const exact = aliasTickers.get(nameNorm);
    if (exact !== undefined) {
      return { ticker: exact, confidence: EXACT_ALIAS_CONFIDENCE, method: 'exact_alias', nameNorm };
    }
    const parent = parentNorm === '' ? undefined : aliasTickers.get(parentNorm);
    if (parent !== undefined) {
      return { ticker: parent, confidence: PARENT_ALIAS_CONFIDENCE, method: 'parent_alias', nameNorm };
    }
    const fuzzy = bestFuzzy(index, nameNorm, parentNorm);
    if (fuzzy === null || fuzzy.confidence < threshold) {
      return { ticker: null, confidence: fuzzy?.confidence ?? 0, method: 'none', nameNorm };
    }
    return { ticker: fuzzy.ticker, confidence: fuzzy.confidence, method: 'fuzzy', nameNorm };
  }

  return {
    resolve(input) {
      const nameNorm = normalizeName(input.recipientName);
      const parentNorm = input.parentName ? normalizeName(input.parentName) : '';
      const key = `${nameNorm}\u0000${parentNorm}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const result = resolveUncached(nameNorm, parentNorm);
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(key, result);
      return result;
    },
  };
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

function bestFuzzy(index: NameIndex, nameNorm: string, parentNorm: string): FuzzyHit | null {
  const own = fuzzyHit(index, nameNorm, 1);
  const parent = parentNorm === '' ? null : fuzzyHit(index, parentNorm, PARENT_FUZZY_FACTOR);
  if (own === null) return parent;
  if (parent === null) return own;
  return parent.confidence > own.confidence ? parent : own;
}

function fuzzyHit(index: NameIndex, norm: string, factor: number): FuzzyHit | null {
  const ranked = index.rank(nameTokens(norm));
  const best = ranked[0];
  if (best === undefined) return null;
  let confidence = Math.min(best.similarity, 1) * FUZZY_CEILING * factor;
  const rival = ranked.find((c) => c.ticker !== best.ticker && c.norm !== best.norm);
  if (rival !== undefined && best.similarity - rival.similarity < AMBIGUITY_MARGIN) {
    confidence -= AMBIGUITY_PENALTY;
  }
  return { ticker: best.ticker, confidence: round4(confidence) };
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
