import { KEYWORD_RULES, NAICS_HINTS } from './classifier-rules.ts';
import { classifyFromPsc } from './psc.ts';
import { CLASSIFICATION_LABELS, type ClassificationLabel } from './types.ts';

export { classifyFromPsc } from './psc.ts';

/** Bump whenever rules or weights change: stored classifications are tagged with it. */
export const CLASSIFIER_VERSION = 'kw-1';

export interface ClassifyInput {
  description: string | null;
  naics?: string | null;
  psc?: string | null;
}

/** A PSC is the contracting officer's own coding of what was bought, so it outweighs any wording. */
const PSC_WEIGHT = 10;
/** NAICS describes the vendor's industry rather than this purchase: a hint, not a verdict. */
const NAICS_WEIGHT = 1.5;

export function classify(input: ClassifyInput): ClassificationLabel {
  const scores = new Map<ClassificationLabel, number>();
  addDescriptionScores(scores, input.description ?? '');
  const naicsLabel = input.naics ? labelFromNaics(input.naics) : null;
  if (naicsLabel !== null) add(scores, naicsLabel, NAICS_WEIGHT);
  const pscLabel = input.psc ? classifyFromPsc(input.psc) : null;
  if (pscLabel !== null) add(scores, pscLabel, PSC_WEIGHT);
  return argmax(scores);
}

/** Each rule counts once however often its words repeat, so long descriptions do not snowball. */
function addDescriptionScores(scores: Map<ClassificationLabel, number>, description: string): void {
  const text = description.toUpperCase();
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
