/**
 * `ingest announcements --live`: one poll of DoD's contracts feed (DOD_CONTRACTS_FEED_URL), stored as
 * the schedule in `serve` stores it (pipeline/live-announcements.ts). Exit 0 when the feed and every
 * article listed could be read (an article listed but missing, 404, is reported and is not a failure),
 * 1 otherwise — what could be read is stored either way, and the next poll asks again for the rest.
 */
import { CommandFailed, say, withDb } from './cli-errors.ts';
import type { Config } from './config.ts';
import { createPipelineContext } from './pipeline/context.ts';
import { pollLiveAnnouncements } from './pipeline/live-announcements.ts';
import { liveReader } from './pipeline/live-scheduler.ts';
import { DodContractsError } from './sources/dod-http.ts';
import { recordPoll, withPollLock } from './store/announcement-pages.ts';
import { migrate } from './store/migrate.ts';

export async function pollAnnouncementsOnce(config: Config): Promise<void> {
  const { reader, close } = liveReader(config, ({ what, attempt, delayMs, reason }) =>
    say(`announcements: ${what}: ${reason}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`),
  );
  try {
    await withDb(config, async (db) => {
      await migrate(db);
      const ctx = await createPipelineContext(db, { signalThreshold: config.signalThreshold });
      const result = await withPollLock(db, async () => {
        try {
          return await pollLiveAnnouncements(ctx, reader, { log: say });
        } catch (error) {
          if (!(error instanceof DodContractsError)) throw error;
          const at = new Date().toISOString();
          await recordPoll(db, {
            at,
            newest: null,
            news: false,
            error: error.message,
            refused: error.refused,
          });
          throw new CommandFailed(error.message);
        }
      });
      if (result === null)
        throw new CommandFailed(
          'another process is polling the DoD feed now (the schedule in serve?); try again',
        );
      const failed = result.errors[0];
      await recordPoll(db, {
        at: new Date().toISOString(),
        newest: result.newest,
        news: result.paragraphs > 0,
        error: failed?.message ?? null,
        refused: result.errors.some((e) => e.refused),
      });
      say(
        `ingest: announcements --live: ${result.items} releases in the feed, ${result.pages} pages read, ` +
          `${result.unchanged} unchanged, ${result.paragraphs} new paragraphs (${result.versions} corrected), ` +
          `${result.events} awardee events, ${result.signals_created} signals created`,
      );
      if (result.errors.length > 0)
        throw new CommandFailed(
          `${result.errors.length} of ${result.items} articles could not be read (the rest are stored): ${failed?.message}`,
        );
    });
  } finally {
    await close();
  }
}
