/**
 * What a page read again adds to what is stored for its day. The site amends pages after posting:
 * paragraphs are added (anywhere, not only at the end) and corrected. A paragraph is known by its text,
 * not its position, so an insertion does not renumber the rest: stored paragraphs keep their ids and
 * times. A page paragraph that matches none is either a correction of a stored paragraph that is no
 * longer on the page (same contract number; without one, the same opening: awardee and location) — a new
 * version that supersedes it — or a paragraph the amendment added. Nothing stored is changed or deleted.
 */
import { type AnnouncementParagraph, parseParagraph } from '../sources/announcements.ts';
import type { StoredParagraph } from '../store/announcement-pages.ts';

export interface Reconciled {
  /** Stored paragraphs found on the page as they are. */
  known: string[];
  /** Paragraphs to store, numbered after the day's last (the page's own order on a first reading). */
  fresh: { paragraph: AnnouncementParagraph; supersedes: string | null }[];
}

/**
 * Text as compared: Unicode compatibility forms, typographic quotes and dashes as ASCII, runs of
 * whitespace as one space — the same paragraph from a file and from a page, rendered differently.
 */
export const sameText = (text: string): string =>
  text
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();

/** The opening words of a paragraph up to its first `$`: who, where, and how it was awarded. */
const opening = (text: string): string => sameText(text).split('$')[0]?.slice(0, 80) ?? '';

/**
 * The vanished paragraph `paragraph` corrects: one naming a contract number it names; for a paragraph
 * naming none, one without numbers that opens the same way. -1 when none.
 */
function correctionOf(paragraph: AnnouncementParagraph, vanished: StoredParagraph[]): number {
  const numbers = parseParagraph(paragraph.text).contractNumbers;
  if (numbers.length > 0)
    return vanished.findIndex((v) => parseParagraph(v.text).contractNumbers.some((n) => numbers.includes(n)));
  const open = opening(paragraph.text);
  if (open.length < 20) return -1;
  return vanished.findIndex(
    (v) => parseParagraph(v.text).contractNumbers.length === 0 && opening(v.text) === open,
  );
}

export function reconcile(
  stored: readonly StoredParagraph[],
  page: readonly AnnouncementParagraph[],
): Reconciled {
  if (stored.length === 0)
    return { known: [], fresh: page.map((paragraph) => ({ paragraph, supersedes: null })) };
  const pool = new Map<string, StoredParagraph[]>();
  for (const s of stored) {
    const key = sameText(s.text);
    pool.set(key, [...(pool.get(key) ?? []), s]);
  }
  const known: string[] = [];
  const unmatched: AnnouncementParagraph[] = [];
  for (const p of page) {
    const found = pool.get(sameText(p.text))?.shift();
    if (found) known.push(found.id);
    else unmatched.push(p);
  }
  const superseded = new Set<string>();
  const supersedes = new Map(stored.map((s) => [s.id, s.supersedes]));
  for (const id of supersedes.values()) if (id) superseded.add(id);
  const vanished = stored.filter((s) => !known.includes(s.id) && !superseded.has(s.id));
  let next = Math.max(...stored.map((s) => s.paragraphNo)) + 1;
  const fresh = unmatched.map((p) => {
    const at = correctionOf(p, vanished);
    const earlier = at >= 0 ? (vanished.splice(at, 1)[0]?.id ?? null) : null;
    return { paragraph: { ...p, paragraphNo: next++ }, supersedes: earlier };
  });
  return { known, fresh };
}
