import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueueFullError, WorkQueue } from '../../src/domain/work-queue.ts';

/** A task that runs until the test releases it. */
function held() {
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { task: () => done, release };
}

describe('WorkQueue', () => {
  test('runs at most `concurrency` tasks at once, the others in arrival order', async () => {
    const queue = new WorkQueue(2, 10);
    const order: number[] = [];
    const tasks = Array.from({ length: 6 }, () => held());
    const runs = tasks.map((t, i) =>
      queue.run(async () => {
        order.push(i);
        await t.task();
      }),
    );
    await Promise.resolve();
    assert.deepEqual(queue.stats(), { started: 2, running: 2, waiting: 4, peak: 2 });
    for (const t of tasks) t.release();
    await Promise.all(runs);
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(queue.stats(), { started: 6, running: 0, waiting: 0, peak: 2 });
  });

  test('refuses at once when the waiting line is full, and takes work again once it shortens', async () => {
    const queue = new WorkQueue(1, 2);
    const tasks = Array.from({ length: 3 }, () => held());
    const runs = tasks.map((t) => queue.run(t.task));
    await assert.rejects(
      queue.run(async () => 'late'),
      QueueFullError,
    );
    tasks[0]?.release();
    await runs[0];
    const fourth = queue.run(async () => 'fourth');
    for (const t of tasks) t.release();
    assert.equal(await fourth, 'fourth');
    await Promise.all(runs);
  });

  test('a failing task frees its slot', async () => {
    const queue = new WorkQueue(1, 0);
    await assert.rejects(
      queue.run(() => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await queue.run(async () => 1), 1);
    assert.equal(queue.stats().running, 0);
  });
});
