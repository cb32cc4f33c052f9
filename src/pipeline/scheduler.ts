/**
 * The in-process scheduler (`INGEST_SCHEDULE`): one USASpending tick (usaspending.ts) per interval,
 * never two at once.
 */
import type { Config } from '../config.ts';
import { UsaspendingClient } from '../sources/usaspending-client.ts';
import type { Db } from '../store/db.ts';
import { summary } from './ingest.ts';
import { ingestRecent } from './usaspending.ts';

export interface Scheduler {
  /** Stops the timer, aborts a running tick (its checkpoint stays) and waits for it to end. */
  stop(): Promise<void>;
}

/**
 * Runs `tick` now and then every `intervalMs`, measured from the start of the previous tick. The next
 * tick is armed only when the previous one has ended, so ticks never overlap.
 */
export function startScheduler(options: {
  intervalMs: number;
  tick: (signal: AbortSignal) => Promise<void>;
  onError: (error: unknown) => void;
}): Scheduler {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const arm = (waitMs: number) => {
    if (abort.signal.aborted) return;
    timer = setTimeout(fire, Math.max(0, waitMs));
  };
  const fire = () => {
    const started = Date.now();
    running = options
      .tick(abort.signal)
      .catch((error: unknown) => {
        if (!abort.signal.aborted) options.onError(error);
      })
      .finally(() => {
        running = null;
        arm(options.intervalMs - (Date.now() - started));
      });
  };
  arm(0);
  return {
    async stop() {
      abort.abort();
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** The server's scheduled ingest (`INGEST_SCHEDULE`), or null when it is off. */
export function startIngestScheduler(
  db: Db,
  config: Pick<Config, 'ingestSchedule' | 'usaspendingBaseUrl' | 'signalThreshold'>,
  logger: { info(message: string): void; error(message: string): void },
  /** Each tick's counts (the app's /metrics). */
  onCounts?: (counts: {
    inserted: number;
    updated: number;
    rejected: number;
    signals_created: number;
  }) => void,
): Scheduler | null {
  if (config.ingestSchedule === null) return null;
  const client = new UsaspendingClient({ baseUrl: config.usaspendingBaseUrl });
  const scheduler = startScheduler({
    intervalMs: config.ingestSchedule,
    tick: async (signal) => {
      const result = await ingestRecent(db, client, {
        signalThreshold: config.signalThreshold,
        signal,
        log: (line) => logger.info(line),
      });
      onCounts?.({ ...result.counts, rejected: result.counts.rejected.length });
      logger.info(
        `scheduled ingest ${result.key}: ${result.pages} pages, ${summary(result.counts, result.counts.rejected.length)}`,
      );
    },
    onError: (error) =>
      logger.error(`scheduled ingest failed (the next tick resumes from its checkpoint): ${String(error)}`),
  });
  return {
    async stop() {
      await scheduler.stop();
      await client.close();
    },
  };
}
