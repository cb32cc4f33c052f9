/**
 * A worker thread of bench/synthetic.ts: generates the bulk phase's chunks it is asked for (see
 * `bulkChunk`) and posts their COPY text back; the main thread writes them in chunk order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { bulkChunk, type GenSpec } from './synthetic-rows.ts';

const spec = workerData as GenSpec;
const port = parentPort;
if (!port) throw new Error('bench/synthetic-worker.ts runs as a worker thread');
port.on('message', ({ index, start, size }: { index: number; start: number; size: number }) => {
  const chunk = bulkChunk(spec, index, start, size);
  // The text's memory moves to the main thread instead of being copied.
  port.postMessage(chunk, [chunk.contracts.buffer as ArrayBuffer, chunk.signals.buffer as ArrayBuffer]);
});
