/**
 * Classifier accuracy against labels derived from Product and Service Codes.
 *
 * Every shipped award that carries a PSC and a description gets the gold label
 * `classifyFromPsc(psc)`; the classifier is then asked to label it from the description alone,
 * from the description and NAICS, and from everything (a sanity check: the PSC decides). The
 * records are split into a development half and a held-out test half by a hash of the award id
 * (so the split never changes); rules are tuned on the development half only.
 */
import { type ClassifyInput, classify, classifyFromPsc } from '../domain/classifier.ts';
import { type AwardRecord, CLASSIFICATION_LABELS, type ClassificationLabel } from '../domain/types.ts';
import { isHeldOut } from './split.ts';

export interface LabelledAward {
  id: string;
  source: string;
  description: string;
  naics: string | null;
  psc: string;
  gold: ClassificationLabel;
}

/** Awards with a non-blank description and a PSC that maps to a label. */
export function labelledAwards(awards: readonly AwardRecord[], source: string): LabelledAward[] {
  const out: LabelledAward[] = [];
  for (const a of awards) {
    const description = a.description?.trim() ?? '';
    if (a.psc === null || description === '') continue;
    const gold = classifyFromPsc(a.psc);
    if (gold === null) continue;
    out.push({ id: a.id, source, description, naics: a.naics, psc: a.psc, gold });
  }
  return out;
}

export const CLASSIFIER_SPLIT_SALT = 'classifier-v1';
export const TEST_SHARE = 0.5;

export function splitDevTest(records: readonly LabelledAward[]): {
  dev: LabelledAward[];
  test: LabelledAward[];
} {
  const dev: LabelledAward[] = [];
  const test: LabelledAward[] = [];
  for (const r of records) (isHeldOut(r.id, TEST_SHARE, CLASSIFIER_SPLIT_SALT) ? test : dev).push(r);
  return { dev, test };
}

export type InputMode = 'description' | 'description_naics' | 'all_codes';

export function inputFor(record: LabelledAward, mode: InputMode): ClassifyInput {
  if (mode === 'description') return { description: record.description };
  if (mode === 'description_naics') return { description: record.description, naics: record.naics };
  return { description: record.description, naics: record.naics, psc: record.psc };
}

export interface LabelStats {
  label: ClassificationLabel;
  /** Gold records with this label. */
  support: number;
  /** Records predicted with this label. */
  predicted: number;
  truePositives: number;
  precision: number | null;
  recall: number | null;
}

export interface ClassifierReport {
  n: number;
  correct: number;
  accuracy: number;
  /** Accuracy of always answering the most frequent gold label. */
  majorityLabel: ClassificationLabel;
  majorityAccuracy: number;
  perLabel: LabelStats[];
  /** gold → predicted → count, errors only. */
  confusions: { gold: ClassificationLabel; predicted: ClassificationLabel; count: number }[];
  errors: { record: LabelledAward; predicted: ClassificationLabel }[];
}

export function evaluateClassifier(
  records: readonly LabelledAward[],
  mode: InputMode,
  classifier: (input: ClassifyInput) => ClassificationLabel = classify,
): ClassifierReport {
  const support = new Map<ClassificationLabel, number>();
  const predictedCount = new Map<ClassificationLabel, number>();
  const tp = new Map<ClassificationLabel, number>();
  const confusion = new Map<string, number>();
  const errors: ClassifierReport['errors'] = [];
  let correct = 0;
  const bump = <K>(m: Map<K, number>, k: K): void => {
    m.set(k, (m.get(k) ?? 0) + 1);
  };
  for (const record of records) {
    const predicted = classifier(inputFor(record, mode));
    bump(support, record.gold);
    bump(predictedCount, predicted);
    if (predicted === record.gold) {
      correct += 1;
      bump(tp, predicted);
    } else {
      bump(confusion, `${record.gold}\u0000${predicted}`);
      errors.push({ record, predicted });
    }
  }
  let majorityLabel: ClassificationLabel = 'other';
  let majorityCount = 0;
  for (const label of CLASSIFICATION_LABELS) {
    const count = support.get(label) ?? 0;
    if (count > majorityCount) {
      majorityLabel = label;
      majorityCount = count;
    }
  }
  const perLabel: LabelStats[] = CLASSIFICATION_LABELS.map((label) => {
    const s = support.get(label) ?? 0;
    const p = predictedCount.get(label) ?? 0;
    const t = tp.get(label) ?? 0;
    return {
      label,
      support: s,
      predicted: p,
      truePositives: t,
      precision: p === 0 ? null : t / p,
      recall: s === 0 ? null : t / s,
    };
  }).filter((l) => l.support > 0 || l.predicted > 0);
  const confusions = [...confusion.entries()]
    .map(([key, count]) => {
      const [gold, predicted] = key.split('\u0000') as [ClassificationLabel, ClassificationLabel];
      return { gold, predicted, count };
    })
    .sort((a, b) => b.count - a.count || (a.gold < b.gold ? -1 : 1));
  const n = records.length;
  return {
    n,
    correct,
    accuracy: n === 0 ? 0 : correct / n,
    majorityLabel,
    majorityAccuracy: n === 0 ? 0 : majorityCount / n,
    perLabel,
    confusions,
    errors,
  };
}
