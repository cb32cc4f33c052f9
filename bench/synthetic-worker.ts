/**
 * A worker thread of bench/synthetic.ts: generates what it is asked for — a chunk of the bulk phase
 * (`bulkChunk`) or the announcement phase (`announcementPhase`) — and posts its COPY text back, the
 * text's memory moved to the main thread instead of copied.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { announcementPhase, bulkChunk, type GenSpec } from './synthetic-rows.ts';

export type WorkerRequest =
  | { kind: 'bulk'; index: number; start: number; size: number }
  | { kind: 'announcements'; events: number };

const spec = workerData as GenSpec;
const port = parentPort;
if (!port) throw new Error('bench/synthetic-worker.ts runs as a worker thread');
port.on('message', (request: WorkerRequest) => {
  if (request.kind === 'bulk') {
    const chunk = bulkChunk(spec, request.index, request.start, request.size);
    port.postMessage(chunk, [chunk.contracts.buffer as ArrayBuffer, chunk.signals.buffer as ArrayBuffer]);
    return;
  }
  const text = announcementPhase(spec, request.events);
  port.postMessage(
    text,
    [text.contracts, text.signals, text.announcements, text.piids, text.predictions].map(
      (t) => t.buffer as ArrayBuffer,
    ),
  );
});
