import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryOf } from '../../bench/proc-mem.ts';

// bench:events samples the server's and PostgreSQL's memory once a second while its load generator runs
// in the same process: a sample must not hold the generator's event loop while the kernel walks each
// process's page tables (smaps_rollup), or every answer in flight is read late and counted as the
// server's latency.

test('memory samples read /proc without holding the event loop, and sum what they read', async () => {
  let turns = 0;
  let reading = true;
  const count = () => {
    turns += 1;
    if (reading) setImmediate(count);
  };
  setImmediate(count);
  const pids = Array.from({ length: 20 }, () => process.pid).concat([process.ppid]);
  const sample = memoryOf(pids);
  assert.ok(sample instanceof Promise, 'a sample is read asynchronously');
  const memory = await sample;
  reading = false;
  assert.ok(turns > 0, 'the event loop turned while the sample was read');
  // Each process once (pids repeat), its RSS and PSS read from smaps_rollup.
  assert.equal(memory.processes, 2);
  assert.ok(
    memory.rss > 10 * 1024 * 1024 && memory.pss > 0 && memory.pss <= memory.rss,
    JSON.stringify(memory),
  );
  assert.deepEqual(await memoryOf([]), { processes: 0, rss: 0, pss: 0, pssMissing: 0 });
  // A process that is gone counts nothing.
  assert.equal((await memoryOf([2 ** 22 + 12345])).processes, 0);
});
