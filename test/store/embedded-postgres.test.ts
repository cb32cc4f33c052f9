/**
 * The embedded default: a PostgreSQL child process owning DATA_DIR/postgres, reached over a private
 * socket, stopped with the server, recovered after a crash of either side.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDb } from '../../src/store/db.ts';
import { readPidFile, restoreLibraryLinks, startEmbedded } from '../../src/store/embedded-postgres.ts';
import { BIN, cli } from '../support/cli.ts';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(prefix = 'mi-epg-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  // As root, PostgreSQL runs as its own user, which must pass through to a DATA_DIR inside.
  chmodSync(dir, 0o711);
  dirs.push(dir);
  return dir;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** `serve` on `dataDir` (one process), resolved once it listens, with the port it took. */
async function serve(
  dataDir: string,
): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null>; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--no-seed', '--workers', '1', '--port', '0'], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d;
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not listen: ${stderr}`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      const found = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(d.toString());
      if (found) {
        clearTimeout(timer);
        resolve(Number(found[1]));
      }
    });
  });
  return { child, port, exited, stderr: () => stderr };
}

async function health(port: number): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status;
}

describe('embedded PostgreSQL', () => {
  test('runs on a private socket in DATA_DIR/postgres, binds no TCP port, and stops with the server', async (t) => {
    const dataDir = tempDir();
    const server = await serve(dataDir);
    // A failed assertion must not leave the server (and this test run) waiting.
    t.after(() => server.child.kill('SIGKILL'));
    const cluster = path.join(dataDir, 'postgres');
    const pidFile = readPidFile(cluster);
    assert.ok(pidFile && alive(pidFile.pid), 'a postmaster runs for the data directory');
    assert.equal(pidFile.status, 'ready');
    assert.equal(pidFile.socketDir, cluster);
    assert.equal(readlinkSync(`/proc/${pidFile.pid}/cwd`), cluster);
    assert.equal(await health(server.port), 200);
    await until('serve to say where it initialised PostgreSQL', () =>
      server.stderr().includes(`initialised PostgreSQL in ${cluster}\n`),
    );

    const db = await openDb({ databaseUrl: null, dataDir }, { attach: true });
    try {
      const [settings] = await db.query<{ listen: string; version: string }>(
        "SELECT current_setting('listen_addresses') AS listen, current_setting('server_version_num') AS version",
      );
      assert.equal(settings?.listen, '', 'no TCP listener: it cannot collide with a server on 5432');
      assert.ok(Number(settings?.version) >= 170000);
      // Sized for large imports (embedded-postgres.ts serverSettings): WAL buffers and checkpoint spacing.
      assert.deepEqual(
        await db.query(
          "SELECT current_setting('wal_buffers') AS wal_buffers, current_setting('max_wal_size') AS max_wal_size",
        ),
        [{ wal_buffers: '64MB', max_wal_size: '4GB' }],
      );
      // The server's own sessions and this command's: all the restricted role (none is a superuser).
      const roles = await db.query<{ role: string }>(
        "SELECT DISTINCT usename AS role FROM pg_stat_activity WHERE backend_type = 'client backend'",
      );
      assert.deepEqual(
        roles.map((r) => r.role),
        ['market_intel'],
      );
    } finally {
      await db.close();
    }
    assert.ok(alive(pidFile.pid), 'an attached command leaves the server running');

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.equal(alive(pidFile.pid), false, 'PostgreSQL stopped with the server');
    assert.equal(existsSync(path.join(cluster, 'postmaster.pid')), false, 'a clean shutdown');
  });

  test('after kill -9 of the server, PostgreSQL stops by itself and the next start recovers every commit', async () => {
    const dataDir = tempDir();
    const user = await cli(['users', 'create', '--email', 'kept@example.test'], { DATA_DIR: dataDir });
    assert.equal(user.code, 0, user.stderr);
    const first = await serve(dataDir);
    const postmaster = readPidFile(path.join(dataDir, 'postgres'))?.pid ?? -1;
    first.child.kill('SIGKILL');
    await first.exited;
    await until('the orphaned postmaster to stop', () => !alive(postmaster));

    const second = await serve(dataDir);
    try {
      assert.equal(await health(second.port), 200);
      const db = await openDb({ databaseUrl: null, dataDir }, { attach: true });
      const rows = await db.query<{ email: string }>('SELECT email FROM users');
      await db.close();
      assert.deepEqual(
        rows.map((r) => r.email),
        ['kept@example.test'],
      );
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  test('a postmaster whose owner is gone is stopped and replaced at the next start', async () => {
    const dataDir = tempDir();
    const orphan = await startEmbedded(dataDir, { noSync: true });
    // The owner vanishes without stopping it (its lock file goes with the crash of a whole machine's
    // worth of state; here it is removed by hand): the postmaster keeps running, unowned.
    rmSync(path.join(dataDir, 'market-intel.lock'));
    const next = await startEmbedded(dataDir);
    try {
      assert.notEqual(next.pid, orphan.pid);
      assert.equal(alive(orphan.pid), false, 'the orphan was stopped');
      assert.equal(readPidFile(path.join(dataDir, 'postgres'))?.pid, next.pid);
    } finally {
      await next.stop();
    }
  });

  test('a second owner is refused with a message; attaching joins the running server', async () => {
    const dataDir = tempDir();
    const owner = await startEmbedded(dataDir, { noSync: true });
    try {
      await assert.rejects(startEmbedded(dataDir), /is run by another market-intel server \(pid \d+\)/);
      const joined = await startEmbedded(dataDir, { attach: true });
      assert.equal(joined.owned, false);
      assert.equal(joined.pid, owner.pid);
      assert.equal(joined.url, owner.url);
      await joined.stop();
      assert.ok(alive(owner.pid), 'a joiner never stops the owner’s server');
    } finally {
      await owner.stop();
    }
    assert.equal(alive(owner.pid), false);
  });

  test('a data directory whose socket path would be too long gets its socket in a fresh private directory of /tmp', async () => {
    const dataDir = path.join(tempDir(), 'x'.repeat(100));
    const server = await startEmbedded(dataDir, { noSync: true });
    let socketDir = '';
    try {
      socketDir = decodeURIComponent(new URL(server.url).searchParams.get('host') ?? '');
      assert.match(socketDir, /^\/tmp\/market-intel-pg-\w{6}$/);
      dirs.push(socketDir);
      const db = await openDb({ databaseUrl: server.url, dataDir: '' });
      assert.equal((await db.query<{ n: number }>('SELECT 1 AS n'))[0]?.n, 1);
      await db.close();
    } finally {
      await server.stop();
    }
    assert.equal(existsSync(socketDir), false, 'removed when the server stops');
  });

  test('restores the shared-library links npm cannot ship, once', () => {
    const pkg = tempDir();
    mkdirSync(path.join(pkg, 'native', 'lib'), { recursive: true });
    writeFileSync(path.join(pkg, 'native', 'lib', 'libpq.so.5.18'), 'library');
    writeFileSync(
      path.join(pkg, 'native', 'pg-symlinks.json'),
      JSON.stringify([{ source: 'native/lib/libpq.so.5.18', target: 'native/lib/libpq.so.5' }]),
    );
    assert.equal(restoreLibraryLinks(pkg), 1);
    assert.equal(readlinkSync(path.join(pkg, 'native', 'lib', 'libpq.so.5')), 'libpq.so.5.18');
    assert.equal(readFileSync(path.join(pkg, 'native', 'lib', 'libpq.so.5'), 'utf8'), 'library');
    assert.equal(restoreLibraryLinks(pkg), 0);
  });
});
