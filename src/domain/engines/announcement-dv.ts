import { quartileEngine } from './announcement-size.ts';

/** The rules its rationale rows name (the API's closed set of rules: `RATIONALE_RULES`). */
export const ANNOUNCEMENT_DV_RULES = ['page_awarded_over_dollar_volume'] as const;

/**
 * The `ann-dv-1` rule as an engine: exactly the score `evaluate --source announcements --rule ann-dv-1`
 * judges (src/evaluation/announcement-dv.ts): the company's money really awarded on the page (a shared
 * ceiling valued as a licence: domain/awarded-value.ts) / its average daily dollar volume over the 60
 * trading days before the page, cut at the rule's committed in-sample quartiles and mapped to the same
 * signal buckets as `announcement-size` (Q1 20, Q2 50, Q3 70, Q4 90). The pipeline computes the rule with
 * the study's function and hands its reading in `input.announcementDv`. Its out-of-sample verdict is in
 * docs/EVALUATION.md §4c.
 */
export const announcementDv = quartileEngine({
  name: 'announcement-dv',
  version: 'ann-dv-1',
  rule: ANNOUNCEMENT_DV_RULES[0],
  reading: (input) => input.announcementDv,
  detail: (rule) =>
    `the company's awarded value on the page, $${rule.pageValue}, / its average daily dollar volume over the ` +
    `60 trading days before, $${Math.round(rule.trailingValue ?? 0)}, = ${(rule.ratio ?? 0).toPrecision(4)} days of trading`,
});
