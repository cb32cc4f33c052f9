import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { UsageRecorder } from '../../src/infra/usage.ts';
import { listKeys } from '../../src/store/accounts.ts';
import type { Db, Queryable } from '../../src/store/db.ts';
import { usageSeries } from '../../src/store/usage.ts';
import { freshDb } from '../support/db.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2025, 2, 10, 14, 30, 0);
const at = (ms: number) => new Date(T0 + ms);
const iso = (ms: number) => new Date(T0 + ms).toISOString();

// One database for the file (every test uses its own random key ids).
let db: Db;
before(async () => {
  db = await freshDb();
});
after(async () => {
  await db.close();
});

/**
 * Passes queries through to the database, counting them. `hold()` parks the next query until
 * released; `entered` settles once that query has been issued.
 */
function spy(target: Queryable) {
  let gate: Promise<void> | null = null;
  let onEnter = () => {};
  let failures = 0;
  const state = {
    queries: 0,
    /** The parameters of the latest query. */
    params: undefined as readonly unknown[] | undefined,
    hold(): { entered: Promise<void>; release: () => void } {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      const entered = new Promise<void>((resolve) => {
        onEnter = resolve;
      });
      return { entered, release };
    },
    failNext(count = 1): void {
      failures = count;
    },
    async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
      state.queries += 1;
      state.params = params;
      onEnter();
      if (gate) await gate;
      gate = null;
      if (failures > 0) {
        failures -= 1;
        throw new Error('database unavailable');
      }
      return target.query<T>(text, params);
    },
  };
  return state;
}

async function counts(...keyIds: string[]) {
  const rows = await db.query<{ key_id: string; minute: string; requests: number; errors: number }>(
    `SELECT key_id::text, minute, requests, errors FROM usage_minutely
     WHERE key_id = ANY($1::uuid[]) ORDER BY key_id, minute`,
    [keyIds],
  );
  return rows.map((r) => ({ ...r, minute: new Date(r.minute).toISOString() }));
}

/** The owner of each key `insertKey` made: the store reads a key's record through its user. */
const owners = new Map<string, string>();

/** A key row, with the last use recorded before migration 034 (`api_keys.last_used_at`). */
async function insertKey(lastUsedAt: Date | null): Promise<string> {
  const id = randomUUID();
  const userId = randomUUID();
  await db.query("INSERT INTO users (id, email, plan) VALUES ($1, $2, 'developer')", [
    userId,
    `${userId}@example.com`,
  ]);
  await db.query(
    `INSERT INTO api_keys (id, user_id, name, mode, scopes, hash, display_prefix, last_used_at)
     VALUES ($1, $2, 'k', 'live', ARRAY['read'], $3, 'iv_live_xxxx', $4)`,
    [id, userId, id, lastUsedAt?.toISOString() ?? null],
  );
  owners.set(id, userId);
  return id;
}

/** The key's last use as the API serves it (the key's record from the store). */
async function lastUsed(id: string): Promise<string | null> {
  const key = (await listKeys(db, owners.get(id) ?? '')).find((k) => k.id === id);
  assert.ok(key, `key ${id} is listed`);
  return key.last_used_at ? new Date(key.last_used_at).toISOString() : null;
}

/** The key row's version: it changes whenever the row is written. */
async function rowVersion(id: string): Promise<string | undefined> {
  const [row] = await db.query<{ xmin: string }>('SELECT xmin::text FROM api_keys WHERE id = $1', [id]);
  return row?.xmin;
}

describe('UsageRecorder', () => {
  test('one flush writes exact per-minute counts, errors being statuses >= 400', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const recorder = new UsageRecorder(db);
    for (let i = 0; i < 500; i += 1) recorder.record(a, i % 5 === 0 ? 429 : 200, at(1000 + i));
    for (const status of [200, 304, 399, 400, 404, 500]) recorder.record(a, status, at(MINUTE + 59_999));
    recorder.record(b, 503, at(-1));
    await recorder.flush();
    assert.deepEqual(await counts(a), [
      { key_id: a, minute: iso(0), requests: 500, errors: 100 },
      { key_id: a, minute: iso(MINUTE), requests: 6, errors: 3 },
    ]);
    assert.deepEqual(await counts(b), [{ key_id: b, minute: iso(-MINUTE), requests: 1, errors: 1 }]);
    assert.equal(recorder.pendingCells, 0);
  });

  test('never writes per record: one statement per flush, none when idle', async () => {
    const counting = spy(db);
    const recorder = new UsageRecorder(counting);
    const keys = [randomUUID(), randomUUID(), randomUUID()];
    for (let i = 0; i < 3000; i += 1) recorder.record(keys[i % 3] ?? '', 200, at(i * 100));
    assert.equal(counting.queries, 0);
    await recorder.flush();
    assert.equal(counting.queries, 1);
    await recorder.flush();
    assert.equal(counting.queries, 1, 'nothing pending, nothing written');
    const rows = await counts(...keys);
    assert.equal(rows.length, 3 * 5);
    assert.equal(
      rows.reduce((sum, r) => sum + r.requests, 0),
      3000,
    );
  });

  test('later flushes add to the counts already stored', async () => {
    const key = randomUUID();
    const recorder = new UsageRecorder(db);
    recorder.record(key, 200, at(0));
    await recorder.flush();
    recorder.record(key, 500, at(10));
    recorder.record(key, 200, at(20));
    await recorder.flush();
    assert.deepEqual(await counts(key), [{ key_id: key, minute: iso(0), requests: 3, errors: 1 }]);
  });

  test('keeps requests recorded while a flush is in flight', async () => {
    const key = randomUUID();
    const gated = spy(db);
    const recorder = new UsageRecorder(gated);
    recorder.record(key, 200, at(0));
    const { entered, release } = gated.hold();
    const flushing = recorder.flush();
    await entered;
    recorder.record(key, 200, at(1));
    recorder.record(key, 404, at(2));
    release();
    await flushing;
    assert.deepEqual(await counts(key), [{ key_id: key, minute: iso(0), requests: 1, errors: 0 }]);
    await recorder.flush();
    assert.deepEqual(await counts(key), [{ key_id: key, minute: iso(0), requests: 3, errors: 1 }]);
  });

  test('a failed write is reported and retried by the next flush, without loss or double count', async () => {
    const key = randomUUID();
    const flaky = spy(db);
    const errors: unknown[] = [];
    const recorder = new UsageRecorder(flaky, { onError: (error) => errors.push(error) });
    recorder.record(key, 200, at(0));
    recorder.record(key, 500, at(MINUTE));
    flaky.failNext();
    await recorder.flush();
    assert.equal(errors.length, 1);
    assert.deepEqual(await counts(key), []);
    recorder.record(key, 200, at(5));
    assert.equal(recorder.pendingCells, 2);
    await recorder.flush();
    assert.deepEqual(await counts(key), [
      { key_id: key, minute: iso(0), requests: 2, errors: 0 },
      { key_id: key, minute: iso(MINUTE), requests: 1, errors: 1 },
    ]);
    assert.equal(errors.length, 1);
  });

  test('start() flushes on an interval and close() flushes what is left', async () => {
    const key = randomUUID();
    const recorder = new UsageRecorder(db);
    recorder.start(10);
    recorder.record(key, 200, at(0));
    for (let i = 0; i < 100 && (await counts(key)).length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(await counts(key), [{ key_id: key, minute: iso(0), requests: 1, errors: 0 }]);
    recorder.record(key, 401, at(1));
    await recorder.close();
    assert.deepEqual(await counts(key), [{ key_id: key, minute: iso(0), requests: 2, errors: 1 }]);
  });

  test('close() alone writes pending counts', async () => {
    const key = randomUUID();
    const recorder = new UsageRecorder(db);
    recorder.record(key, 200, at(0));
    await recorder.close();
    assert.deepEqual(await counts(key), [{ key_id: key, minute: iso(0), requests: 1, errors: 0 }]);
  });

  test('writes each key’s last use in the same flush, never moving it back', async () => {
    const fresh = await insertKey(null);
    const ahead = await insertKey(at(10 * MINUTE));
    const recorder = new UsageRecorder(db);
    recorder.record(fresh, 200, at(1500));
    recorder.record(fresh, 200, at(700));
    recorder.record(ahead, 200, at(0));
    await recorder.flush();
    assert.equal(await lastUsed(fresh), iso(1500));
    assert.equal(await lastUsed(ahead), iso(10 * MINUTE), 'a later use recorded before migration 034 stands');
    // Another process's flush of the same minute, with an earlier use, arriving later.
    const other = new UsageRecorder(db);
    other.record(fresh, 200, at(900));
    await other.flush();
    assert.equal(await lastUsed(fresh), iso(1500));
    recorder.record(fresh, 200, at(MINUTE + 3));
    await recorder.flush();
    assert.equal(await lastUsed(fresh), iso(MINUTE + 3), 'a new minute carries the key forward');
  });

  test('a flush rewrites no key row', async () => {
    const key = await insertKey(null);
    const before = await rowVersion(key);
    const recorder = new UsageRecorder(db);
    for (let i = 0; i < 3; i += 1) {
      recorder.record(key, 200, at(i * MINUTE));
      await recorder.flush();
    }
    assert.equal(await rowVersion(key), before, 'the key row was written by a flush');
    assert.equal(await lastUsed(key), iso(2 * MINUTE));
  });

  test('stores to the microsecond the instants the ISO text of each time names', async () => {
    const key = await insertKey(null);
    const recorder = new UsageRecorder(db);
    // Whole ms with every digit, and a fraction a Date would drop (the flush drops it as a Date did).
    for (const ms of [1, 123, 999, 58_456.7]) {
      recorder.record(key, 200, T0 + ms);
      await recorder.flush();
      const [row] = await db.query<{ same: boolean; minute: boolean }>(
        `SELECT last_used_at = $2::timestamptz AS same, minute = $3::timestamptz AS minute
         FROM usage_minutely WHERE key_id = $1`,
        [key, new Date(T0 + ms).toISOString(), iso(0)],
      );
      assert.deepEqual(row, { same: true, minute: true }, `at T0 + ${ms} ms`);
    }
  });

  test('sends each list as one array literal: nothing for pg to walk element by element', async () => {
    const counting = spy(db);
    const recorder = new UsageRecorder(counting);
    const [a, b] = [randomUUID(), randomUUID()];
    recorder.record(a, 200, at(5));
    recorder.record(a, 500, at(MINUTE + 7));
    recorder.record(b, 200, at(9));
    await recorder.flush();
    assert.deepEqual(counting.params, [
      `{${a},${a},${b}}`,
      `{${T0},${T0 + MINUTE},${T0}}`,
      '{1,1,1}',
      '{0,1,0}',
      `{${T0 + 5},${T0 + MINUTE + 7},${T0 + 9}}`,
    ]);
    assert.deepEqual(await counts(b), [{ key_id: b, minute: iso(0), requests: 1, errors: 0 }]);
  });

  test('refuses a key id that is not a uuid instead of poisoning the batch', () => {
    const recorder = new UsageRecorder(db);
    assert.throws(() => recorder.record('iv_live_abc', 200), TypeError);
    assert.throws(() => recorder.recordDashboard('someone', 200), TypeError);
    assert.equal(recorder.pendingCells, 0);
  });

  test('dashboard reads count under the user, move no key’s last use, and survive a failed flush', async () => {
    const key = await insertKey(null);
    const user = randomUUID();
    const flaky = spy(db);
    const recorder = new UsageRecorder(flaky, { onError: () => {} });
    recorder.recordDashboard(user, 200, at(0));
    recorder.recordDashboard(user, 404, at(10));
    recorder.record(key, 200, at(20));
    flaky.failNext();
    await recorder.flush();
    assert.deepEqual(await counts(user), []);
    await recorder.flush();
    assert.deepEqual(await counts(user), [{ key_id: user, minute: iso(0), requests: 2, errors: 1 }]);
    assert.deepEqual(await counts(key), [{ key_id: key, minute: iso(0), requests: 1, errors: 0 }]);
    assert.equal(await lastUsed(key), iso(20), 'the key’s last use, not the user’s reads');
    const [row] = await db.query<{ last_used_at: string | null }>(
      'SELECT last_used_at FROM usage_minutely WHERE key_id = $1',
      [user],
    );
    assert.equal(row?.last_used_at, null, 'a user’s reads carry no last use');
  });
});

describe('usageSeries', () => {
  async function seed(key: string, rows: [ms: number, requests: number, errors: number][]) {
    await db.query(
      `INSERT INTO usage_minutely (key_id, minute, requests, errors)
       SELECT $1, * FROM unnest($2::timestamptz[], $3::int[], $4::int[])`,
      [key, rows.map(([ms]) => iso(ms)), rows.map(([, r]) => r), rows.map(([, , e]) => e)],
    );
  }

  test('1h: sixty zero-filled minute buckets ending with the current minute', async () => {
    const key = randomUUID();
    const other = randomUUID();
    const now = at(42_000);
    await seed(key, [
      [-60 * MINUTE, 100, 100], // just before the first bucket
      [-59 * MINUTE, 3, 1], // the first bucket
      [-30 * MINUTE, 5, 0],
      [0, 7, 2], // the current minute
      [MINUTE, 1000, 1000], // after now
    ]);
    await seed(other, [[0, 50, 50]]);
    const series = await usageSeries(db, key, '1h', now);
    assert.equal(series.key_id, key);
    assert.equal(series.window, '1h');
    assert.equal(series.bucket, 'minute');
    assert.equal(series.from, iso(-59 * MINUTE));
    assert.equal(series.to, now.toISOString());
    assert.equal(series.buckets.length, 60);
    assert.deepEqual(
      series.buckets.map((b) => b.start),
      Array.from({ length: 60 }, (_, i) => iso((i - 59) * MINUTE)),
    );
    assert.deepEqual(series.buckets[0], { start: iso(-59 * MINUTE), requests: 3, errors: 1 });
    assert.deepEqual(series.buckets[29], { start: iso(-30 * MINUTE), requests: 5, errors: 0 });
    assert.deepEqual(series.buckets[59], { start: iso(0), requests: 7, errors: 2 });
    assert.deepEqual(series.buckets[1], { start: iso(-58 * MINUTE), requests: 0, errors: 0 });
    assert.deepEqual(series.totals, { requests: 15, errors: 3 });
  });

  test('24h: hourly buckets summing their minutes', async () => {
    const key = randomUUID();
    const hour = 60 * MINUTE;
    const now = at(12 * MINUTE); // 14:42 UTC; buckets 15:00 yesterday .. 14:00 today
    const currentHour = -30 * MINUTE; // 14:00
    await seed(key, [
      [currentHour - 23 * hour - MINUTE, 9, 9], // 14:59 yesterday, outside
      [currentHour - 23 * hour, 2, 0], // 15:00 yesterday, first bucket
      [currentHour - 23 * hour + 59 * MINUTE, 3, 1],
      [currentHour - hour + 5 * MINUTE, 4, 4],
      [currentHour, 1, 0],
      [currentHour + 12 * MINUTE, 1, 1], // 14:42, the current minute
    ]);
    const series = await usageSeries(db, key, '24h', now);
    assert.equal(series.bucket, 'hour');
    assert.equal(series.buckets.length, 24);
    assert.equal(series.from, iso(currentHour - 23 * hour));
    assert.deepEqual(series.buckets[0], { start: iso(currentHour - 23 * hour), requests: 5, errors: 1 });
    assert.deepEqual(series.buckets[22], { start: iso(currentHour - hour), requests: 4, errors: 4 });
    assert.deepEqual(series.buckets[23], { start: iso(currentHour), requests: 2, errors: 1 });
    assert.deepEqual(series.totals, { requests: 11, errors: 6 });
    assert.ok(series.buckets.slice(1, 22).every((b) => b.requests === 0 && b.errors === 0));
  });

  test('7d and 30d: daily UTC buckets, oldest first', async () => {
    const key = randomUUID();
    const day = 24 * 60 * MINUTE;
    const today = Date.UTC(2025, 2, 10) - T0; // offset of today's midnight from T0
    await seed(key, [
      [today - 7 * day + 23 * 60 * MINUTE, 8, 8], // outside 7d, inside 30d
      [today - 6 * day, 2, 1],
      [today + 30 * MINUTE, 3, 0],
      [today - 29 * day, 4, 2],
      [today - 30 * day, 100, 100], // outside both
    ]);
    const week = await usageSeries(db, key, '7d', at(0));
    assert.equal(week.bucket, 'day');
    assert.equal(week.buckets.length, 7);
    assert.equal(week.from, iso(today - 6 * day));
    assert.deepEqual(
      week.buckets.map((b) => b.requests),
      [2, 0, 0, 0, 0, 0, 3],
    );
    assert.deepEqual(week.totals, { requests: 5, errors: 1 });
    const month = await usageSeries(db, key, '30d', at(0));
    assert.equal(month.buckets.length, 30);
    assert.equal(month.from, iso(today - 29 * day));
    assert.equal(month.buckets[0]?.start, iso(today - 29 * day));
    assert.deepEqual(month.totals, { requests: 17, errors: 11 });
  });

  test('an unused key gets every bucket at zero', async () => {
    const series = await usageSeries(db, randomUUID(), '24h', at(0));
    assert.equal(series.buckets.length, 24);
    assert.ok(series.buckets.every((b) => b.requests === 0 && b.errors === 0));
    assert.deepEqual(series.totals, { requests: 0, errors: 0 });
  });
});
