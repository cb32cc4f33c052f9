/**
 * Announcements through the one pipeline: read (sources/announcements.ts) → store the paragraphs →
 * each awardee of an announced action becomes an event (resolve, classify, store: ingest.ts) carrying
 * the announcement's time → link events and awards naming the same contract number → score
 * (score.ts); predict each event's next five days (predict.ts). A signal created here fires `signal.created` the evening of the announcement; the award,
 * when USASpending publishes it months later, is linked to it and sends nothing again.
 */
import { awardedValue } from '../domain/awarded-value.ts';
import type { AwardRecord } from '../domain/types.ts';
import { type AnnouncementParagraph, parseParagraph } from '../sources/announcements.ts';
import {
  type AnnouncementRow,
  type AnnouncementSource,
  announcementId,
  linkAnnouncements,
  markAnnounced,
  upsertAnnouncements,
} from '../store/announcements.ts';
import type { ScoredContract } from '../store/contracts.ts';
import type { PipelineContext } from './context.ts';
import { ingestAwards } from './ingest.ts';
import { predictEvents } from './predict.ts';
import { scoreContracts } from './score.ts';

export interface AnnouncementCounts {
  paragraphs: number;
  /** Paragraphs that announce an action with a value (the rest: footnotes, corrections, fragments). */
  announced: number;
  /** Awardee events stored (new or changed), matched to a ticker or not. */
  events: number;
  matched: number;
  linked: number;
  signals_created: number;
  /** Predictions stored (src/pipeline/predict.ts): events new to the current model with a priced ticker. */
  predictions: number;
}

/** The agency every announcement on these pages comes from. */
const AGENCY = 'Department of Defense';
const MAX_DESCRIPTION = 10_000;
const BATCH = 2000;

/**
 * One event per awardee, valued at the money it was really awarded (domain/awarded-value.ts): a
 * shared ceiling is a licence to compete, so its holders get their share of the obligated amount.
 */
function eventsOf(row: AnnouncementRow): { award: AwardRecord; piids: string[] }[] {
  const { parsed } = row;
  if (parsed.kind === 'other' || parsed.faceValue === null || parsed.awardees.length === 0) return [];
  const { value } = awardedValue({
    faceValue: parsed.faceValue,
    obligatedAtAward: parsed.obligatedAtAward,
    awardees: parsed.awardees.length,
  });
  return parsed.awardees.map((awardee, i) => ({
    award: {
      id: `${row.id}_${i + 1}`,
      piid: awardee.contractNumbers[0] ?? parsed.contractNumbers[0] ?? null,
      recipientName: awardee.name.slice(0, 500),
      recipientUei: null,
      parentName: null,
      parentUei: null,
      awardingAgency: AGENCY,
      awardingSubAgency: row.section ? row.section.slice(0, 500) : null,
      value,
      awardDate: row.date,
      description: row.text.slice(0, MAX_DESCRIPTION),
      naics: null,
      psc: null,
      sourceModifiedAt: null,
    },
    piids: (awardee.contractNumbers.length > 0 ? awardee.contractNumbers : parsed.contractNumbers).map((n) =>
      n.replace(/-/g, ''),
    ),
  }));
}

/** A paragraph, and where it was read when that was a live page. */
export type SourcedParagraph = AnnouncementParagraph & { source?: AnnouncementSource };

export async function ingestAnnouncements(
  ctx: PipelineContext,
  paragraphs: readonly SourcedParagraph[],
  log?: (line: string) => void,
): Promise<AnnouncementCounts> {
  const counts: AnnouncementCounts = {
    paragraphs: paragraphs.length,
    announced: 0,
    events: 0,
    matched: 0,
    linked: 0,
    signals_created: 0,
    predictions: 0,
  };
  const toScore: ScoredContract[] = [];
  for (let start = 0; start < paragraphs.length; start += BATCH) {
    const rows: AnnouncementRow[] = paragraphs.slice(start, start + BATCH).map((p) => ({
      id: announcementId(p.date, p.paragraphNo),
      date: p.date,
      section: p.section,
      paragraphNo: p.paragraphNo,
      text: p.text,
      parsed: parseParagraph(p.text),
      source: p.source,
    }));
    await ctx.db.transaction((tx) => upsertAnnouncements(tx, rows));
    const perRow = rows.map((row) => eventsOf(row).map((e) => ({ ...e, announcementId: row.id })));
    const events = perRow.flat();
    counts.announced += perRow.filter((list) => list.length > 0).length;
    const stored = await ingestAwards(
      ctx,
      events.map((e) => e.award),
      { score: false, onUnscored: (contracts) => toScore.push(...contracts) },
    );
    counts.events += stored.inserted + stored.updated;
    counts.matched += stored.matched;
    await ctx.db.transaction(async (tx) => {
      await markAnnounced(
        tx,
        events.map((e) => ({ id: e.award.id, announcementId: e.announcementId, piids: e.piids })),
      );
      counts.linked += await linkAnnouncements(
        tx,
        events.map((e) => e.award.id),
      );
    });
    // After markAnnounced: a prediction is made at the event's available_at, the announcement's time.
    counts.predictions += await predictEvents(
      ctx.db,
      events.map((e) => e.award.id),
    );
    log?.(`announcements: ${Math.min(start + BATCH, paragraphs.length)}/${paragraphs.length} paragraphs`);
  }
  counts.signals_created = await scoreContracts(ctx, toScore);
  return counts;
}
