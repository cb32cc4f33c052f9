/**
 * kill -9 of a worker mid-delivery: its claims expire and another worker completes every delivery.
 * Delivery is at least once — the receiver sees the interrupted delivery ids twice, which is why
 * X-Service-Delivery is stable across attempts (receivers de-duplicate on it).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Db, openDb } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { listAttempts } from '../../src/store/webhooks.ts';
import { admin, appUrl, EXTERNAL_DATABASE } from '../support/db.ts';
import { enqueue, makeWebhook, waitUntil, webhookConfig } from './helpers.ts';
import { type Certificate, makeCertificate, type Receiver, startReceiver } from './receiver.ts';

const BIN = new URL('../../bin/market-intel.js', import.meta.url).pathname;
/** One endpoint gets at most 4 attempts at once (the worker's per-endpoint allowance): all are held open. */
const COUNT = 4;

let certificate: Certificate;
let receiver: Receiver;
let dataDir: string;
let databaseUrl: string | null = null;
/** Requests per delivery id as they arrive (a held-open request never reaches `received`). */
const arrivals = new Map<string, number>();

before(async () => {
  certificate = makeCertificate();
  receiver = await startReceiver(certificate, (request, seen) => {
    arrivals.set(String(request.headers['x-service-delivery']), seen);
    // The first attempt is held open until the worker is killed; later ones are answered at once.
    return seen === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 };
  });
  dataDir = mkdtempSync(path.join(tmpdir(), 'market-intel-crash-'));
  // On the embedded pass the worker runs embedded mode itself: the kill also takes its PostgreSQL down,
  // and the next worker recovers it. On the machine's PostgreSQL it runs in cluster mode.
  if (EXTERNAL_DATABASE) {
    const name = `market_intel_crash_${process.pid}_${randomBytes(3).toString('hex')}`;
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    databaseUrl = appUrl(name);
  }
});
after(async () => {
  await receiver.close();
  if (databaseUrl) {
    const name = new URL(databaseUrl).pathname.slice(1);
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  }
  rmSync(dataDir, { recursive: true, force: true });
  certificate.cleanup();
});

const env = () => ({
  ...process.env,
  LOG_LEVEL: 'silent',
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl ?? '',
  // Cluster mode refuses to start a worker without one; embedded mode generates it into DATA_DIR.
  ...(databaseUrl ? { SECRET_KEY: 'crash-test-secret-key' } : {}),
  WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32',
  WEBHOOK_CA_FILE: certificate.certFile,
  // Long enough that the first worker's held-open attempts are still in flight when it is killed.
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms',
});

const startWorker = (): ChildProcess =>
  spawn(process.execPath, [BIN, 'worker'], { env: env(), stdio: 'ignore' });
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

/** Embedded mode owns its data directory: open it only while no worker runs. */
async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb({ databaseUrl, dataDir }, { attach: true });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

describe('a worker killed with SIGKILL mid-delivery', () => {
  test('loses nothing: the claims expire and another worker completes every delivery', async () => {
    const deliveryIds = await withDb(async (db) => {
      await migrate(db);
      const config = webhookConfig(certificate);
      const { webhookId } = await makeWebhook(db, config, `${receiver.url}/crash`);
      const rows = await enqueue(
        db,
        webhookId,
        Array.from({ length: COUNT }, (_, i) => ({ event: 'signal.created', data: { i }, ts: i })),
      );
      return rows.map((r) => r.id);
    });

    const first = startWorker();
    // The receiver holds every first request open; once all arrived, the worker is mid-delivery.
    await waitUntil('first requests', async () => receiver.received.length + pendingCount() >= COUNT, 30_000);
    first.kill('SIGKILL');
    await exited(first);
    const second = startWorker();
    await receiver.waitFor(COUNT, (r) => r.status === 200 && r.path === '/crash' && isRepeat(r), 30_000);
    if (!databaseUrl) {
      second.kill('SIGTERM');
      assert.equal(await exited(second), 0, 'a worker stops cleanly on SIGTERM');
    }
    await withDb(async (db) => {
      await waitUntil('all succeeded', async () => {
        const rows = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'",
        );
        return rows[0]?.n === COUNT;
      });
      for (const id of deliveryIds) {
        const attempts = await listAttempts(db, id);
        assert.deepEqual(
          attempts.map((a) => [a.attempt_no, a.status_code, a.error?.startsWith('no outcome') ?? null]),
          [
            [1, null, true],
            [2, 200, null],
          ],
        );
      }
    });
    if (databaseUrl) {
      second.kill('SIGTERM');
      assert.equal(await exited(second), 0);
    }
    const ids = seenIds();
    assert.deepEqual(new Set(ids), new Set(deliveryIds), 'every delivery arrived');
    assert.equal(ids.length, COUNT, 'answered requests: only the second attempts (the first were cut off)');
    assert.equal(arrivals.size, COUNT, 'each delivery id reached the receiver twice: at least once, same id');
  });
});

function pendingCount(): number {
  return [...arrivals.values()].filter((n) => n === 1).length;
}
function isRepeat(r: { headers: Record<string, unknown> }): boolean {
  return (arrivals.get(String(r.headers['x-service-delivery'])) ?? 0) >= 2;
}
function seenIds(): string[] {
  return receiver.received
    .filter((r) => r.path === '/crash')
    .map((r) => String(r.headers['x-service-delivery']));
}
