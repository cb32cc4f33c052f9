/**
 * The live announcement poll on its schedule (ANNOUNCEMENTS_LIVE=on; announcement-schedule.ts): in the
 * process that runs the background work of `serve`, and in every `worker`. Each poll takes the
 * PostgreSQL advisory lock and skips when another process holds it or polled moments ago, so a cluster
 * polls once per slot whatever its number of processes. A poll at start-up catches up on what was
 * posted while the service was down. Every poll has a deadline; a failure backs the next one off.
 */
import type { Config } from '../config.ts';
import type { AnnouncementMetrics } from '../infra/announcement-metrics.ts';
import { DodFeedReader } from '../sources/dod-feed.ts';
import { DodContractsError, DodHttp } from '../sources/dod-http.ts';
import { pollState, recordNextRun, recordPoll, withPollLock } from '../store/announcement-pages.ts';
import type { Db } from '../store/db.ts';
import { DEFAULT_SCHEDULE, nextPoll } from './announcement-schedule.ts';
import { createPipelineContext } from './context.ts';
import { type LivePollResult, pollLiveAnnouncements } from './live-announcements.ts';
import type { Scheduler } from './scheduler.ts';

/** A whole poll (feed and every article, retries included) ends within this. */
export const POLL_DEADLINE_MS = 4 * 60_000;

type LiveConfig = Pick<
  Config,
  | 'announcementsLive'
  | 'dodContractsFeedUrl'
  | 'dodContractsProxy'
  | 'dodContractsUserAgent'
  | 'dodContractsTimeoutMs'
  | 'signalThreshold'
>;

/** The feed reader a configuration describes. */
export function liveReader(
  config: LiveConfig,
  onRetry?: (info: { what: string; attempt: number; delayMs: number; reason: string }) => void,
): { reader: DodFeedReader; close: () => Promise<void> } {
  const http = new DodHttp({
    proxyUrl: config.dodContractsProxy,
    userAgent: config.dodContractsUserAgent ?? undefined,
    timeoutMs: config.dodContractsTimeoutMs,
  });
  return { reader: new DodFeedReader(http, config.dodContractsFeedUrl, onRetry), close: () => http.close() };
}

export interface PollerOptions {
  now?: () => Date;
  metrics?: AnnouncementMetrics;
  schedule?: typeof DEFAULT_SCHEDULE;
}

type Logger = { info(message: string): void; warn(message: string): void; error(message: string): void };

/** Counts a finished poll's articles into the metrics. */
function count(metrics: AnnouncementMetrics | undefined, result: LivePollResult): void {
  metrics?.poll(result.errors.length > 0 ? 'failed' : 'ok');
  metrics?.pages('changed', result.pages);
  metrics?.pages('unchanged', result.unchanged);
  metrics?.pages('missing', result.missing.length);
  metrics?.pages('failed', result.errors.length);
  metrics?.events(result.events);
  metrics?.refused(result.errors.filter((e) => e.refused).length);
}

/** One scheduled poll: true when it succeeded or was skipped, false when it failed. */
async function pollOnce(
  db: Db,
  config: LiveConfig,
  reader: DodFeedReader,
  log: Logger,
  options: PollerOptions & { signal: AbortSignal },
): Promise<boolean> {
  const now = options.now ?? (() => new Date());
  const everyMs = (options.schedule ?? DEFAULT_SCHEDULE).everyMs;
  const polled = await withPollLock(db, async () => {
    const state = await pollState(db);
    if (state?.lastPollAt && now().getTime() - Date.parse(state.lastPollAt) < everyMs / 2) return 'recent';
    const ctx = await createPipelineContext(db, { signalThreshold: config.signalThreshold, now });
    try {
      const result = await pollLiveAnnouncements(ctx, reader, { signal: options.signal, log: log.info });
      const failed = result.errors[0];
      await recordPoll(db, {
        at: now().toISOString(),
        newest: result.newest,
        news: result.paragraphs > 0,
        error: failed ? failed.message : null,
        refused: result.errors.some((e) => e.refused),
      });
      count(options.metrics, result);
      log.info(
        `announcements: live poll: ${result.items} releases listed, ${result.pages} read, ${result.unchanged} unchanged, ` +
          `${result.paragraphs} new paragraphs, ${result.events} events, ${result.signals_created} signals, ${result.errors.length} failed`,
      );
      return failed ? 'failed' : 'ok';
    } catch (error) {
      if (!(error instanceof DodContractsError)) throw error;
      await recordPoll(db, {
        at: now().toISOString(),
        newest: null,
        news: false,
        error: error.message,
        refused: error.refused,
      });
      options.metrics?.poll('failed');
      if (error.refused) options.metrics?.refused();
      log.warn(`announcements: live poll failed: ${error.message}`);
      return 'failed';
    }
  });
  if (polled === null || polled === 'recent') {
    options.metrics?.poll('skipped');
    log.info(
      `announcements: live poll skipped: ${polled === null ? 'another process is polling' : 'another process polled moments ago'}`,
    );
  }
  return polled !== 'failed';
}

/** The schedule of live polls, or null when ANNOUNCEMENTS_LIVE is off. */
export function startAnnouncementPoller(
  db: Db,
  config: LiveConfig,
  log: Logger,
  options: PollerOptions = {},
): Scheduler | null {
  if (!config.announcementsLive) return null;
  const now = options.now ?? (() => new Date());
  const { reader, close } = liveReader(config);
  const abort = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let failures = 0;
  const fire = () => {
    const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(POLL_DEADLINE_MS)]);
    running = pollOnce(db, config, reader, log, { ...options, signal })
      .then((ok) => {
        failures = ok ? 0 : failures + 1;
      })
      .catch((error: unknown) => {
        failures += 1;
        if (!abort.signal.aborted) log.error(`announcements: live poll failed: ${String(error)}`);
      })
      .then(async () => {
        if (abort.signal.aborted) return;
        const next = nextPoll(now(), failures, options.schedule);
        await recordNextRun(db, next.toISOString()).catch(() => undefined);
        if (!abort.signal.aborted) timer = setTimeout(fire, Math.max(0, next.getTime() - now().getTime()));
      })
      .finally(() => {
        running = null;
      });
  };
  fire();
  return {
    async stop() {
      abort.abort();
      if (timer) clearTimeout(timer);
      await running;
      await close();
    },
  };
}
