import type { AnnouncementRuleInput, Engine, EngineInput, EngineOutput } from '../types.ts';

/** The rules its rationale rows name (the API's closed set of rules: `RATIONALE_RULES`). */
export const ANNOUNCEMENT_SIZE_RULES = ['page_over_trailing_year'] as const;

/**
 * The announcement rule as an engine: exactly the score `evaluate --source announcements` judges
 * (src/evaluation/announcement-score.ts, `ann-size-1`): the company's announced value on the page / its
 * announced value over the 365 days before, cut at the rule's committed in-sample quartiles. The pipeline
 * computes the rule (the same function the study calls) and hands its reading in `input.announcement`;
 * this maps the quartile to a signal score whose buckets are the Evidence page's (Q1 20 in 0–39, Q2 50 in
 * 40–59, Q3 70 in 60–74, Q4 90 in 75–100), so the page's top − bottom is the study's Q4 − Q1.
 *
 * It scores DoD announcement events only, and only those the rule scores: none without a year of stored
 * announcement history before the page, none for a recipient its ticker did not yet own. Out of sample
 * the rule is **no evidence** (docs/EVALUATION.md §4a): it is served so that what is evaluated is what
 * is served, not because it predicts.
 */
export const QUARTILE_SCORES: readonly number[] = [20, 50, 70, 90];

const LABELS = ['Q1', 'Q2', 'Q3', 'Q4'];

function scoreAnnouncement(input: EngineInput): EngineOutput | null {
  const rule: AnnouncementRuleInput | undefined = input.announcement;
  if (!rule || rule.quartile === null || rule.ratio === null) return null;
  const signal = QUARTILE_SCORES[rule.quartile] ?? 0;
  const ratio = Number.isFinite(rule.ratio)
    ? rule.ratio.toPrecision(4)
    : '∞ (nothing announced in the year before)';
  return {
    scores: {
      signal,
      importance: signal,
      confidence: Math.round(100 * input.contract.matchConfidence),
      // The rule says nothing about risk: neutral.
      risk: 50,
    },
    rationale: [
      {
        rule: ANNOUNCEMENT_SIZE_RULES[0],
        weight: 100,
        value: rule.quartile / 3,
        contribution: signal,
        detail:
          `${LABELS[rule.quartile]}: the company's announced value on the page, $${rule.pageValue}, / its announced ` +
          `value in the 365 days before, $${rule.trailingValue ?? 0}, = ${ratio}`,
      },
    ],
  };
}

export const announcementSize: Engine = {
  name: 'announcement-size',
  version: 'ann-size-1',
  tier: 'developer',
  isDefault: false,
  sources: ['announcement'],
  score: scoreAnnouncement,
};
