/**
 * kill -9 of `serve` in the middle of writes (admin ingests, each storing contracts, signals and their
 * webhook deliveries): after a restart on the same data, every acknowledged batch is there whole, the
 * interrupted one is there whole or not at all, and sending it again completes it. Nothing is
 * duplicated and no signal lacks its contract. Embedded mode on the first pass of the suite (its
 * PostgreSQL recovers from its WAL), the machine's PostgreSQL on the second.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Db, openDb } from '../../src/store/db.ts';
import { cli } from '../support/cli.ts';
import { admin, appUrl, EXTERNAL_DATABASE } from '../support/db.ts';
import { recordedBulkRecords } from '../support/fake-usaspending.ts';
import { type Server, startServe } from '../support/serve.ts';

const BATCH = 40;
/** The batch in flight at the kill: large enough that storing and scoring it take a while. */
const INTERRUPTED_SIZE = 3000;
const ACKNOWLEDGED_BEFORE_KILL = 4;

let dataDir: string;
let databaseUrl: string | null = null;

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mi-serve-kill-'));
  if (EXTERNAL_DATABASE) {
    const name = `market_intel_kill_${process.pid}_${randomBytes(3).toString('hex')}`;
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    databaseUrl = appUrl(name);
  }
});
after(async () => {
  if (databaseUrl) {
    const name = new URL(databaseUrl).pathname.slice(1);
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const env = () => ({
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl ?? '',
  ...(databaseUrl ? { SECRET_KEY: 'serve-kill-test-secret-key' } : {}),
  LOG_LEVEL: 'info',
});

/** Batch `b` of the awards: recorded records with ids of their own, tagged with the batch. */
function batch(b: number, size = BATCH): Record<string, unknown>[] {
  const recorded = recordedBulkRecords();
  return Array.from({ length: size }, (_, i) => {
    const source = recorded[(b * BATCH + i) % recorded.length] ?? {};
    return {
      ...source,
      contract_award_unique_key: String(source.contract_award_unique_key).replace(
        /^CONT_AWD_([^_]+)_/,
        `CONT_AWD_$1KILL${b}X${i}_`,
      ),
    };
  });
}

async function listening(server: Server): Promise<string> {
  const line = await server.waitFor((l) => l.msg.startsWith('Server listening at'), 'listening');
  return line.msg.replace('Server listening at ', '');
}

const post = (base: string, key: string, b: number, size = BATCH) =>
  fetch(`${base}/api/v1/admin/ingest`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ awards: batch(b, size) }),
  });

/** Embedded mode owns its data directory: open it only while no server runs. */
async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb({ databaseUrl, dataDir }, { attach: true });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

describe('serve killed with SIGKILL mid-write', () => {
  test('acknowledged batches survive whole; the interrupted one is all or nothing; a resend completes it', async (t) => {
    const email = `kill-${process.pid}@example.test`;
    const made = await cli(
      ['users', 'create', '--email', email, '--plan', 'institutional', '--admin'],
      env(),
    );
    assert.equal(made.code, 0, made.stderr);
    const issued = await cli(
      ['keys', 'create', '--email', email, '--name', 'k', '--scopes', 'admin', '--json'],
      env(),
    );
    assert.equal(issued.code, 0, issued.stderr);
    const key = (JSON.parse(issued.stdout) as { key: string }).key;

    const first = startServe([], env(), { seed: true });
    const base = await listening(first);
    const acknowledged: number[] = [];
    for (let b = 0; b < ACKNOWLEDGED_BEFORE_KILL; b++) {
      const res = await post(base, key, b);
      const text = await res.text();
      assert.equal(res.status, 200, text);
      acknowledged.push(b);
    }
    // The next batch is in flight when the process dies.
    const interrupted = ACKNOWLEDGED_BEFORE_KILL;
    const inFlight = post(base, key, interrupted, INTERRUPTED_SIZE).then(
      (res) => res.status,
      () => null,
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    first.child.kill('SIGKILL');
    await first.exited;
    const answered = await inFlight;
    t.diagnostic(`the interrupted request ${answered === null ? 'got no answer' : `answered ${answered}`}`);

    const countOf = (db: Db, b: number) =>
      db
        .query<{ n: number }>('SELECT count(*)::int AS n FROM contracts WHERE id LIKE $1', [
          `CONT_AWD_%KILL${b}X%`,
        ])
        .then((rows) => rows[0]?.n ?? -1);
    // Whole or nothing, before anything is resent (embedded mode: read while no server runs).
    const [survived, unscoredBefore] = await withDb(async (db) => {
      for (const b of acknowledged) assert.equal(await countOf(db, b), BATCH, `acknowledged batch ${b}`);
      const unscored = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM contracts c WHERE c.id LIKE $1 AND c.ticker IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM signals s WHERE s.contract_id = c.id)`,
        [`CONT_AWD_%KILL${interrupted}X%`],
      );
      return [await countOf(db, interrupted), unscored[0]?.n ?? 0];
    });
    assert.ok(
      survived === 0 || survived === INTERRUPTED_SIZE,
      `the interrupted batch: ${survived} of ${INTERRUPTED_SIZE} stored`,
    );
    t.diagnostic(
      `the interrupted batch was stored ${survived === 0 ? 'not at all' : `whole, ${unscoredBefore} of its matched contracts not yet scored`}`,
    );

    const restarted = Date.now();
    const second = startServe([], env(), { seed: true });
    const again = await listening(second);
    t.diagnostic(`restarted after kill -9: listening in ${Date.now() - restarted} ms`);
    try {
      const health = await fetch(`${again}/api/v1/health`);
      assert.equal(health.status, 200, await health.text());
      const resent = await post(again, key, interrupted, INTERRUPTED_SIZE);
      const text = await resent.text();
      assert.equal(resent.status, 200, text);
      const body = JSON.parse(text) as { inserted: number };
      assert.equal(
        body.inserted,
        survived === 0 ? INTERRUPTED_SIZE : 0,
        'stored records are not stored again',
      );
    } finally {
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0, second.stderr());
    }

    await withDb(async (db) => {
      const perBatch = await db.query<{ batch: number; n: number }>(
        `SELECT substring(id FROM 'KILL(\\d+)X')::int AS batch, count(*)::int AS n
         FROM contracts WHERE id LIKE 'CONT_AWD_%KILL%' GROUP BY 1 ORDER BY 1`,
      );
      assert.deepEqual(
        perBatch,
        [...acknowledged.map((b) => ({ batch: b, n: BATCH })), { batch: interrupted, n: INTERRUPTED_SIZE }],
        'every batch whole, none twice',
      );
      const unscored = await db.query<{ id: string }>(
        `SELECT c.id FROM contracts c WHERE c.id LIKE 'CONT_AWD_%KILL%' AND c.ticker IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM signals s WHERE s.contract_id = c.id)`,
      );
      assert.deepEqual(unscored, [], 'every matched contract has its signals');
      const duplicates = await db.query(
        `SELECT contract_id, engine_name, engine_version FROM signals
         GROUP BY 1, 2, 3 HAVING count(*) > 1`,
      );
      assert.deepEqual(duplicates, []);
    });
  });
});
