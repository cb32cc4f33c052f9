/** What the identity measurements read: the shipped resolver inputs, identity data, awards and announcements. */
import { buildDatedResolver, type DatedResolver } from '../domain/dated-resolver.ts';
import { IdentityModel } from '../domain/identity.ts';
import { normalizeName } from '../domain/names.ts';
import { buildResolver } from '../domain/resolver.ts';
import { DEMO_DATA_DIR } from '../pipeline/seed.ts';
import { loadDemoAnnouncements, parseParagraph } from '../sources/announcements.ts';
import { loadDemoAwards } from '../sources/awards.ts';
import { loadDemoCompanies } from '../sources/companies.ts';
import { loadIdentityFiles } from '../sources/identity.ts';
import type { IdentityEvent } from './identity-eval.ts';

/** The shipped announcements begin in August 2014. */
const ANNOUNCEMENTS_FROM = '2014-08-01';

export async function loadIdentityEvaluation(dataDir = DEMO_DATA_DIR): Promise<{
  dated: DatedResolver;
  /** The same resolver with no identity data: today's owner whatever the date (the baseline). */
  undated: DatedResolver;
  awards: IdentityEvent[];
  announcements: IdentityEvent[];
}> {
  const [{ companies, aliases }, identity, demo, shipped] = await Promise.all([
    loadDemoCompanies(dataDir),
    loadIdentityFiles(dataDir),
    loadDemoAwards(dataDir),
    loadDemoAnnouncements(dataDir, ANNOUNCEMENTS_FROM),
  ]);
  const known = new Set(companies.map((c) => c.ticker));
  const base = buildResolver(
    aliases
      .filter((a) => known.has(a.ticker))
      .map((a) => ({ aliasNorm: normalizeName(a.alias), ticker: a.ticker, source: a.source })),
    companies,
  );
  const dated = buildDatedResolver(base, new IdentityModel(identity));
  const awards = demo.awards.map((a) => ({
    name: a.recipientName,
    parent: a.parentName,
    date: a.awardDate,
    value: a.value,
    parsed: true,
  }));
  const announcements: IdentityEvent[] = [];
  for (const p of shipped.paragraphs) {
    const parsed = parseParagraph(p.text);
    if (parsed.kind === 'other' || parsed.awardees.length === 0) {
      announcements.push({ name: '', parent: null, date: p.date, value: 0, parsed: false });
      continue;
    }
    const share = Math.round((parsed.faceValue ?? 0) / parsed.awardees.length);
    for (const a of parsed.awardees) {
      announcements.push({ name: a.name, parent: null, date: p.date, value: share, parsed: true });
    }
  }
  const undated = buildDatedResolver(
    base,
    new IdentityModel({ entities: [], listings: [], edges: [], names: [] }),
  );
  return { dated, undated, awards, announcements };
}
