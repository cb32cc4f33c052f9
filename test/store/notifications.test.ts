/** The notification bus on PostgreSQL: delivery, round trips, a terminated session, the shared bus. */
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { acquireBus, CHANNELS, NotificationBus } from '../../src/store/notifications.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
before(async () => {
  db = await freshDb();
});
after(() => db?.close());

async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('delivers committed notifications, reconnects after its session is terminated, and closes', async () => {
  const bus = new NotificationBus({ url: db.url, retryMs: 50 });
  const seen: string[] = [];
  bus.subscribe('mi_test', (payload) => seen.push(payload));
  const changes: boolean[] = [];
  bus.onHealthChange((healthy) => changes.push(healthy));
  await bus.start();
  try {
    assert.ok(bus.healthy);
    await db.query("SELECT pg_notify('mi_test', 'one')");
    await db
      .transaction(async (tx) => {
        await tx.query("SELECT pg_notify('mi_test', 'rolled back')");
        throw new Error('abort');
      })
      .catch(() => undefined);
    assert.ok(await bus.sync(), 'the round trip comes back after what was committed before it');
    assert.deepEqual(seen, ['one']);

    const late: string[] = [];
    bus.subscribe('mi_test_late', (payload) => late.push(payload));
    // Queries of one connection run in order: the LISTEN is done when this round trip returns.
    assert.ok(await bus.sync());
    await db.query("SELECT pg_notify('mi_test_late', 'late')");
    assert.ok(await bus.sync());
    assert.deepEqual(late, ['late'], 'a channel subscribed while connected is listened to');

    const pid = bus.pid;
    await db.query('SELECT pg_terminate_backend($1)', [pid]);
    await until(() => !bus.healthy);
    assert.equal(await bus.sync(), false, 'no round trip while down');
    await until(() => bus.healthy);
    assert.notEqual(bus.pid, pid);
    assert.deepEqual(changes, [true, false, true]);
    await db.query("SELECT pg_notify('mi_test', 'two')");
    assert.ok(await bus.sync());
    assert.deepEqual(seen, ['one', 'two']);
  } finally {
    await bus.close();
  }
  assert.equal(bus.healthy, false);
  // The server forgets a session a moment after its socket closes.
  const sessions = () =>
    db.query(
      "SELECT 1 FROM pg_stat_activity WHERE application_name = 'market-intel notifications' AND datname = current_database()",
    );
  for (let i = 0; i < 100 && (await sessions()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal((await sessions()).length, 0, 'closed, not reconnecting');
});

test('concurrent round trips: one in flight, later callers share the next, each after its commits', async () => {
  const bus = new NotificationBus({ url: db.url });
  // Every token the bus sends itself comes back on its sync channel: one per round trip.
  let tokens = 0;
  bus.subscribe(CHANNELS.sync, () => {
    tokens += 1;
  });
  const seen: string[] = [];
  bus.subscribe('mi_test_shared', (payload) => seen.push(payload));
  await bus.start();
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    const first = bus.sync();
    // Held in flight: the bus stops reading its connection until the later callers have arrived. Its own
    // token otherwise comes back with its own statement's answer, often before any commit made after it.
    const listening = (bus as unknown as { client: { connection: { stream: Socket } } }).client.connection
      .stream;
    listening.pause();
    // Committed while the first round trip is in flight: a caller after it must not be answered by it.
    await db.query("SELECT pg_notify('mi_test_shared', 'during')");
    const later = Array.from({ length: 20 }, () => bus.sync());
    listening.resume();
    assert.equal(new Set(later).size, 1, 'callers arriving together share one round trip');
    assert.notEqual(later[0], first);
    assert.deepEqual(await Promise.all([first, ...later]), Array(21).fill(true));
    assert.deepEqual(seen, ['during'], 'the shared round trip came back after the commit before it');
    assert.equal(tokens, 2, 'two round trips for 21 callers');
    assert.ok(await bus.sync(), 'a caller after they settled gets a round trip of its own');
    assert.equal(tokens, 3);
    assert.deepEqual(
      warnings.map((w) => w.message).filter((m) => /already executing a query/.test(m)),
      [],
      'no query is sent while another is in flight on the listening connection',
    );
  } finally {
    process.off('warning', onWarning);
    await bus.close();
  }
});

test('one bus per process and database, closed after its last user', async () => {
  const first = acquireBus(db.url);
  const second = acquireBus(db.url);
  assert.equal(first.bus, second.bus);
  await first.bus.start();
  await first.release();
  await first.release();
  assert.ok(second.bus.healthy, 'a second release by one user does not count');
  await second.release();
  assert.equal(second.bus.healthy, false);
  const third = acquireBus(db.url);
  assert.notEqual(third.bus, first.bus);
  await third.release();
});
