/**
 * An ingest that meets a full disk or a read-only database: the command exits 1 with a message naming
 * the cause, stores nothing of the file (one transaction up to 5,000 records), the API keeps serving
 * reads, and the same command completes the import once the database accepts writes again.
 *
 * The full disk is real: the scratch database lives in a tablespace on a small tmpfs, filled to the
 * last 128 KB. Mounting needs root on Linux; elsewhere the test is skipped and says why.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import { BULK_COLUMNS, textValue } from '../../src/sources/awards.ts';
import { toCsv } from '../../src/sources/csv.ts';
import { type Db, openDb } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { makeKey, testApp } from '../support/app.ts';
import { cli } from '../support/cli.ts';
import { admin, appUrl, SEED_TEMPLATE } from '../support/db.ts';
import { recordedBulkRecords } from '../support/fake-usaspending.ts';

const MOUNT_MB = 160;
const LEFT_FREE = 128 * 1024;

function mountable(): string | null {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux';
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root';
  return null;
}
const skip = mountable();

/** `count` bulk records made from the recorded ones, each with its own award id. */
function awardsCsv(file: string, count: number, tag: string): void {
  const recorded = recordedBulkRecords();
  const rows = Array.from({ length: count }, (_, i) => {
    const source = recorded[i % recorded.length] ?? {};
    const record: Record<string, unknown> = {
      ...source,
      contract_award_unique_key: String(source.contract_award_unique_key).replace(
        /^CONT_AWD_([^_]+)_/,
        `CONT_AWD_$1${tag}${i}_`,
      ),
    };
    return BULK_COLUMNS.map((c) => textValue(record[c]) ?? '');
  });
  writeFileSync(file, toCsv(BULK_COLUMNS, rows));
}

/** Fills the volume of `dir` to its last `leave` bytes; returns the filler's path. */
function fill(dir: string, leave: number): string {
  const filler = path.join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const block = Buffer.alloc(1024 * 1024);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  ftruncateSync(fd, Math.max(0, written - leave));
  closeSync(fd);
  return filler;
}

describe('an ingest meets a full disk, then a read-only database', { skip: skip ?? false }, () => {
  const name = `market_intel_disk_${process.pid}_${randomBytes(3).toString('hex')}`;
  const space = `market_intel_disk_${process.pid}`;
  let mount: string;
  let work: string;
  let url: string;
  let db: Db;
  let app: App;
  let key: string;
  /** Contracts once the first test is done. */
  let total = 0;

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'mi-disk-'));
    // PostgreSQL's own user must reach the tablespace inside it.
    chmodSync(work, 0o755);
    mount = path.join(work, 'volume');
    mkdirSync(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${MOUNT_MB}m`, 'tmpfs', mount]);
    // The tablespace directory belongs to the user PostgreSQL runs as (its data directory's owner).
    const dataDir = await admin(async (c) => (await c.query('SHOW data_directory')).rows[0].data_directory);
    const owner = statSync(dataDir);
    const location = path.join(mount, 'pg');
    mkdirSync(location);
    execFileSync('chown', [`${owner.uid}:${owner.gid}`, location]);
    await admin((c) => c.query(`CREATE TABLESPACE ${space} LOCATION '${location}'`));
    // The demo data, so that reads have something to serve.
    await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${SEED_TEMPLATE} TABLESPACE ${space}`));
    url = appUrl(name);
    db = await openDb({ databaseUrl: url, dataDir: '' });
    await migrate(db);
    app = await testApp(db);
    key = (await makeKey(db, { plan: 'institutional' })).raw;
  });
  after(async () => {
    await app?.close();
    await db?.close();
    await admin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.query(`DROP TABLESPACE IF EXISTS ${space}`);
    }).catch(() => undefined);
    if (mount) execFileSync('umount', ['-l', mount]);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const contracts = async () =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts'))[0]?.n ?? -1;
  const read = () => app.inject({ url: '/api/v1/events?limit=5', headers: { 'x-api-key': key } });
  const ingest = (file: string) => cli(['ingest', 'usaspending', '--file', file], { DATABASE_URL: url });

  test('full disk: exit 1 naming it, nothing of the file stored, reads served; the rerun completes', async (t) => {
    const before = await contracts();
    const first = path.join(work, 'first.csv');
    awardsCsv(first, 200, 'A');
    assert.equal((await ingest(first)).code, 0);
    assert.equal(await contracts(), before + 200);
    const firstId = (
      await db.query<{ id: string }>(
        "SELECT id FROM contracts WHERE id LIKE 'CONT_AWD_%A1_%' AND ticker IS NOT NULL LIMIT 1",
      )
    )[0]?.id;
    assert.ok(firstId, 'a contract of the first file, matched to a company');

    const second = path.join(work, 'second.csv');
    awardsCsv(second, 3000, 'B');
    const filler = fill(mount, LEFT_FREE);
    const started = performance.now();
    const failed = await ingest(second);
    const ms = performance.now() - started;
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /ingest stopped: the database server is out of disk space/);
    assert.match(failed.stderr, /SQLSTATE 53100/);
    assert.match(failed.stderr, /run the same command again/);
    assert.doesNotMatch(failed.stderr, /\n\s+at /, 'a message, not a stack trace');
    assert.equal(await contracts(), before + 200, 'nothing of the failed file is stored');

    const served = await read();
    assert.equal(served.statusCode, 200, 'reads are served while the disk is full');
    assert.equal(served.json<{ data: unknown[] }>().data.length, 5);
    const contract = await app.inject({ url: `/api/v1/contracts/${firstId}`, headers: { 'x-api-key': key } });
    assert.equal(contract.statusCode, 200, 'a stored contract is served while the disk is full');
    t.diagnostic(
      `full disk: the ingest failed cleanly in ${Math.round(ms)} ms: ${failed.stderr.trim().split('\n').at(-1)}`,
    );

    rmSync(filler);
    const rerun = await ingest(second);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.match(rerun.stderr, /3000 received, 3000 new/);
    assert.equal(await contracts(), before + 3200);
    total = before + 3200;
  });

  test('read-only database: exit 1 naming it, nothing changed, reads served; the rerun completes', async (t) => {
    const third = path.join(work, 'third.csv');
    awardsCsv(third, 100, 'C');
    await admin((c) => c.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`));
    const readOnly = await openDb({ databaseUrl: url, dataDir: '' });
    const readOnlyApp = await testApp(readOnly);
    try {
      const failed = await ingest(third);
      assert.equal(failed.code, 1, failed.stderr);
      assert.match(failed.stderr, /ingest stopped: the database is read-only/);
      t.diagnostic(`read-only: ${failed.stderr.trim().split('\n').at(-1)}`);
      assert.match(failed.stderr, /SQLSTATE 25006/);
      // Refused while migrating, before any record: the advice is the same as mid-import.
      assert.match(failed.stderr, /run the same command again/);
      assert.doesNotMatch(failed.stderr, /\n\s+at /);
      assert.equal(await contracts(), total);
      const served = await readOnlyApp.inject({
        url: '/api/v1/events?limit=3',
        headers: { 'x-api-key': key },
      });
      assert.equal(served.statusCode, 200, 'a read-only database still serves reads');
    } finally {
      await readOnlyApp.close();
      await readOnly.close();
      await admin((c) => c.query(`ALTER DATABASE ${name} RESET default_transaction_read_only`));
    }
    const rerun = await ingest(third);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.equal(await contracts(), total + 100);
  });
});
