import { fileURLToPath } from 'node:url';
import { normalizeName } from '../domain/names.ts';
import { loadDemoAnnouncements } from '../sources/announcements.ts';
import { loadDemoAwards } from '../sources/awards.ts';
import { loadDemoCandles } from '../sources/candles.ts';
import { loadDemoCompanies } from '../sources/companies.ts';
import { loadIdentityFiles } from '../sources/identity.ts';
import type { Db } from '../store/db.ts';
import { replaceIdentity, saveResolverVersion } from '../store/identity.ts';
import { insertAliases, loadCandles, upsertCompanies } from '../store/writes.ts';
import { type AnnouncementCounts, ingestAnnouncements } from './announcements.ts';
import { createPipelineContext } from './context.ts';
import { type IngestCounts, ingestAwards } from './ingest.ts';

/** The real public data shipped with the project (see data/SOURCES.md). */
export const DEMO_DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));

const CHUNK = 5000;

export interface SeedReport {
  companies: number;
  aliases: number;
  candles: number;
  awards: IngestCounts;
  rejected: number;
  announcements: AnnouncementCounts;
}

/** The demo serves the last months of the shipped announcements; `ingest announcements --file` loads them all. */
export const DEMO_ANNOUNCEMENTS_SINCE = '2019-01-01';

/** Loads companies, aliases and candles, then runs every demo award through the pipeline. Idempotent. */
export async function seed(
  db: Db,
  options: { signalThreshold: number; log?: (line: string) => void; dataDir?: string },
): Promise<SeedReport> {
  const log = options.log ?? (() => undefined);
  const dataDir = options.dataDir ?? DEMO_DATA_DIR;

  // Files are read and parsed while the database writes what came before them: node's work and the
  // server's overlap (the first start loads these, and waits for them).
  const loadingCandles = loadDemoCandles(dataDir);
  loadingCandles.catch(() => undefined);
  const { companies, aliases } = await loadDemoCompanies(dataDir);
  for (let i = 0; i < companies.length; i += CHUNK) await upsertCompanies(db, companies.slice(i, i + CHUNK));
  const known = new Set(companies.map((c) => c.ticker));
  const aliasRows = aliases
    .filter((a) => known.has(a.ticker))
    .map((a) => ({ aliasNorm: normalizeName(a.alias), ticker: a.ticker, source: a.source }));
  await insertAliases(db, aliasRows);
  const identity = await loadIdentityFiles(dataDir);
  await replaceIdentity(db, identity);
  log(
    `seed: ${companies.length} companies, ${aliasRows.length} aliases, ${identity.entities.length} identity entities, ` +
      `${identity.edges.length} ownership edges`,
  );

  const candles = await loadingCandles;
  const loadingAwards = loadDemoAwards(dataDir);
  loadingAwards.catch(() => undefined);
  await db.transaction((tx) => loadCandles(tx, candles));
  const candleCount = [...candles.values()].reduce((sum, series) => sum + series.length, 0);
  log(`seed: ${candleCount} candles for ${candles.size} tickers`);

  const { awards, rejected } = await loadingAwards;
  const ctx = await createPipelineContext(db, { signalThreshold: options.signalThreshold });
  const counts = await ingestAwards(ctx, awards, {
    onProgress: (stage, done, total) => log(`seed: ${stage} ${done}/${total}`),
  });
  log(
    `seed: ${counts.received} awards (${counts.inserted} new, ${counts.updated} updated), ${counts.matched} matched, ` +
      `${counts.unmatched} unmatched, ${counts.signals_created} signals created, ${rejected.length} source rows rejected`,
  );
  const { paragraphs } = await loadDemoAnnouncements(dataDir, DEMO_ANNOUNCEMENTS_SINCE);
  const announced = await ingestAnnouncements(ctx, paragraphs);
  await saveResolverVersion(db, ctx.identity.version, new Date());
  log(
    `seed: ${announced.paragraphs} announcement paragraphs since ${DEMO_ANNOUNCEMENTS_SINCE}, ${announced.events} awardee events ` +
      `(${announced.matched} matched), ${announced.linked} linked to awards, ${announced.signals_created} signals created, ${announced.predictions} predictions`,
  );
  return {
    announcements: announced,
    companies: companies.length,
    aliases: aliasRows.length,
    candles: candleCount,
    awards: counts,
    rejected: rejected.length,
  };
}
