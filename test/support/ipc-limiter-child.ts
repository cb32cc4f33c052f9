/**
 * Forked by test/infra/ipc-limiter.test.ts: on `{ go, bucket, limit, count }` makes `count` hits on one
 * bucket at once through the IPC limiter and reports the decisions, then waits for the next order.
 */
import { IpcLimiter, processChannel } from '../../src/infra/ipc-limiter.ts';

const limiter = new IpcLimiter(processChannel(), { timeoutMs: 5000 });
process.on('message', async (message: { go?: boolean; bucket: string; limit: number; count: number }) => {
  if (!message.go) return;
  const decisions = await Promise.all(
    Array.from({ length: message.count }, () => limiter.hit(message.bucket, message.limit, 60_000)),
  );
  process.send?.({ done: true, decisions });
});
process.send?.({ ready: true });
