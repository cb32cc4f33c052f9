/**
 * The announcement rule's reading of each announcement event of a scoring batch, for the
 * `announcement-size` engine: the very functions `evaluate --source announcements` calls
 * (evaluation/announcement-score.ts) over the stored announcement events up to the batch's last page,
 * so the engine's score is the evaluated rule's, not a re-implementation of it.
 */
import type { AnnouncementRuleInput } from '../domain/types.ts';
import { ownershipExcluded, SCORE_CUTS, scoreAnnouncements } from '../evaluation/announcement-score.ts';
import { bucketIndex } from '../evaluation/announcement-study.ts';
import { type ScoredContract, sourceOf } from '../store/contracts.ts';
import type { Queryable } from '../store/db.ts';
import { announcementCoverage, announcementEvents } from '../store/evaluation.ts';

/** Announcement event id → the rule's reading; other events are not in the map. */
export async function announcementRules(
  db: Queryable,
  contracts: readonly ScoredContract[],
): Promise<Map<string, AnnouncementRuleInput>> {
  const out = new Map<string, AnnouncementRuleInput>();
  const batch = contracts.filter((c) => sourceOf(c.id) === 'announcement');
  if (batch.length === 0) return out;
  const last = batch.map((c) => c.awardDate).sort()[batch.length - 1] ?? '';
  const [rows, coverage] = await Promise.all([announcementEvents(db, last), announcementCoverage(db)]);
  if (coverage.first === null) return out;
  // The study's company key is its price ticker (a UTX-era event is priced, and ranked, with RTX's
  // series), not the contract's ticker then: take the batch's keys from the study's own rows.
  const ids = new Set(batch.map((c) => c.id));
  const tickers = new Set(rows.filter((e) => ids.has(e.id)).map((e) => e.ticker));
  const events = rows.filter((e) => tickers.has(e.ticker));
  const owned = events.filter((e) => !ownershipExcluded(e));
  const scores = scoreAnnouncements(owned, coverage.first);
  owned.forEach((e, i) => {
    const s = scores[i];
    if (!s) return;
    out.set(e.id, {
      ratio: s.score,
      quartile: bucketIndex(s.score, SCORE_CUTS),
      pageValue: s.pageValue,
      trailingValue: s.trailingValue,
      reason: s.score === null ? 'short_history' : null,
    });
  });
  for (const e of events) {
    if (!out.has(e.id)) {
      out.set(e.id, {
        ratio: null,
        quartile: null,
        pageValue: e.value,
        trailingValue: null,
        reason: 'ownership',
      });
    }
  }
  return out;
}
