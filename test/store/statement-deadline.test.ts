/**
 * A statement past its deadline (QUERY_TIMEOUT_MS on the request path) fails in node at once, and its
 * backend is cancelled too: without the cancel, PostgreSQL ran an abandoned statement to its end while
 * the caller had long had its 503.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../src/store/db.ts';
import { freshDb } from '../support/db.ts';

const DEADLINE_MS = 300;

describe('a statement past its deadline', () => {
  let db: Db;
  before(async () => {
    db = await freshDb();
  });
  after(async () => db.close());

  /** The backends of this database still running a statement whose text holds `marker`. */
  async function stillRunning(marker: string): Promise<number> {
    const rows = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND state = 'active' AND query LIKE '%' || $1 || '%'
         AND pid <> pg_backend_pid()`,
      [marker],
    );
    return rows[0]?.n ?? 0;
  }

  async function endsSoon(marker: string): Promise<void> {
    const started = performance.now();
    while ((await stillRunning(marker)) > 0) {
      assert.ok(
        performance.now() - started < 10_000,
        `${marker}: the backend still runs the statement after 10 s`,
      );
      await sleep(50);
    }
  }

  test('a plain query: rejected at the deadline, its backend cancelled', async () => {
    const marker = 'deadline_plain_marker';
    const started = performance.now();
    await assert.rejects(db.withDeadline(DEADLINE_MS).query(`SELECT pg_sleep(60), '${marker}'`), /timeout/i);
    assert.ok(performance.now() - started < 5_000, 'the caller waited past its deadline');
    await endsSoon(marker);
    // The pool goes on answering.
    assert.deepEqual(await db.withDeadline(DEADLINE_MS).query('SELECT 1 AS n'), [{ n: 1 }]);
  });

  test('a statement in a transaction: the same', async () => {
    const marker = 'deadline_tx_marker';
    await assert.rejects(
      db.withDeadline(DEADLINE_MS).transaction((tx) => tx.query(`SELECT pg_sleep(60), '${marker}'`)),
      /timeout/i,
    );
    await endsSoon(marker);
  });

  test("an export cursor's batch: the same", async () => {
    const marker = 'deadline_cursor_marker';
    const cursor = await db
      .withDeadline(DEADLINE_MS)
      .openCursor(`SELECT pg_sleep(60), '${marker}' AS m FROM generate_series(1, 2)`, [], {
        batchRows: 10,
        idleMs: 60_000,
      });
    await assert.rejects(cursor.read(), /timeout/i);
    await cursor.close();
    await endsSoon(marker);
  });

  test('without a deadline nothing is cancelled: a statement runs to its end', async () => {
    const rows = await db.query<{ n: number }>('SELECT 1 AS n FROM pg_sleep(0.5)');
    assert.deepEqual(rows, [{ n: 1 }]);
  });
});
