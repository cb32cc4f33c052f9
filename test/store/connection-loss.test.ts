import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, Queryable } from '../../src/store/db.ts';
import { deferIndexes } from '../../src/store/deferred-indexes.ts';
import { migrate } from '../../src/store/migrate.ts';
import { freshDb } from '../support/db.ts';

describe('a PostgreSQL connection lost inside a transaction', () => {
  let db: Db;
  before(async () => {
    db = await freshDb();
  });
  after(async () => db.close());

  /** Ends the session of `tx` from another connection, and lets the news reach the client. */
  async function terminate(tx: Queryable): Promise<void> {
    const [own] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await db.query('SELECT pg_terminate_backend($1)', [own?.pid]);
    await sleep(200);
  }

  test('between two statements: the transaction fails, the process and the pool carry on', async () => {
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('CREATE TEMP TABLE scratch (n int)');
        await terminate(tx);
        await tx.query('INSERT INTO scratch VALUES (1)');
      }),
      /terminat|not queryable|Connection/i,
    );
    // The broken client was dropped, not pooled again: every connection the pool hands out works.
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => db.query<{ n: number }>('SELECT 1 AS n')),
    );
    assert.equal(answers.length, 12);
  });

  test("an import's hold on its deferred indexes: the hold is gone, the import carries on, the next start builds them", async () => {
    const deferral = await deferIndexes(db, ['contracts', 'signals']);
    assert.ok(deferral.names.length > 0);
    const [holder] = await db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    await db.query('SELECT pg_terminate_backend($1)', [holder?.pid]);
    await sleep(200);
    await deferral.release();
    await migrate(db);
    const [left] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM deferred_indexes');
    assert.equal(left?.n, 0);
  });
});
