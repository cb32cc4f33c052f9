/**
 * The announcement rules' readings of each announcement event of a scoring batch, for the
 * `announcement-size` (`ann-size-1`) and `announcement-dv` (`ann-dv-1`) engines: the very functions
 * `evaluate --source announcements [--rule R]` calls (evaluation/announcement-score.ts,
 * evaluation/announcement-dv.ts) over the stored announcement events up to the batch's last page, so an
 * engine's score is the evaluated rule's, not a re-implementation of it.
 */
import { awardedValue } from '../domain/awarded-value.ts';
import type { AnnouncementRuleInput } from '../domain/types.ts';
import { DV_CUTS, scoreDollarVolume } from '../evaluation/announcement-dv.ts';
import {
  type AnnouncementScore,
  ownershipExcluded,
  SCORE_CUTS,
  scoreAnnouncements,
} from '../evaluation/announcement-score.ts';
import { bucketIndex } from '../evaluation/announcement-study.ts';
import { loadDollarVolume } from '../sources/dollar-volume.ts';
import { type ScoredContract, sourceOf } from '../store/contracts.ts';
import type { Queryable } from '../store/db.ts';
import { announcementCoverage, announcementEvents } from '../store/evaluation.ts';

/** One event's readings by both rules. */
export interface AnnouncementReadings {
  size: AnnouncementRuleInput;
  dv: AnnouncementRuleInput;
}

function reading(
  s: AnnouncementScore,
  cuts: readonly number[],
  unscored: AnnouncementRuleInput['reason'],
): AnnouncementRuleInput {
  return {
    ratio: s.score,
    quartile: bucketIndex(s.score, cuts),
    pageValue: s.pageValue,
    trailingValue: s.trailingValue,
    reason: s.score === null ? unscored : null,
  };
}

const unowned = (pageValue: number): AnnouncementRuleInput => ({
  ratio: null,
  quartile: null,
  pageValue,
  trailingValue: null,
  reason: 'ownership',
});

/** Announcement event id → the rules' readings; other events are not in the map. */
export async function announcementRules(
  db: Queryable,
  contracts: readonly ScoredContract[],
): Promise<Map<string, AnnouncementReadings>> {
  const out = new Map<string, AnnouncementReadings>();
  const batch = contracts.filter((c) => sourceOf(c.id) === 'announcement');
  if (batch.length === 0) return out;
  const last = batch.map((c) => c.awardDate).sort()[batch.length - 1] ?? '';
  const [rows, coverage, dollarVolume] = await Promise.all([
    announcementEvents(db, last),
    announcementCoverage(db),
    loadDollarVolume(),
  ]);
  if (coverage.first === null) return out;
  // The rules group events by the ticker whose prices they move (the series ticker: Harris's awards
  // are HRS's, priced on LHX's series), as the study does; the batch's own `ticker` may differ.
  const ids = new Set(batch.map((c) => c.id));
  const tickers = new Set(rows.filter((e) => ids.has(e.id)).map((e) => e.ticker));
  const events = rows.filter((e) => tickers.has(e.ticker));
  const owned = events.filter((e) => !ownershipExcluded(e));
  const size = scoreAnnouncements(owned, coverage.first);
  const dv = scoreDollarVolume(owned, dollarVolume);
  owned.forEach((e, i) => {
    const s = size[i];
    const d = dv[i];
    if (!s || !d) return;
    out.set(e.id, {
      size: reading(s, SCORE_CUTS, 'short_history'),
      dv: reading(d, DV_CUTS, 'no_dollar_volume'),
    });
  });
  for (const e of events) {
    if (!out.has(e.id)) out.set(e.id, { size: unowned(e.value), dv: unowned(awardedValue(e).value) });
  }
  return out;
}
