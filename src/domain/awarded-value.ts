/**
 * Money really awarded to one awardee of a DoD announcement paragraph, the value every engine and the
 * Signals page read (docs/EVALUATION.md §4c):
 * - one awardee: the paragraph's face value, whatever its kind (an award, option, modification or
 *   order counts its face value; the kind stays on the event as its label);
 * - several awardees share one ceiling (a multiple-award IDIQ): the ceiling is a licence to compete
 *   for task orders, not an award to each holder. Each holder is given its share of the amount
 *   obligated at award when the page states one, else its share of the ceiling × LICENCE_FRACTION.
 *
 * LICENCE_FRACTION was decided on the in-sample pages only (2014-08-01 → 2016-12-31): of the 431
 * paragraphs with several awardees, 213 state an amount obligated at award, and the median of
 * obligated / ceiling among them is 0.000253 (quartiles 0.0000095 and 0.0054). The typical holder of
 * a shared ceiling is thus given what such holders were typically obligated, not the ceiling.
 */
export const LICENCE_FRACTION = 0.00025;

/** How an event's awarded value was reached. */
export type AwardBasis = 'face' | 'obligated_share' | 'licence';

export interface ParagraphMoney {
  /** Whole dollars: the paragraph's face value, a shared ceiling counted once. */
  faceValue: number;
  /** Whole dollars obligated at award; null when the page does not say. */
  obligatedAtAward: number | null;
  /** How many awardees the paragraph names (≥ 1). */
  awardees: number;
}

export interface AwardedValue {
  /** Whole dollars. */
  value: number;
  basis: AwardBasis;
}

export function awardedValue(p: ParagraphMoney): AwardedValue {
  const n = Math.max(1, p.awardees);
  if (n === 1) return { value: p.faceValue, basis: 'face' };
  if (p.obligatedAtAward !== null)
    return { value: Math.round(p.obligatedAtAward / n), basis: 'obligated_share' };
  return { value: Math.round((p.faceValue / n) * LICENCE_FRACTION), basis: 'licence' };
}
