/**
 * How often the announcement parser reads a paragraph as a person did: per field, the share of
 * labelled paragraphs where the parser's value equals the label (test/fixtures/announcements/GUIDE.md
 * says how the labels were made). Text fields are compared after normalizing case, spacing,
 * punctuation and a leading "The"; lists as sets.
 */
import type { ParsedParagraph } from '../sources/announcements.ts';

export interface ParagraphLabel {
  kind: string;
  awardees: { name: string; location: string | null; contract_numbers: string[] }[];
  multiple_award: boolean;
  face_value: number | null;
  obligated_at_award: number | null;
  contract_numbers: string[];
  modification_number: string | null;
  contract_types: string[];
  competition: { competed: boolean | null; offers: number | null };
  contracting_activity: string | null;
}

export const PARSER_FIELDS = [
  'kind',
  'awardee names',
  'awardee locations',
  'multiple award',
  'face value',
  'obligated at award',
  'contract numbers',
  'modification number',
  'contract types',
  'competed',
  'offers',
  'contracting activity',
] as const;
export type ParserField = (typeof PARSER_FIELDS)[number];

export const normalizeText = (text: string | null): string =>
  (text ?? '')
    .toLowerCase()
    .replace(/^the\s+/, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

/** Which fields of one paragraph the parser got right. */
export function fieldMatches(parsed: ParsedParagraph, label: ParagraphLabel): Record<ParserField, boolean> {
  return {
    kind: parsed.kind === label.kind,
    'awardee names': sameSet(
      parsed.awardees.map((a) => normalizeText(a.name)),
      label.awardees.map((a) => normalizeText(a.name)),
    ),
    'awardee locations': sameSet(
      parsed.awardees.map((a) => normalizeText(a.location)),
      label.awardees.map((a) => normalizeText(a.location)),
    ),
    'multiple award': parsed.multipleAward === label.multiple_award,
    'face value': parsed.faceValue === label.face_value,
    'obligated at award': parsed.obligatedAtAward === label.obligated_at_award,
    'contract numbers': sameSet(parsed.contractNumbers, label.contract_numbers),
    'modification number': parsed.modificationNumber === label.modification_number,
    'contract types': sameSet(parsed.contractTypes, label.contract_types),
    competed: parsed.competition.competed === label.competition.competed,
    offers: parsed.competition.offers === label.competition.offers,
    'contracting activity':
      normalizeText(parsed.contractingActivity) === normalizeText(label.contracting_activity),
  };
}

export interface FieldAccuracy {
  field: ParserField;
  correct: number;
  total: number;
  accuracy: number;
}

/** Per field, over the labelled paragraphs. */
export function parserAccuracy(
  pairs: readonly { parsed: ParsedParagraph; label: ParagraphLabel }[],
): FieldAccuracy[] {
  const matches = pairs.map(({ parsed, label }) => fieldMatches(parsed, label));
  return PARSER_FIELDS.map((field) => {
    const correct = matches.filter((m) => m[field]).length;
    return { field, correct, total: pairs.length, accuracy: pairs.length ? correct / pairs.length : 0 };
  });
}
