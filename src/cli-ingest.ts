/**
 * Data commands: `ingest usaspending (--file F | --from D --to D) [--restart]`,
 * `ingest candles --file F --ticker T`, `score [--engine E] [--all]`, `unmatched [--limit N] [--json]`.
 * Progress and the closing summary go to stderr; `unmatched` writes its report to stdout.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CommandFailed, say, withDb } from './cli-errors.ts';
import { type Config, ConfigError } from './config.ts';
import { ENGINES, engineNames, getEngine } from './domain/engines/index.ts';
import { ingestAnnouncements } from './pipeline/announcements.ts';
import { createPipelineContext } from './pipeline/context.ts';
import { FileFormatError, type FileRejection, importAwardFile, importCandleFile } from './pipeline/import.ts';
import { summary } from './pipeline/ingest.ts';
import { scoreStored } from './pipeline/score.ts';
import { runUsaspending } from './pipeline/usaspending.ts';
import {
  type AnnouncementFileResult,
  parseAnnouncementsCsv,
  splitAnnouncementPage,
} from './sources/announcements.ts';
import { isIsoDate } from './sources/candles.ts';
import { DodClient, DodContractsError } from './sources/dod-client.ts';
import { readTextFile } from './sources/files.ts';
import { UsaspendingClient, UsaspendingError } from './sources/usaspending-client.ts';
import { type Db, describeDatabaseError } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { listUnmatched } from './store/unmatched.ts';

type Command = (args: string[], config: Config) => Promise<void>;

/** USASpending's search covers action dates from FY2008 on; older awards come from bulk files. */
const EARLIEST_SEARCH_DATE = '2007-10-01';
const SHOWN_REJECTIONS = 20;
const BENCHMARKS = ['SPY', 'XLI', 'ITA'];

/** The command's database, migrated first. */
const withMigratedDb = <T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> =>
  withDb(config, async (db) => {
    await migrate(db);
    return fn(db);
  });

/** Fails before the database is opened (and locked) when the file cannot be read. */
async function checkFile(path: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw new ConfigError('--file', `${path} is not a readable file`);
}

/** A file that is not what the command reads is a bad argument (exit 2), not a crash. */
function asFileError(error: unknown): never {
  if (error instanceof FileFormatError) throw new ConfigError('--file', error.message);
  throw error;
}

/**
 * The database refused the import (a full disk, a read-only database, a lost server): say so, and
 * what was kept. Records are stored in transactions of up to 5,000 and scored afterwards, so nothing
 * is half-written, and running the command again completes the import: stored records are updated
 * in place, never duplicated, and ones left unscored are scored.
 */
function asStoppedImport(error: unknown): never {
  const reason = describeDatabaseError(error);
  if (reason === null) throw error;
  throw new CommandFailed(
    `ingest stopped: ${reason}. Nothing is half-written: records are stored in whole transactions of ` +
      'up to 5,000 (a smaller file: all or none). Once the database accepts writes, run the same ' +
      'command again to complete the import; stored records are updated in place, not duplicated.',
  );
}

function showRejections(rejected: readonly FileRejection[], total: number): void {
  for (const r of rejected.slice(0, SHOWN_REJECTIONS)) {
    say(`  rejected ${'line' in r ? `line ${r.line}` : `index ${r.index}`}: ${r.message}`);
  }
  if (total > SHOWN_REJECTIONS) say(`  … and ${total - SHOWN_REJECTIONS} more rejected`);
}

async function ingestFile(path: string, config: Config): Promise<void> {
  await checkFile(path);
  // Refused while connecting or migrating too (a backend that cannot write its cache file on a full
  // disk, a read-only database): the same message, and the same advice, as a refusal mid-import.
  await withMigratedDb(config, async (db) => {
    const ctx = await createPipelineContext(db, { signalThreshold: config.signalThreshold });
    const result = await importAwardFile(ctx, path, { log: say }).catch(asFileError);
    showRejections(result.rejected, result.rejectedTotal);
    say(`ingest: ${path} (${result.format}): ${summary(result, result.rejectedTotal)}`);
  }).catch(asStoppedImport);
}

/** `--from` and `--to` as dates, in order. */
function datePeriod(from: string, to: string): { from: string; to: string } {
  for (const [name, value] of [
    ['--from', from],
    ['--to', to],
  ] as const) {
    if (!isIsoDate(value)) throw new ConfigError(name, `expected a date YYYY-MM-DD, got "${value}"`);
  }
  if (from > to) throw new ConfigError('--from', `${from} is after --to ${to}`);
  return { from, to };
}

function periodArgs(from: string, to: string): { from: string; to: string } {
  datePeriod(from, to);
  if (from < EARLIEST_SEARCH_DATE) {
    throw new ConfigError(
      '--from',
      `USASpending searches start at ${EARLIEST_SEARCH_DATE}; use --file for older awards`,
    );
  }
  return { from, to };
}

async function ingestApi(
  period: { from: string; to: string },
  restart: boolean,
  config: Config,
): Promise<void> {
  const client = new UsaspendingClient({
    baseUrl: config.usaspendingBaseUrl,
    onRetry: ({ page, attempt, delayMs, reason }) =>
      say(`usaspending: page ${page}: ${reason}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`),
  });
  try {
    await withMigratedDb(config, async (db) => {
      const ctx = await createPipelineContext(db, { signalThreshold: config.signalThreshold });
      const result = await runUsaspending(ctx, client, period, { restart, log: say }).catch(
        (error: unknown) => {
          if (!(error instanceof UsaspendingError)) throw error;
          throw new CommandFailed(`${error.message}; rerun the same command to resume from the checkpoint`);
        },
      );
      if (result.firstPage === null) {
        say(`ingest: ${result.key} was ingested completely before; --restart fetches it again`);
        return;
      }
      for (const r of result.counts.rejected.slice(0, SHOWN_REJECTIONS)) {
        say(`  rejected page ${r.page} index ${r.index}: ${r.message}`);
      }
      const pages = `${result.pages} page${result.pages === 1 ? '' : 's'}`;
      say(`ingest: ${result.key}: ${pages}, ${summary(result.counts, result.counts.rejected.length)}`);
    });
  } finally {
    await client.close();
  }
}

async function ingestCommand(args: string[], config: Config): Promise<void> {
  const [source, ...rest] = args;
  if (source === 'usaspending') {
    const { values } = parseArgs({
      args: rest,
      options: {
        file: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        restart: { type: 'boolean' },
      },
    });
    const { file, from, to, restart } = values;
    if (file !== undefined && from === undefined && to === undefined && restart === undefined) {
      return ingestFile(file, config);
    }
    if (file === undefined && from !== undefined && to !== undefined) {
      return ingestApi(periodArgs(from, to), restart ?? false, config);
    }
    throw new ConfigError(
      'arguments',
      'use ingest usaspending --file F, or --from YYYY-MM-DD --to YYYY-MM-DD [--restart]',
    );
  }
  if (source === 'candles') {
    const { values } = parseArgs({
      args: rest,
      options: { file: { type: 'string' }, ticker: { type: 'string' } },
    });
    return ingestCandles(values.file, values.ticker, config);
  }
  if (source === 'announcements') {
    const { values } = parseArgs({
      args: rest,
      options: {
        file: { type: 'string' },
        date: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        live: { type: 'boolean' },
      },
    });
    const { file, date, from, to, live } = values;
    if (live) {
      if (file !== undefined || date !== undefined || from !== undefined || to !== undefined)
        throw new ConfigError('arguments', 'ingest announcements --live takes no other option');
      return (await import('./cli-live.ts')).pollAnnouncementsOnce(config);
    }
    if (from !== undefined || to !== undefined) {
      if (file !== undefined || date !== undefined || from === undefined || to === undefined)
        throw new ConfigError(
          'arguments',
          'use ingest announcements --from YYYY-MM-DD --to YYYY-MM-DD, or --file F',
        );
      return fetchAnnouncements(announcementPeriod(from, to), config);
    }
    return ingestAnnouncementFile(file, date, config);
  }
  throw new ConfigError(
    'arguments',
    'use ingest usaspending …, ingest candles --file F --ticker T or ingest announcements --file F [--date D] | --live',
  );
}

/** At most a year of days per run: a longer backfill is several runs (each day is one request). */
const MAX_ANNOUNCEMENT_DAYS = 366;

function announcementPeriod(from: string, to: string): { from: string; to: string } {
  datePeriod(from, to);
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (days > MAX_ANNOUNCEMENT_DAYS)
    throw new ConfigError('--to', `at most ${MAX_ANNOUNCEMENT_DAYS} days per run (asked for ${days})`);
  return { from, to };
}

/** Each day's page from DOD_CONTRACTS_BASE_URL, through the pipeline as it arrives. */
async function fetchAnnouncements(period: { from: string; to: string }, config: Config): Promise<void> {
  const client = new DodClient({
    baseUrl: config.dodContractsBaseUrl,
    onRetry: ({ date, attempt, delayMs, reason }) =>
      say(`announcements: ${date}: ${reason}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`),
  });
  try {
    await withMigratedDb(config, async (db) => {
      const ctx = await createPipelineContext(db, { signalThreshold: config.signalThreshold });
      let days = 0;
      let events = 0;
      let signals = 0;
      try {
        for await (const { date, day } of client.fetchRange(period.from, period.to)) {
          if (!day) {
            say(`announcements: ${date}: no page`);
            continue;
          }
          const c = await ingestAnnouncements(ctx, day.paragraphs);
          days += 1;
          events += c.events;
          signals += c.signals_created;
          say(
            `announcements: ${date}: ${c.paragraphs} paragraphs, ${c.events} events, ${c.signals_created} signals`,
          );
        }
      } catch (error) {
        if (!(error instanceof DodContractsError)) throw error;
        throw new CommandFailed(`${error.message}; the days before it are stored, rerun from that day`);
      }
      say(
        `ingest: announcements ${period.from}..${period.to}: ${days} pages, ${events} awardee events, ${signals} signals created`,
      );
    });
  } finally {
    await client.close();
  }
}

/**
 * DoD contract announcements: a CSV of paragraphs (`announcement_date,section,paragraph_no,text`, or
 * `announcement,date`), or one day's page as plain text with `--date`.
 */
async function ingestAnnouncementFile(
  file: string | undefined,
  date: string | undefined,
  config: Config,
): Promise<void> {
  if (!file) throw new ConfigError('arguments', 'ingest announcements needs --file F');
  if (date !== undefined && !isIsoDate(date))
    throw new ConfigError('--date', `expected YYYY-MM-DD, got "${date}"`);
  await checkFile(file);
  const text = await readTextFile(file);
  const csv = date === undefined;
  let read: AnnouncementFileResult;
  try {
    read = csv
      ? parseAnnouncementsCsv(text)
      : { paragraphs: splitAnnouncementPage(date, text), rejected: [] };
  } catch (error) {
    throw new CommandFailed(`${file}: ${(error as Error).message} (a page of plain text needs --date)`);
  }
  for (const r of read.rejected.slice(0, SHOWN_REJECTIONS)) say(`  rejected line ${r.line}: ${r.message}`);
  await withMigratedDb(config, async (db) => {
    const ctx = await createPipelineContext(db, { signalThreshold: config.signalThreshold });
    const c = await ingestAnnouncements(ctx, read.paragraphs, say);
    say(
      `ingest: ${file}: ${c.paragraphs} paragraphs, ${c.announced} announcing an action, ${c.events} awardee events ` +
        `(${c.matched} matched), ${c.linked} linked to awards, ${read.rejected.length} rejected, ${c.signals_created} signals created`,
    );
  });
}

async function ingestCandles(
  file: string | undefined,
  ticker: string | undefined,
  config: Config,
): Promise<void> {
  if (!file || !ticker) throw new ConfigError('arguments', 'ingest candles needs --file F and --ticker T');
  if (!/^[A-Za-z0-9.-]{1,10}$/.test(ticker)) throw new ConfigError('--ticker', `"${ticker}" is not a ticker`);
  await checkFile(file);
  await withMigratedDb(config, async (db) => {
    const result = await importCandleFile(db, file, ticker).catch(asFileError);
    showRejections(result.rejected, result.rejected.length);
    say(`candles: ${result.imported} bars stored for ${result.ticker}, ${result.rejected.length} rejected`);
    if (BENCHMARKS.includes(result.ticker)) {
      say('candles: regimes are computed from SPY/XLI/ITA; `score --all` recomputes them and the scores');
    }
  });
}

async function scoreCommand(args: string[], config: Config): Promise<void> {
  const { values } = parseArgs({ args, options: { engine: { type: 'string' }, all: { type: 'boolean' } } });
  const engine = values.engine === undefined ? null : getEngine(values.engine);
  if (engine === undefined) {
    throw new ConfigError(
      '--engine',
      `unknown engine "${values.engine}"; known engines: ${engineNames().join(', ')}`,
    );
  }
  await withMigratedDb(config, async (db) => {
    const engines = engine ? [engine] : ENGINES;
    const ctx = await createPipelineContext(db, { signalThreshold: config.signalThreshold, engines });
    const done = await scoreStored(ctx, { kind: values.all ? 'all' : 'unscored' }, say);
    const which = engines.map((e) => `${e.name} ${e.version}`).join(', ');
    say(`score: ${done.contracts} contract scorings (${which}), ${done.created} signals created`);
  });
}

async function unmatchedCommand(args: string[], config: Config): Promise<void> {
  const { values } = parseArgs({ args, options: { limit: { type: 'string' }, json: { type: 'boolean' } } });
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) {
    throw new ConfigError('--limit', 'expected an integer 1..100000');
  }
  await withMigratedDb(config, async (db) => {
    const { rows } = await listUnmatched(db, { limit, offset: 0 });
    if (values.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
    else {
      process.stdout.write(`${'total_value'.padStart(16)}  ${'awards'.padStart(6)}  recipient\n`);
      for (const r of rows) {
        process.stdout.write(
          `${String(r.total_value).padStart(16)}  ${String(r.award_count).padStart(6)}  ${r.sample_name}\n`,
        );
      }
    }
    say(`unmatched: ${rows.length} recipients shown, largest total value first`);
  });
}

export const ingestCommands: Record<string, Command> = {
  ingest: ingestCommand,
  score: scoreCommand,
  unmatched: unmatchedCommand,
};
