/**
 * USASpending runs: one period page by page through the pipeline (fetch → normalize → ingest), checkpointed
 * in `ingest_checkpoints` so an interrupted run resumes at the next page; `ingestRecent` is one
 * scheduled tick's period.
 */
import { addDays } from '../domain/trailing.ts';
import { parseSpendingByAwardResults } from '../sources/awards.ts';
import type { Period, UsaspendingClient } from '../sources/usaspending-client.ts';
import { type Checkpoint, lastFinishedEnd, readCheckpoint, saveCheckpoint } from '../store/checkpoints.ts';
import type { Db } from '../store/db.ts';
import { createPipelineContext, type PipelineContext } from './context.ts';
import { ingestAwards, summary, zeroCounts } from './ingest.ts';
import { scoreStored } from './score.ts';

/** One checkpoint per query: the same period against another server is another run. */
export function sourceKey(baseUrl: string, period: Period): string {
  const type = period.dateType ?? 'action_date';
  return `${baseUrl} ${type} ${period.from}..${period.to}`;
}

/**
 * Where a run starts: page 1 when new or restarted, the page after the checkpoint when interrupted.
 * A finished run is complete (null) only when its period had ended before it finished; a period
 * reaching the day it was fetched may have gained awards since, so it is fetched again.
 */
export function startPage(checkpoint: Checkpoint | null, restart: boolean): number | null {
  if (!checkpoint || restart) return 1;
  if (!checkpoint.finished) return checkpoint.lastPage + 1;
  return checkpoint.endDate >= checkpoint.updatedAt.slice(0, 10) ? 1 : null;
}

export interface RunCounts {
  received: number;
  inserted: number;
  updated: number;
  matched: number;
  unmatched: number;
  signals_created: number;
  rejected: { page: number; index: number; message: string }[];
}

export interface RunResult {
  key: string;
  /** null: the checkpoint says this period is complete; nothing was fetched. */
  firstPage: number | null;
  pages: number;
  finished: boolean;
  counts: RunCounts;
  /** Contracts rescored at the end so trailing statistics see every award of the run. */
  rescored: number;
}

export interface RunOptions {
  restart?: boolean;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/** Fetches `period` page by page (resuming from its checkpoint); each page goes through the pipeline. */
export async function runUsaspending(
  ctx: PipelineContext,
  client: UsaspendingClient,
  period: Period,
  options: RunOptions = {},
): Promise<RunResult> {
  const log = options.log ?? (() => undefined);
  const key = sourceKey(client.baseUrl, period);
  const checkpoint = await readCheckpoint(ctx.db, key);
  const first = startPage(checkpoint, options.restart ?? false);
  const counts: RunCounts = { ...zeroCounts(), rejected: [] };
  const result: RunResult = { key, firstPage: first, pages: 0, finished: true, counts, rescored: 0 };
  if (first === null) return result;
  if (first > 1) log(`usaspending: resuming ${key} at page ${first}`);
  const runStart = ctx.now();
  let stored = first > 1 ? (checkpoint?.awards ?? 0) : 0;
  for (let page = first; ; page++) {
    options.signal?.throwIfAborted();
    const fetched = await client.fetchPage(period, page, options.signal);
    const parsed = parseSpendingByAwardResults({ results: fetched.results });
    addPage(counts, page, await ingestAwards(ctx, parsed.awards), parsed.rejected);
    stored += fetched.results.length;
    result.pages += 1;
    // An empty page that claims more would loop forever; the run is over either way.
    const finished = !fetched.hasNext || fetched.results.length === 0;
    await saveCheckpoint(
      ctx.db,
      {
        key,
        baseUrl: client.baseUrl,
        dateType: period.dateType ?? 'action_date',
        from: period.from,
        to: period.to,
      },
      { lastPage: page, awards: stored, finished },
      ctx.now(),
    );
    log(
      `usaspending: page ${page}: ${fetched.results.length} awards; run so far ${summary(counts, counts.rejected.length)}`,
    );
    if (finished) break;
  }
  if (result.pages > 1)
    result.rescored = (await scoreStored(ctx, { kind: 'changed-since', since: runStart })).contracts;
  return result;
}

function addPage(
  counts: RunCounts,
  page: number,
  ingested: Awaited<ReturnType<typeof ingestAwards>>,
  rejected: { index: number; message: string }[],
): void {
  counts.received += ingested.received + rejected.length;
  counts.inserted += ingested.inserted;
  counts.updated += ingested.updated;
  counts.matched += ingested.matched;
  counts.unmatched += ingested.unmatched;
  counts.signals_created += ingested.signals_created;
  for (const r of rejected) counts.rejected.push({ page, ...r });
}

/**
 * One scheduled tick: awards modified from the last finished tick's end day to today (the action date
 * would miss late-reported awards and modifications). The first tick covers yesterday and today.
 */
export async function ingestRecent(
  db: Db,
  client: UsaspendingClient,
  options: { signalThreshold: number; now?: () => Date; signal?: AbortSignal; log?: (line: string) => void },
): Promise<RunResult> {
  const now = options.now ?? (() => new Date());
  const today = now().toISOString().slice(0, 10);
  const dateType = 'last_modified_date';
  const last = await lastFinishedEnd(db, client.baseUrl, dateType);
  // A clock set back must not turn the period inside out.
  const from = [last ?? addDays(today, -1), today].sort()[0] ?? today;
  const ctx = await createPipelineContext(db, { signalThreshold: options.signalThreshold, now });
  return runUsaspending(ctx, client, { from, to: today, dateType }, options);
}
