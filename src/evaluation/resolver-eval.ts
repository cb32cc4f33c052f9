/**
 * Resolver precision/recall on labelled recipient names.
 *
 * Labels (read from the shared data folder, never shipped as product output):
 * - positives: the FY2024 recipient map's `ticker` column and the 12-primes transaction file's
 *   `ticker` column, with the corrections listed in LABEL_CORRECTIONS and the disputed names of
 *   DISPUTED_LABELS left out (joint ventures and ownership the data cannot confirm);
 * - hard negatives: FY2006 data-feed recipients that cannot be listed companies — small businesses
 *   reporting themselves as their own parent, universities, non-profits and government bodies —
 *   plus labelled names whose ticker is outside the company universe (nothing to point at).
 *
 * Held-out protocol: the labelled names are split into k folds by normalized name; each fold is
 * resolved by a resolver whose alias table lacks every alias that normalizes to one of the fold's
 * names, so recall measures fuzzy and parent matching rather than memorised aliases.
 */

import { normalizeName } from '../domain/names.ts';
import { type AliasEntry, buildResolver, type CompanyName, type MatchMethod } from '../domain/resolver.ts';
import { parseCsv, rowToObject } from '../sources/csv.ts';
import { foldOf } from './split.ts';

export interface LabelledName {
  /** The recipient name as written in the source. */
  name: string;
  parentName: string | null;
  norm: string;
  /** Expected ticker; null = must come out unmatched. */
  ticker: string | null;
  sources: string[];
  /** Awards carrying this normalized name in the shipped demo files (0 when none). */
  awards: number;
  note?: string;
}

export interface DisputedName {
  name: string;
  labels: string[];
  reason: string;
}

export interface ResolverLabelSet {
  positives: LabelledName[];
  negatives: LabelledName[];
  disputed: DisputedName[];
}

export interface LabelInputs {
  /** `companies/usaspending_recipient_ticker_map_fy2024.csv`. */
  recipientMapCsv: string;
  /** `contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv` (with its ticker column). */
  primesCsv: string;
  /** `contracts/usaspending_legacy_datafeed_dod_fy2006_sample999.csv`. */
  legacyFeedCsv: string;
  /** Tickers of the company universe: a label outside it cannot be produced, so it is a negative. */
  universe: ReadonlySet<string>;
  /** Normalized recipient name → award count in the shipped files, for award-weighted figures. */
  awardCounts?: ReadonlyMap<string, number>;
}

/** Labels checked and corrected (see data/SOURCES.md, "aliases.csv"). */
export const LABEL_CORRECTIONS: Readonly<Record<string, { ticker: string; reason: string }>> = {
  'AEROJET ROCKETDYNE OF DE, INC': {
    ticker: 'LHX',
    reason:
      'L3Harris acquired Aerojet Rocketdyne on 2023-07-28; the FY2024 map says LMT (deal abandoned 2022)',
  },
  'CAE USA INC.': {
    ticker: 'CAE',
    reason: "CAE Inc.'s US subsidiary; the 12-primes name search filed it under LHX",
  },
};

const JV = 'joint venture of two or more primes: one ticker would be a guess';
const UNVERIFIED = 'ownership not verifiable from the data at hand (left out of aliases.csv too)';

/** Labelled names left out of the measurement, with the reason. */
export const DISPUTED_LABELS: Readonly<Record<string, string>> = {
  'BOEING SIKORSKY AIRCRAFT SUPPORT, LLC': JV,
  'LONGBOW LLC': JV,
  'THUNDERYARD LIBERTY JV LLC': JV,
  'NEWPORT NEWS NUCLEAR BWXT-LOS ALAMOS LLC': JV,
  'STANTEC GS - WSP JV': JV,
  'HANFORD MISSION INTEGRATION SOLUTIONS, LLC': JV,
  'MISSION SUPPORT ALLIANCE, LLC': JV,
  'JEPPESEN FOREFLIGHT, INC.': 'sold by Boeing in 2025: the label depends on the date',
  'STELLANT SYSTEMS INC': UNVERIFIED,
  'VINNELL ARABIA, LLC': UNVERIFIED,
  'RIVERSIDE ENGINEERING LLC': UNVERIFIED,
  'NES ASSOCIATES, LLC': UNVERIFIED,
  'ARCWOOD ENVIRONMENTAL - JOPLIN, INC.': UNVERIFIED,
  'BWXT ORDNANCE TENNESSEE, INC.': UNVERIFIED,
  'FISICA APPLIED TECHNOLOGIES, INC.': UNVERIFIED,
  'ARANEA SOLUTIONS INC': UNVERIFIED,
};

function csvObjects(text: string): Record<string, string>[] {
  const { header, rows } = parseCsv(text);
  return rows.map((r) => rowToObject(header, r.fields));
}

/** The labelled files write share classes as `MOG.A`, the SEC list as `MOG-A`. */
export function canonicalTicker(ticker: string): string {
  return ticker.trim().toUpperCase().replaceAll('.', '-');
}

export function buildResolverLabels(inputs: LabelInputs): ResolverLabelSet {
  const awardsOf = (norm: string): number => inputs.awardCounts?.get(norm) ?? 0;
  // name → labels (a name may carry several tickers in the 12-primes file) and sources.
  const labelled = new Map<string, { tickers: Set<string>; sources: Set<string> }>();
  const addLabel = (name: string, ticker: string, source: string): void => {
    const entry = labelled.get(name) ?? { tickers: new Set<string>(), sources: new Set<string>() };
    entry.tickers.add(canonicalTicker(ticker));
    entry.sources.add(source);
    labelled.set(name, entry);
  };
  for (const r of csvObjects(inputs.recipientMapCsv)) {
    const name = (r.name ?? '').trim();
    if (name !== '' && (r.ticker ?? '').trim() !== '') addLabel(name, r.ticker ?? '', 'recipient_map_fy2024');
  }
  for (const r of csvObjects(inputs.primesCsv)) {
    const name = (r.recipient_name ?? '').trim();
    if (name !== '' && (r.ticker ?? '').trim() !== '')
      addLabel(name, r.ticker ?? '', 'transactions_12primes');
  }

  const disputed: DisputedName[] = [];
  const byNorm = new Map<string, LabelledName>();
  const negatives: LabelledName[] = [];
  for (const [name, { tickers, sources }] of labelled) {
    const labels = [...tickers].sort();
    const disputedReason = DISPUTED_LABELS[name];
    if (disputedReason !== undefined) {
      disputed.push({ name, labels, reason: disputedReason });
      continue;
    }
    const correction = LABEL_CORRECTIONS[name];
    if (correction === undefined && labels.length > 1) {
      disputed.push({ name, labels, reason: 'the labelled sources disagree' });
      continue;
    }
    const ticker = correction?.ticker ?? labels[0] ?? '';
    const norm = normalizeName(name);
    const note = correction ? `corrected from ${labels.join('/')}: ${correction.reason}` : undefined;
    if (!inputs.universe.has(ticker)) {
      negatives.push({
        name,
        parentName: null,
        norm,
        ticker: null,
        sources: [...sources],
        awards: awardsOf(norm),
        note: `labelled ${ticker}, which is not in the company universe: must stay unmatched`,
      });
      continue;
    }
    const existing = byNorm.get(norm);
    if (existing && existing.ticker !== ticker) {
      disputed.push({ name, labels: [ticker, existing.ticker ?? ''], reason: 'spelling variants disagree' });
      byNorm.delete(norm);
      continue;
    }
    if (existing) {
      for (const s of sources) if (!existing.sources.includes(s)) existing.sources.push(s);
      continue;
    }
    byNorm.set(norm, {
      name,
      parentName: null,
      norm,
      ticker,
      sources: [...sources],
      awards: awardsOf(norm),
      ...(note ? { note } : {}),
    });
  }
  const positiveNorms = new Set(byNorm.keys());
  const seenNegative = new Set(negatives.map((n) => n.norm));
  for (const neg of legacyFeedNegatives(inputs.legacyFeedCsv)) {
    if (positiveNorms.has(neg.norm) || seenNegative.has(neg.norm)) continue;
    seenNegative.add(neg.norm);
    negatives.push({ ...neg, awards: awardsOf(neg.norm) });
  }
  const byName = (a: LabelledName, b: LabelledName): number =>
    a.norm < b.norm ? -1 : a.norm > b.norm ? 1 : 0;
  return {
    positives: [...byNorm.values()].sort(byName),
    negatives: negatives.sort(byName),
    disputed: disputed.sort((a, b) => (a.name < b.name ? -1 : 1)),
  };
}

/**
 * FY2006 recipients the rule below would call negatives but that are (now) owned by a listed company.
 * Cepheid was itself listed in 2006 (CPHD, a "small business" by head count) and is Danaher's since
 * 2016; aliases.csv maps it to DHR (today's owner, as every alias does).
 */
export const DISPUTED_NEGATIVES: Readonly<Record<string, string>> = {
  CEPHEID: 'listed itself in FY2006 (CPHD); a Danaher subsidiary since 2016 (aliases.csv: DHR)',
};

/**
 * Recipients of the FY2006 DoD data feed that cannot be (part of) a listed company: flagged as an
 * educational institution, non-profit or government body, or a small business (contracting
 * officer's size determination) that is its own parent (same DUNS and parent DUNS). A small business
 * with another parent is left out: SAVI Technology (parent Lockheed Martin) and Popular Auto (parent
 * Popular, Inc.) were "small" on their contracts.
 */
export function legacyFeedNegatives(csv: string): Omit<LabelledName, 'awards'>[] {
  const out: Omit<LabelledName, 'awards'>[] = [];
  for (const r of csvObjects(csv)) {
    const name = (r.vendorname ?? '').trim();
    if (name === '') continue;
    const parent = (r.mod_parent ?? '').trim();
    const flags = [
      r.educationalinstitutionflag === 'Y' ? 'educational institution' : null,
      r.nonprofitorganizationflag === 'Y' ? 'non-profit' : null,
      r.federalgovernmentflag === 'Y' || r.stategovernmentflag === 'Y' || r.localgovernmentflag === 'Y'
        ? 'government'
        : null,
    ].filter((f): f is string => f !== null);
    const small = (r.contractingofficerbusinesssizedetermination ?? '').startsWith('S');
    const duns = (r.dunsnumber ?? '').trim();
    const ownParent = duns !== '' && duns === (r.parentdunsnumber ?? '').trim();
    if (flags.length === 0 && !(small && ownParent)) continue;
    if (DISPUTED_NEGATIVES[name] !== undefined) continue;
    out.push({
      name,
      parentName: parent === '' ? null : parent,
      norm: normalizeName(name),
      ticker: null,
      sources: ['legacy_datafeed_fy2006'],
      note: flags.length > 0 ? flags.join(', ') : 'small business, its own parent',
    });
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Measuring

export type AliasMode = 'held_out' | 'all_aliases' | 'no_aliases';

export interface Outcome {
  item: LabelledName;
  kind: 'positive' | 'negative';
  fold: number;
  /** The resolver's best answer with no threshold applied (aliases are never thresholded). */
  ticker: string | null;
  confidence: number;
  method: MatchMethod;
}

export interface EvaluateOptions {
  mode: AliasMode;
  /** Folds for `held_out` (default 5). */
  k?: number;
  salt?: string;
}

/** Resolves every labelled name under `mode`; thresholds are applied afterwards by `summarize`. */
export function evaluateResolver(
  labels: ResolverLabelSet,
  aliases: readonly AliasEntry[],
  companies: readonly CompanyName[],
  options: EvaluateOptions,
): Outcome[] {
  const k = options.mode === 'held_out' ? (options.k ?? 5) : 1;
  const salt = options.salt ?? 'resolver';
  const items = [
    ...labels.positives.map((item) => ({ item, kind: 'positive' as const })),
    ...labels.negatives.map((item) => ({ item, kind: 'negative' as const })),
  ];
  const outcomes: Outcome[] = [];
  for (let fold = 0; fold < k; fold++) {
    const members = items.filter(({ item }) => k === 1 || foldOf(item.norm, k, salt) === fold);
    const heldOut = new Set(members.map(({ item }) => item.norm));
    const table =
      options.mode === 'no_aliases'
        ? []
        : options.mode === 'all_aliases'
          ? [...aliases]
          : aliases.filter((a) => !heldOut.has(normalizeName(a.aliasNorm)));
    // Threshold 0: keep the best fuzzy candidate so that summaries can sweep thresholds.
    const resolver = buildResolver(table, [...companies], { threshold: 0 });
    for (const { item, kind } of members) {
      const r = resolver.resolve({ recipientName: item.name, parentName: item.parentName });
      outcomes.push({ item, kind, fold, ticker: r.ticker, confidence: r.confidence, method: r.method });
    }
  }
  return outcomes;
}

/** The ticker the resolver would store at `threshold` (aliases bypass it, as in the resolver). */
export function decided(outcome: Outcome, threshold: number): string | null {
  if (outcome.ticker === null) return null;
  if (outcome.method === 'fuzzy' && outcome.confidence < threshold) return null;
  return outcome.ticker;
}

export interface ResolverMetrics {
  threshold: number;
  positives: number;
  negatives: number;
  correct: number;
  /** Positives given another ticker. */
  wrongTicker: number;
  /** Positives left unmatched. */
  missed: number;
  /** Negatives given a ticker. */
  falsePositives: number;
  precision: number;
  recall: number;
  /** Share of negatives that stayed unmatched. */
  negativeSpecificity: number;
  /** Award-weighted recall and precision (weights = awards in the shipped files carrying the name). */
  awardRecall: number;
  awardPrecision: number;
  awardPositives: number;
}

export function summarize(outcomes: readonly Outcome[], threshold: number): ResolverMetrics {
  let correct = 0;
  let wrongTicker = 0;
  let missed = 0;
  let falsePositives = 0;
  let positives = 0;
  let negatives = 0;
  let wCorrect = 0;
  let wPredicted = 0;
  let wPositives = 0;
  for (const o of outcomes) {
    const got = decided(o, threshold);
    const w = o.item.awards;
    if (got !== null) wPredicted += w;
    if (o.kind === 'negative') {
      negatives += 1;
      if (got !== null) falsePositives += 1;
      continue;
    }
    positives += 1;
    wPositives += w;
    if (got === null) missed += 1;
    else if (got === o.item.ticker) {
      correct += 1;
      wCorrect += w;
    } else wrongTicker += 1;
  }
  const predicted = correct + wrongTicker + falsePositives;
  return {
    threshold,
    positives,
    negatives,
    correct,
    wrongTicker,
    missed,
    falsePositives,
    precision: predicted === 0 ? 1 : correct / predicted,
    recall: positives === 0 ? 0 : correct / positives,
    negativeSpecificity: negatives === 0 ? 1 : (negatives - falsePositives) / negatives,
    awardRecall: wPositives === 0 ? 0 : wCorrect / wPositives,
    awardPrecision: wPredicted === 0 ? 1 : wCorrect / wPredicted,
    awardPositives: wPositives,
  };
}

export interface ResolverError {
  kind: 'wrong_ticker' | 'missed' | 'false_positive';
  name: string;
  parentName: string | null;
  expected: string | null;
  got: string | null;
  /** The best candidate when below the threshold. */
  candidate: string | null;
  confidence: number;
  method: MatchMethod;
  awards: number;
  note?: string;
}

export function errorsAt(outcomes: readonly Outcome[], threshold: number): ResolverError[] {
  const errors: ResolverError[] = [];
  for (const o of outcomes) {
    const got = decided(o, threshold);
    const kind =
      o.kind === 'negative'
        ? got !== null
          ? 'false_positive'
          : null
        : got === null
          ? 'missed'
          : got !== o.item.ticker
            ? 'wrong_ticker'
            : null;
    if (kind === null) continue;
    errors.push({
      kind,
      name: o.item.name,
      parentName: o.item.parentName,
      expected: o.item.ticker,
      got,
      candidate: got === null ? o.ticker : null,
      confidence: o.confidence,
      method: o.method,
      awards: o.item.awards,
      ...(o.item.note ? { note: o.item.note } : {}),
    });
  }
  const order = { wrong_ticker: 0, false_positive: 1, missed: 2 } as const;
  return errors.sort(
    (a, b) => order[a.kind] - order[b.kind] || b.awards - a.awards || (a.name < b.name ? -1 : 1),
  );
}

/** Award counts per normalized recipient name. */
export function countByNorm(names: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) {
    const norm = normalizeName(name);
    counts.set(norm, (counts.get(norm) ?? 0) + 1);
  }
  return counts;
}
