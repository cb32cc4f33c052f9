import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startScheduler } from '../../src/pipeline/scheduler.ts';
import { ingestRecent } from '../../src/pipeline/usaspending.ts';
import { UsaspendingClient } from '../../src/sources/usaspending-client.ts';
import { lastFinishedEnd } from '../../src/store/checkpoints.ts';
import type { Db } from '../../src/store/db.ts';
import { freshDb } from '../support/db.ts';
import { FakeUsaspending, syntheticResults } from '../support/fake-usaspending.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('INGEST_SCHEDULE', () => {
  test('is off by default and takes intervals like 30m, 6h, 24h', () => {
    assert.equal(loadConfig({}).ingestSchedule, null);
    assert.equal(loadConfig({ INGEST_SCHEDULE: 'off' }).ingestSchedule, null);
    assert.equal(loadConfig({ INGEST_SCHEDULE: '30m' }).ingestSchedule, 1_800_000);
    assert.equal(loadConfig({ INGEST_SCHEDULE: '6h' }).ingestSchedule, 21_600_000);
    assert.equal(loadConfig({ INGEST_SCHEDULE: '24h' }).ingestSchedule, 86_400_000);
  });

  test('a bad value stops the configuration naming INGEST_SCHEDULE', () => {
    for (const bad of ['daily', '10s', '0h', '8d', '6 h', '-1h']) {
      assert.throws(
        () => loadConfig({ INGEST_SCHEDULE: bad }),
        (error: unknown) => error instanceof ConfigError && /INGEST_SCHEDULE/.test(error.message),
        bad,
      );
    }
  });
});

describe('scheduler', () => {
  test('never overlaps ticks, keeps the interval and waits for the running tick on stop', async () => {
    let running = 0;
    let most = 0;
    let ticks = 0;
    const scheduler = startScheduler({
      intervalMs: 20,
      tick: async () => {
        running += 1;
        most = Math.max(most, running);
        await sleep(40);
        ticks += 1;
        running -= 1;
      },
      onError: (error) => assert.fail(String(error)),
    });
    await until(() => ticks >= 3, 'three ticks');
    await scheduler.stop();
    assert.equal(most, 1);
    assert.equal(running, 0, 'stop waited for the tick in flight');
    const stopped = ticks;
    await sleep(80);
    assert.equal(ticks, stopped, 'no tick after stop');
  });

  test('a failing tick is reported and the next tick still runs', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const scheduler = startScheduler({
      intervalMs: 5,
      tick: async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
      },
      onError: (error) => errors.push(error),
    });
    await until(() => calls >= 2, 'a second tick');
    await scheduler.stop();
    assert.equal(errors.length, 1);
  });
});

describe('scheduled USASpending ingest', () => {
  let db: Db;
  let server: FakeUsaspending;
  let client: UsaspendingClient;
  before(async () => {
    db = await freshDb();
    server = await FakeUsaspending.start(syntheticResults(120, 'S'));
    client = new UsaspendingClient({ baseUrl: server.url, baseDelayMs: 1 });
  });
  after(async () => {
    await client.close();
    await server.close();
    await db.close();
  });

  test('each tick fetches awards modified from the last finished day to today, ticks never overlap', async () => {
    const days = ['2025-03-10T08:00Z', '2025-03-10T20:00Z', '2025-03-12T08:00Z', '2025-03-12T20:00Z'];
    let tick = 0;
    let completed = 0;
    let inFlight = 0;
    let overlapped = false;
    server.delayMs = 15;
    const scheduler = startScheduler({
      intervalMs: 10,
      tick: async (signal) => {
        const now = new Date(days[Math.min(tick, days.length - 1)] ?? '');
        tick += 1;
        inFlight += 1;
        overlapped ||= inFlight > 1;
        await ingestRecent(db, client, { signalThreshold: 75, now: () => now, signal });
        inFlight -= 1;
        completed += 1;
      },
      onError: (error) => assert.fail(String(error)),
    });
    await until(() => completed > days.length, 'a tick past the last day');
    await scheduler.stop();
    server.delayMs = 0;
    assert.equal(overlapped, false);
    const periods = server.requests
      .filter((r) => r.page === 1)
      .map((r) => (r.body.filters as { time_period: unknown[] }).time_period[0]);
    const period = (from: string, to: string) => ({
      start_date: from,
      end_date: to,
      date_type: 'last_modified_date',
    });
    assert.deepEqual(periods.slice(0, 5), [
      period('2025-03-09', '2025-03-10'),
      period('2025-03-10', '2025-03-10'),
      period('2025-03-10', '2025-03-12'),
      period('2025-03-12', '2025-03-12'),
      // The same period again: it was still open (it reached today) when it finished, so it is fetched anew.
      period('2025-03-12', '2025-03-12'),
    ]);
    assert.equal(await lastFinishedEnd(db, server.url, 'last_modified_date'), '2025-03-12');
    const [stored] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts');
    assert.equal(stored?.n, 120);
  });

  test('stop aborts a tick stuck on a slow server; its checkpoint stays for the next start', async () => {
    server.delayMs = 5_000;
    server.requests.length = 0;
    const started = Date.now();
    const scheduler = startScheduler({
      intervalMs: 60_000,
      tick: (signal) =>
        ingestRecent(db, client, {
          signalThreshold: 75,
          now: () => new Date('2025-03-14T00:00:00Z'),
          signal,
        }).then(() => undefined),
      onError: (error) => assert.fail(String(error)),
    });
    await until(() => server.requests.length > 0, 'the first request');
    await scheduler.stop();
    server.delayMs = 0;
    assert.ok(Date.now() - started < 2_000, 'stop did not wait for the slow answer');
    assert.equal(await lastFinishedEnd(db, server.url, 'last_modified_date'), '2025-03-12');
  });
});
