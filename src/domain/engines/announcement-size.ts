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

/** What distinguishes one announcement rule's engine from another's. */
export interface QuartileEngineSpec {
  name: string;
  version: string;
  /** The rationale row's rule name. */
  rule: string;
  /** The rule's reading of the event, from the pipeline. */
  reading(input: EngineInput): AnnouncementRuleInput | undefined;
  /** The rationale row's detail, after "Q<n>: ". */
  detail(reading: AnnouncementRuleInput): string;
}

/** An engine whose signal is the quartile of a committed announcement rule (developer tier, announcement events only). */
export function quartileEngine(spec: QuartileEngineSpec): Engine {
  const score = (input: EngineInput): EngineOutput | null => {
    const rule = spec.reading(input);
    if (!rule || rule.quartile === null || rule.ratio === null) return null;
    const signal = QUARTILE_SCORES[rule.quartile] ?? 0;
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
          rule: spec.rule,
          weight: 100,
          value: rule.quartile / 3,
          contribution: signal,
          detail: `${LABELS[rule.quartile]}: ${spec.detail(rule)}`,
        },
      ],
    };
  };
  return {
    name: spec.name,
    version: spec.version,
    tier: 'developer',
    isDefault: false,
    sources: ['announcement'],
    score,
  };
}

export const announcementSize: Engine = quartileEngine({
  name: 'announcement-size',
  version: 'ann-size-1',
  rule: ANNOUNCEMENT_SIZE_RULES[0],
  reading: (input) => input.announcement,
  detail: (rule) => {
    const ratio =
      rule.ratio !== null && Number.isFinite(rule.ratio)
        ? rule.ratio.toPrecision(4)
        : '∞ (nothing announced in the year before)';
    return (
      `the company's announced value on the page, $${rule.pageValue}, / its announced ` +
      `value in the 365 days before, $${rule.trailingValue ?? 0}, = ${ratio}`
    );
  },
});
