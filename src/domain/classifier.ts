import { KEYWORD_RULES, NAICS_HINTS } from './classifier-rules.ts';
import { classifyFromPsc } from './psc.ts';
import { CLASSIFICATION_LABELS, type ClassificationLabel } from './types.ts';

export { classifyFromPsc } from './psc.ts';

/** Bump whenever rules or weights change: stored classifications are tagged with it. */
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

function classifyUncached(input: ClassifyInput): ClassificationLabel {
  const scores = new Map<ClassificationLabel, number>();
  addDescriptionScores(scores, input.description ?? '');
  const naicsLabel = input.naics ? labelFromNaics(input.naics) : null;
  if (naicsLabel !== null) add(scores, naicsLabel, NAICS_WEIGHT);
  const pscLabel = input.psc ? classifyFromPsc(input.psc) : null;
  if (pscLabel !== null) add(scores, pscLabel, PSC_WEIGHT);
  return argmax(scores);
}

/**
 * Some legacy descriptions are raw FPDS record dumps ("200605!000064!5700!FA4484!305CONS/LGC   !…"):
 * codes, dates and numbers that match keywords by accident. Only the contracting office's name
 * (the fifth field) says anything, and only about who buys.
 */
const FPDS_DUMP = /^\s*\d{6}![0-9A-Z]{6}![0-9A-Z]{4}![0-9A-Z]{6}!([^!]*)!/;

/** Each rule counts once however often its words repeat, so long descriptions do not snowball. */
function addDescriptionScores(scores: Map<ClassificationLabel, number>, description: string): void {
  const upper = description.toUpperCase();
  const text = FPDS_DUMP.exec(upper)?.[1] ?? upper;
  if (text.trim() === '') return;
  for (const { label, weight, pattern } of KEYWORD_RULES) {
    if (pattern.test(text)) add(scores, label, weight);
  }
}

function labelFromNaics(naics: string): ClassificationLabel | null {
  const code = naics.trim();
  let best: readonly [string, ClassificationLabel] | null = null;
  for (const hint of NAICS_HINTS) {
    if (code.startsWith(hint[0]) && (best === null || hint[0].length > best[0].length)) best = hint;
  }
  return best?.[1] ?? null;
}

function add(scores: Map<ClassificationLabel, number>, label: ClassificationLabel, weight: number): void {
  scores.set(label, (scores.get(label) ?? 0) + weight);
}

/** Ties go to the label listed first in CLASSIFICATION_LABELS (platforms before services). */
function argmax(scores: ReadonlyMap<ClassificationLabel, number>): ClassificationLabel {
  let best: ClassificationLabel = 'other';
  let bestScore = 0;
  for (const label of CLASSIFICATION_LABELS) {
    const score = scores.get(label) ?? 0;
    if (score > bestScore) {
      best = label;
      bestScore = score;
    }
  }
  return best;
}
