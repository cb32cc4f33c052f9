import { createPipelineContext, type PipelineContext } from '../pipeline/context.ts';
import { ingestAwards } from '../pipeline/ingest.ts';
import { normalizeBulkItems } from '../sources/awards.ts';
import type { Db } from '../store/db.ts';

/**
 * Building the resolver reads and indexes every alias and company name, so calls within a minute share
 * one context: a new alias reaches the admin ingest within a minute (candles are read by each call's scoring).
 */
const CONTEXT_TTL_MS = 60_000;

function sharedContext(build: () => Promise<PipelineContext>): () => Promise<PipelineContext> {
  let cached: { at: number; ctx: Promise<PipelineContext> } | null = null;
  return () => {
    if (!cached || Date.now() - cached.at > CONTEXT_TTL_MS) {
      const entry = { at: Date.now(), ctx: build() };
      entry.ctx.catch(() => {
        if (cached === entry) cached = null;
      });
      cached = entry;
    }
    return cached.ctx;
  };
}

/**
 * Awards in USASpending bulk column names through the pipeline, in this process: each call's records are
 * normalized (a bad one is rejected with its index, the rest go on), stored, resolved and scored.
 */
export function awardIngest(options: { db: Db; signalThreshold: number; now: () => Date }) {
  const { db, signalThreshold, now } = options;
  // An ingest runs long statements (bulk loads, index builds): not under the request deadline.
  const context = sharedContext(() => createPipelineContext(db.withDeadline(0), { signalThreshold, now }));
  return async (records: readonly unknown[]) => {
    const { awards, rejected } = normalizeBulkItems(records);
    const counts = await ingestAwards(await context(), awards);
    return { ...counts, received: records.length, rejected };
  };
}
