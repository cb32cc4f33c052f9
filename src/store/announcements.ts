/**
 * DoD contract announcements: the paragraphs as read, their awardees' events (rows of `contracts`
 * with DOD_ANN_ ids) and the links between an announced event and the USASpending award it became.
 */
import type { AnnouncementKind, ParsedParagraph } from '../sources/announcements.ts';
import type { Queryable } from './db.ts';

/** Where a live paragraph was read (absent for one read from a file). */
export interface AnnouncementSource {
  /** The article's address. */
  url: string;
  articleId: string;
  fetchedAt: string;
  /** sha256 of the article's release text when this paragraph was read. */
  contentHash: string;
  /** The id of the earlier version this paragraph corrects, if any. */
  supersedes: string | null;
  /** Later than 17:00 New York of the date: a corrected version is announced when first seen. */
  announcedAt: string | null;
  /** Later than announced_at: a paragraph an amendment added was public from when it was first seen. */
  availableAt: string | null;
}

export interface AnnouncementRow {
  id: string;
  date: string;
  section: string;
  paragraphNo: number;
  text: string;
  parsed: ParsedParagraph;
  source?: AnnouncementSource;
}

/** `DOD_ANN_<date>_<paragraph, 4 digits>`; an awardee's event appends `_<position>`. */
export const announcementId = (date: string, paragraphNo: number): string =>
  `DOD_ANN_${date}_${String(paragraphNo).padStart(4, '0')}`;

/**
 * Stores paragraphs (a paragraph read again keeps its first_seen_at; its fields follow the parser).
 * Returns the ids whose row was new or changed.
 */
export async function upsertAnnouncements(
  tx: Queryable,
  rows: readonly AnnouncementRow[],
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const records = [...rows]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((r) => ({
      id: r.id,
      announced_on: r.date,
      section: r.section,
      paragraph_no: r.paragraphNo,
      text: r.text,
      kind: r.parsed.kind,
      face_value: r.parsed.faceValue,
      obligated_at_award: r.parsed.obligatedAtAward,
      contract_numbers: r.parsed.contractNumbers,
      modification_number: r.parsed.modificationNumber,
      contract_types: r.parsed.contractTypes,
      competed: r.parsed.competition.competed,
      offers: r.parsed.competition.offers,
      contracting_activity: r.parsed.contractingActivity,
      multiple_award: r.parsed.multipleAward,
      awardees: r.parsed.awardees,
      source_url: r.source?.url ?? null,
      article_id: r.source?.articleId ?? null,
      fetched_at: r.source?.fetchedAt ?? null,
      content_hash: r.source?.contentHash ?? null,
      supersedes: r.source?.supersedes ?? null,
      announced_at: r.source?.announcedAt ?? null,
      available_at: r.source?.availableAt ?? null,
    }));
  const written = await tx.query<{ id: string }>(
    `INSERT INTO announcements (id, announced_on, announced_at, available_at, section, paragraph_no, text, kind,
       face_value, obligated_at_award, contract_numbers, modification_number, contract_types, competed, offers,
       contracting_activity, multiple_award, awardees, source_url, article_id, fetched_at, content_hash, supersedes)
     SELECT u.id, u.announced_on, t.announced_at, greatest(u.available_at, t.announced_at), u.section,
       u.paragraph_no, u.text, u.kind, u.face_value, u.obligated_at_award,
       ARRAY(SELECT jsonb_array_elements_text(u.contract_numbers)), u.modification_number,
       ARRAY(SELECT jsonb_array_elements_text(u.contract_types)), u.competed, u.offers, u.contracting_activity,
       u.multiple_award, u.awardees, u.source_url, u.article_id, u.fetched_at, u.content_hash, u.supersedes
     FROM jsonb_to_recordset($1::jsonb) AS u(id text, announced_on date, section text, paragraph_no int, text text,
       kind text, face_value bigint, obligated_at_award bigint, contract_numbers jsonb, modification_number text,
       contract_types jsonb, competed boolean, offers int, contracting_activity text, multiple_award boolean,
       awardees jsonb, source_url text, article_id text, fetched_at timestamptz, content_hash text,
       supersedes text, announced_at timestamptz, available_at timestamptz)
       CROSS JOIN LATERAL (SELECT greatest(u.announced_at,
         (u.announced_on + time '17:00') AT TIME ZONE 'America/New_York') AS announced_at) AS t
     ON CONFLICT (id) DO UPDATE SET section = EXCLUDED.section, text = EXCLUDED.text, kind = EXCLUDED.kind,
       face_value = EXCLUDED.face_value, obligated_at_award = EXCLUDED.obligated_at_award,
       contract_numbers = EXCLUDED.contract_numbers, modification_number = EXCLUDED.modification_number,
       contract_types = EXCLUDED.contract_types, competed = EXCLUDED.competed, offers = EXCLUDED.offers,
       contracting_activity = EXCLUDED.contracting_activity, multiple_award = EXCLUDED.multiple_award,
       awardees = EXCLUDED.awardees
     WHERE (announcements.text, announcements.kind, announcements.awardees, announcements.face_value)
       IS DISTINCT FROM (EXCLUDED.text, EXCLUDED.kind, EXCLUDED.awardees, EXCLUDED.face_value)
     RETURNING id`,
    [JSON.stringify(records)],
  );
  return new Set(written.map((r) => r.id));
}

/** The announcement events just stored: their announcement time, and the contract numbers each names. */
export async function markAnnounced(
  tx: Queryable,
  events: readonly { id: string; announcementId: string; piids: readonly string[] }[],
): Promise<void> {
  if (events.length === 0) return;
  await tx.query(
    `WITH moved AS (
       UPDATE contracts c
       SET announced_at = a.announced_at, available_at = a.available_at, source_url = a.source_url
       FROM jsonb_to_recordset($1::jsonb) AS e(id text, announcement_id text)
         JOIN announcements a ON a.id = e.announcement_id
       WHERE c.id = e.id AND (c.announced_at, c.available_at, c.source_url)
         IS DISTINCT FROM (a.announced_at, a.available_at, a.source_url)
       RETURNING c.id, c.available_at)
     ${SIGNALS_FOLLOW}`,
    [JSON.stringify(events.map((e) => ({ id: e.id, announcement_id: e.announcementId })))],
  );
  await tx.query(
    `INSERT INTO announcement_piids (event_id, piid)
     SELECT e.id, p.piid FROM jsonb_to_recordset($1::jsonb) AS e(id text, piids jsonb)
       CROSS JOIN LATERAL jsonb_array_elements_text(e.piids) AS p(piid)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(events.map((e) => ({ id: e.id, piids: e.piids })))],
  );
}

/**
 * The tail of a statement whose CTE `moved` (id, available_at) changed contracts' `available_at`: their
 * signals carry it too (migration 028), for the signals list's availability filters.
 */
const SIGNALS_FOLLOW = `UPDATE signals s SET available_at = moved.available_at FROM moved
  WHERE s.contract_id = moved.id AND s.available_at IS DISTINCT FROM moved.available_at`;

/** Kinds whose announcement is the award itself being made public (a modification is news about it). */
const ANNOUNCING_KINDS: readonly AnnouncementKind[] = ['award', 'order'];

/**
 * Links announcement events and USASpending awards that name the same contract number (PIID), where
 * either side is among `ids`: the tickers must agree when both resolved (`contract_number_and_ticker`;
 * `contract_number` when one did not). Every event points at its award. An award points back at the
 * earliest event announcing it as a new award or order, and takes that announcement's time as its
 * `available_at` (never later than when it reached the service). Returns the links made.
 */
export async function linkAnnouncements(tx: Queryable, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  // From each side by its own index: awards by the PIIDs announcements name, events by the awards' PIID
  // index. A USASpending batch first asks which of its awards an announcement names (one lookup per
  // award, reading no contract) and links only those: few or none of a batch of thousands. Given the
  // whole batch, the two statements below took half a second a batch once a million contracts were
  // stored while a large import had the awards' PIID index dropped (deferred-indexes.ts): 83 % of that
  // import's time with the DoD announcements of 2014–2019 stored (docs/EVALUATION.md, "Ingest at 50,000
  // awards/s"). A side without ids is cut from the plan (`cardinality` of a constant folds).
  const events = ids.filter((id) => !id.startsWith(AWARD_PREFIX));
  const awards = await announcedAwards(
    tx,
    ids.filter((id) => id.startsWith(AWARD_PREFIX)),
  );
  if (awards.length === 0 && events.length === 0) return 0;
  const pairs = `
    SELECT e.id AS event_id, a.id AS award_id, x.announced_at, x.kind,
      CASE WHEN e.ticker IS NOT NULL AND a.ticker IS NOT NULL THEN 'contract_number_and_ticker' ELSE 'contract_number' END AS method
    FROM (
        SELECT p.event_id, ids.id AS award_id FROM unnest($1::text[]) AS ids(id)
          JOIN announcement_piids p ON p.piid = split_part(ids.id, '_', 3)
        WHERE cardinality($1::text[]) > 0
        UNION
        SELECT p.event_id, a.id FROM announcement_piids p
          JOIN contracts a ON split_part(a.id, '_', 3) = p.piid AND a.id LIKE 'CONT\\_AWD\\_%'
        WHERE p.event_id = ANY($2::text[]) AND cardinality($2::text[]) > 0
      ) AS found
      JOIN contracts e ON e.id = found.event_id
      JOIN contracts a ON a.id = found.award_id
      JOIN announcements x ON x.id = substring(e.id from '^(DOD_ANN_\\d{4}-\\d{2}-\\d{2}_\\d{4})')
    WHERE e.ticker IS NULL OR a.ticker IS NULL OR e.ticker = a.ticker`;
  const linked = await tx.query<{ id: string }>(
    `WITH pairs AS (${pairs}),
     chosen AS (SELECT DISTINCT ON (event_id) event_id, award_id, method FROM pairs ORDER BY event_id, award_id)
     UPDATE contracts c SET linked_id = chosen.award_id, link_method = chosen.method
     FROM chosen WHERE c.id = chosen.event_id AND c.linked_id IS DISTINCT FROM chosen.award_id
     RETURNING c.id`,
    [awards, events],
  );
  await tx.query(
    `WITH pairs AS (${pairs}),
     chosen AS (
       SELECT DISTINCT ON (award_id) award_id, event_id, method, announced_at FROM pairs
       WHERE kind = ANY($3::text[]) ORDER BY award_id, announced_at, event_id),
     moved AS (
       UPDATE contracts c SET linked_id = chosen.event_id, link_method = chosen.method,
         announced_at = chosen.announced_at, available_at = least(c.first_seen_at, chosen.announced_at)
       FROM chosen WHERE c.id = chosen.award_id AND c.linked_id IS DISTINCT FROM chosen.event_id
       RETURNING c.id, c.available_at)
     ${SIGNALS_FOLLOW}`,
    [awards, events, ANNOUNCING_KINDS],
  );
  return linked.length;
}

/** USASpending award ids (the other ids the linker is given are announcement events). */
const AWARD_PREFIX = 'CONT_AWD_';

/** The awards among `ids` whose PIID an announcement event names (by announcement_piids' PIID index). */
async function announcedAwards(tx: Queryable, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query<{ id: string }>(
    `SELECT ids.id FROM unnest($1::text[]) AS ids(id)
     WHERE EXISTS (SELECT 1 FROM announcement_piids p WHERE p.piid = split_part(ids.id, '_', 3))`,
    [ids],
  );
  return rows.map((r) => r.id);
}
