/**
 * One thread of a parallel file import (import-pool.ts starts one per core). It opens its own
 * connections and pipeline context, and does what the importing thread would do with a chunk of
 * parsed awards: resolve and classify them (in parallel with the other threads), then, when the pool
 * gives it the turn, probe which are stored and write them exactly as `ingestAwards` writes a chunk.
 * After the file is stored it scores the tickers it is given. Nothing here decides what is stored: the
 * same functions as the single-threaded import do.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { AwardRecord } from '../domain/types.ts';
import { openDb } from '../store/db.ts';
import type { ResolvedAward } from '../store/writes.ts';
import { createPipelineContext, type PipelineContext } from './context.ts';
import {
  type PoolReply,
  type PoolRequest,
  unpackAwards,
  type WorkerSetup,
  type WrittenChunk,
} from './import-protocol.ts';
import { resolveAward, storedAmong, storeResolved, writeBatches } from './ingest.ts';
import { scoreTickers } from './score.ts';

if (!parentPort) throw new Error('import-worker.ts runs as a worker thread');
const port = parentPort;

const setup = workerData as WorkerSetup;
const send = (reply: PoolReply): void => port.postMessage(reply);

/** Turns granted by the pool, by chunk sequence number, and the chunks waiting for theirs. */
const turns = new Map<number, () => void>();
const granted = new Set<number>();

function turnOf(seq: number): Promise<void> {
  if (granted.delete(seq)) return Promise.resolve();
  return new Promise((resolve) => turns.set(seq, resolve));
}

function grant(seq: number): void {
  const waiting = turns.get(seq);
  if (waiting) {
    turns.delete(seq);
    waiting();
  } else granted.add(seq);
}

async function storeChunk(ctx: PipelineContext, seq: number, awards: AwardRecord[]): Promise<WrittenChunk> {
  // The CPU work first, while another thread writes its chunk.
  const batches = writeBatches(awards, setup.batchSize);
  const resolved: ResolvedAward[][] = batches.map((batch) => batch.map((award) => resolveAward(ctx, award)));
  const unique = batches.reduce((n, batch) => n + batch.length, 0);
  send({ type: 'resolved', seq });
  await turnOf(seq);
  // Probed in the turn, after the chunk before it is committed, as the single-threaded import does.
  const { stored, unscored } = await storedAmong(ctx, awards);
  const { rejected: _none, ...counts } = await storeResolved(
    ctx,
    { received: awards.length, unique },
    resolved,
    { score: false, stored },
  );
  return { counts, unscored };
}

async function main(): Promise<void> {
  const db = await openDb({ databaseUrl: setup.url, dataDir: '' });
  let ctx: PipelineContext;
  try {
    ctx = await createPipelineContext(db, { signalThreshold: setup.signalThreshold });
  } catch (error) {
    await db.close();
    throw error;
  }
  port.on('message', (request: PoolRequest) => {
    switch (request.type) {
      case 'write':
        grant(request.seq);
        return;
      case 'store':
        storeChunk(ctx, request.seq, unpackAwards(request.awards)).then(
          (written) => send({ type: 'stored', seq: request.seq, ...written }),
          (error: unknown) => send(failure(error)),
        );
        return;
      case 'score': {
        let loaded = false;
        const historyLoaded = () => {
          if (loaded) return;
          loaded = true;
          send({ type: 'history-loaded' });
        };
        scoreTickers(ctx, { kind: 'changed-since', since: new Date(request.since) }, request.perTicker, {
          onHistoryLoaded: historyLoaded,
        }).then(
          (scored) => {
            historyLoaded();
            send({ type: 'scored', ...scored });
          },
          (error: unknown) => send(failure(error)),
        );
        return;
      }
      case 'close':
        db.close().finally(() => port.close());
        return;
    }
  });
  send({ type: 'ready' });
}

/** An error as the pool rethrows it: message, stack and PostgreSQL's SQLSTATE, if any. */
function failure(error: unknown): PoolReply {
  const { message, stack, code } = error as { message?: string; stack?: string; code?: unknown };
  return {
    type: 'error',
    message: message ?? String(error),
    stack,
    code: typeof code === 'string' ? code : undefined,
  };
}

main().catch((error: unknown) => send(failure(error)));
