/**
 * Least privilege for the embedded PostgreSQL (docs/SECURITY.md, "Embedded PostgreSQL: host user and
 * roles" and "Embedded PostgreSQL: socket directory"): as root its processes run as an unprivileged
 * host user; the app's role cannot reach the host's files or programs, nor make roles; a cluster left by
 * an earlier version is taken over intact; a socket directory that is not PostgreSQL's own is refused.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openDb } from '../../src/store/db.ts';
import { type EmbeddedServer, startEmbedded } from '../../src/store/embedded-postgres.ts';
import { APP_ROLE } from '../../src/store/embedded-roles.ts';
import { SERVICE_USER } from '../../src/store/embedded-user.ts';
import { migrate } from '../../src/store/migrate.ts';
import { UnsafeSocketDirError, verifySocketDir } from '../../src/store/socket-dir.ts';
import { cli } from '../support/cli.ts';
import { buildLegacyCluster, canBuildLegacyCluster } from '../support/legacy-cluster.ts';

const ROOT = process.getuid?.() === 0;
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mi-epg-sec-'));
  chmodSync(dir, 0o711);
  dirs.push(dir);
  return dir;
}

const uidOf = (pid: number) =>
  Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** Runs `sql` on a connection of its own to `url`; the error's SQLSTATE and message, or null. */
async function failure(url: string, sql: string): Promise<{ code: string; message: string } | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
    return null;
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL: host user and roles', () => {
  let server: EmbeddedServer;
  let dataDir: string;
  before(async () => {
    dataDir = tempDir();
    server = await startEmbedded(dataDir, { noSync: true });
  });
  after(async () => {
    await server?.stop();
  });

  test('as root, the postmaster and every backend run as an unprivileged user that owns the cluster', {
    skip: !ROOT && 'needs root',
  }, async () => {
    const user = await failure(server.adminUrl, 'SELECT 1');
    assert.equal(user, null);
    const postmasterUid = uidOf(server.pid);
    assert.notEqual(postmasterUid, 0, 'the postmaster is not root');
    const children = readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/);
    // A backend that was ending when the list was read (the connection above) may be gone by now.
    const uids = children.map(Number).flatMap((child) => {
      try {
        return [uidOf(child)];
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    });
    assert.ok(uids.length > 0, 'it has child processes');
    for (const uid of uids) assert.equal(uid, postmasterUid);
    const cluster = path.join(dataDir, 'postgres');
    assert.equal(statSync(cluster).uid, postmasterUid);
    assert.equal(statSync(cluster).mode & 0o777, 0o700);
    const passwd = readFileSync('/etc/passwd', 'utf8');
    assert.match(
      passwd,
      new RegExp(`^${SERVICE_USER}:x:${postmasterUid}:\\d+:[^:]*:[^:]*:/usr/sbin/nologin$`, 'm'),
    );
    // Even the superuser's file functions act as that user: the host's root-only files stay closed.
    const shadow = await failure(server.adminUrl, "SELECT pg_read_file('/etc/shadow')");
    assert.match(shadow?.message ?? '', /could not open file "\/etc\/shadow" for reading: Permission denied/);
  });

  test('the app connects as a role that is no superuser and cannot reach files, programs or roles', async () => {
    const denied = async (sql: string) => {
      const error = await failure(server.url, sql);
      assert.equal(error?.code, '42501', `${sql}: ${error?.message ?? 'succeeded'}`);
    };
    const db = await openDb({ databaseUrl: server.url, dataDir: '' });
    try {
      const [who] = await db.query<{ user: string; superuser: boolean; readers: boolean }>(
        `SELECT current_user AS user, rolsuper AS superuser,
           pg_has_role('pg_read_server_files', 'USAGE') OR pg_has_role('pg_write_server_files', 'USAGE')
             OR pg_has_role('pg_execute_server_program', 'USAGE') AS readers
         FROM pg_roles WHERE rolname = current_user`,
      );
      assert.deepEqual(who, { user: APP_ROLE, superuser: false, readers: false });
    } finally {
      await db.close();
    }
    await denied("SELECT pg_read_file('/etc/shadow')");
    await denied("SELECT pg_read_binary_file('/etc/passwd')");
    await denied("SELECT pg_ls_dir('/')");
    await denied("COPY (SELECT 1) TO PROGRAM 'true'");
    await denied("CREATE TEMP TABLE t (line text); COPY t FROM PROGRAM 'id'");
    await denied("CREATE TEMP TABLE t (line text); COPY t FROM '/etc/passwd'");
    await denied("COPY (SELECT 1) TO '/tmp/market-intel-copy-out'");
    await denied("SELECT lo_import('/etc/shadow')");
    await denied('CREATE ROLE intruder SUPERUSER LOGIN');
    await denied('CREATE DATABASE intruder');
    await denied('SET ROLE postgres');
    await denied("ALTER SYSTEM SET log_min_messages = 'debug5'");
    await denied('CREATE EXTENSION file_fdw');
  });

  test("the app's role cannot read another schema's tables nor connect to another database", async () => {
    const setup = await failure(
      server.adminUrl,
      "CREATE SCHEMA vault; CREATE TABLE vault.secrets (value text); INSERT INTO vault.secrets VALUES ('s3cr3t')",
    );
    assert.equal(setup, null);
    const read = await failure(server.url, 'SELECT value FROM vault.secrets');
    assert.equal(read?.code, '42501');
    const other = new URL(server.url);
    other.pathname = '/template1';
    await assert.rejects(failure(other.toString(), 'SELECT 1'), /permission denied for database "template1"/);
  });

  test('migrations, COPY FROM STDIN, LISTEN/NOTIFY and advisory locks work as the app role', async () => {
    const db = await openDb({ databaseUrl: server.url, dataDir: '' });
    const listener = new pg.Client({ connectionString: server.url });
    try {
      await migrate(db);
      await db.transaction(async (tx) => {
        await tx.query('CREATE TEMP TABLE loaded (n int, label text) ON COMMIT DROP');
        await tx.copyFrom('loaded', ['n', 'label'], [1, 2, 3], (n) => [n, `row ${n}`]);
        const [count] = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM loaded');
        assert.equal(count?.n, 3);
      });
      await listener.connect();
      await listener.query('LISTEN mi_test');
      const heard = new Promise<string | undefined>((resolve) =>
        listener.once('notification', (n) => resolve(n.payload)),
      );
      await db.query("SELECT pg_notify('mi_test', 'hello')");
      assert.equal(await heard, 'hello');
      const [lock] = await db.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(42) AS taken');
      assert.equal(lock?.taken, true);
      const [owner] = await db.query<{ owner: string }>(
        "SELECT tableowner AS owner FROM pg_tables WHERE tablename = 'schema_migrations'",
      );
      assert.equal(owner?.owner, APP_ROLE);
    } finally {
      await listener.end().catch(() => undefined);
      await db.close();
    }
  });
});

describe('embedded PostgreSQL: where its user cannot reach', () => {
  test('a DATA_DIR inside a private directory whose state directory is private too stops the start, naming it', {
    skip: !ROOT && 'needs root',
  }, async () => {
    const parent = tempDir();
    chmodSync(parent, 0o700);
    const dataDir = path.join(parent, 'data');
    const stateDir = tempDir();
    chmodSync(stateDir, 0o700);
    await assert.rejects(
      startEmbedded(dataDir, { noSync: true, stateDir }),
      new RegExp(
        `the system user '${SERVICE_USER}' \\(the service runs as root\\), which cannot reach the directory of its ` +
          `cluster, ${stateDir}/clusters: ${stateDir} is private\\. Give that user search permission there, or set DATABASE_URL`,
      ),
    );
    assert.equal(existsSync(path.join(dataDir, 'postgres')), false, 'nothing was initialised');
    assert.deepEqual(readdirSync(path.join(stateDir, 'clusters')), [], 'nor there');
  });
});

describe('embedded PostgreSQL: a data directory of an earlier version', () => {
  test('a root-owned cluster whose tables the superuser owns is handed to the PostgreSQL user and the app role, data intact', {
    skip: !canBuildLegacyCluster() && 'needs root and user namespaces',
  }, async () => {
    const dataDir = tempDir();
    await buildLegacyCluster(dataDir, async (url) => {
      const db = await openDb({ databaseUrl: url, dataDir: '' });
      await migrate(db);
      await db.query(
        "INSERT INTO users (id, email, plan) VALUES (gen_random_uuid(), 'kept@example.test', 'free')",
      );
      await db.close();
    });
    const cluster = path.join(dataDir, 'postgres');
    assert.equal(statSync(cluster).uid, 0, 'the earlier version left root-owned files');

    for (let start = 0; start < 2; start++) {
      const server = await startEmbedded(dataDir);
      const db = await openDb({ databaseUrl: server.url, dataDir: '' });
      try {
        assert.notEqual(uidOf(server.pid), 0);
        assert.deepEqual(await migrate(db), [], 'every migration was already applied');
        const emails = await db.query<{ email: string }>('SELECT email FROM users ORDER BY email');
        assert.deepEqual(
          emails.map((r) => r.email),
          start === 0 ? ['kept@example.test'] : ['added@example.test', 'kept@example.test'],
        );
        if (start === 0)
          await db.query(
            "INSERT INTO users (id, email, plan) VALUES (gen_random_uuid(), 'added@example.test', 'free')",
          );
        const foreign = await db.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_class c
             WHERE c.relnamespace = 'public'::regnamespace AND pg_get_userbyid(c.relowner) <> current_user
             UNION ALL SELECT proname FROM pg_proc
             WHERE pronamespace = 'public'::regnamespace AND pg_get_userbyid(proowner) <> current_user`,
        );
        assert.deepEqual(foreign, [], 'the app role owns every table, index, sequence and function');
      } finally {
        await db.close();
        await server.stop();
      }
      const pgUid = statSync(cluster).uid;
      assert.notEqual(pgUid, 0, 'the cluster is the PostgreSQL user’s');
      const owners = new Set(
        readdirSync(cluster, { recursive: true }).map((f) => lstatSync(path.join(cluster, String(f))).uid),
      );
      assert.deepEqual([...owners], [pgUid], 'and so is every file in it');
    }
  });
});

describe('embedded PostgreSQL: socket directory', () => {
  const owner = process.getuid?.() ?? 0;
  const stranger = owner === 0 ? 65534 : 0;

  test('a long DATA_DIR gets a fresh mkdtemp directory, never one made beforehand under a predictable name', async () => {
    const dataDir = path.join(tempDir(), 'y'.repeat(100));
    // What the previous version would have used for this cluster: planted first, by another user.
    const planted = mkdtempSync(path.join('/tmp', 'market-intel-pg-'));
    dirs.push(planted);
    chmodSync(planted, 0o777);
    const server = await startEmbedded(dataDir, { noSync: true });
    try {
      const socketDir = new URL(server.url).searchParams.get('host') ?? '';
      dirs.push(socketDir);
      assert.notEqual(socketDir, planted);
      assert.equal(existsSync(path.join(planted, '.s.PGSQL.5432')), false);
      const stat = statSync(socketDir);
      assert.equal(stat.mode & 0o777, 0o700);
      assert.equal(stat.uid, statSync(path.join(dataDir, 'postgres')).uid);
      assert.equal(await failure(server.url, 'SELECT 1'), null);
    } finally {
      await server.stop();
    }
  });

  test('a directory of another uid, opened to others, a symbolic link or missing is refused with the reason', () => {
    const base = tempDir();
    const make = (name: string, mode: number, uid = owner) => {
      const dir = path.join(base, name);
      mkdirSync(dir);
      chmodSync(dir, mode);
      if (uid !== owner) chownSync(dir, uid, uid);
      return dir;
    };
    const good = make('good', 0o700);
    assert.doesNotThrow(() => verifySocketDir(good, owner));
    const refused = (dir: string, reason: RegExp) => {
      assert.throws(
        () => verifySocketDir(dir, owner),
        (error: Error) => {
          assert.ok(error instanceof UnsafeSocketDirError);
          assert.match(error.message, /^refusing PostgreSQL's socket directory /);
          assert.match(error.message, reason);
          return true;
        },
      );
    };
    if (owner === 0)
      refused(make('stranger', 0o700, stranger), /owned by uid 65534, not PostgreSQL's user \(uid 0\)/);
    refused(make('loose', 0o755), /its mode is 0755: open to other users/);
    refused(make('group', 0o730), /its mode is 0730/);
    const link = path.join(base, 'link');
    symlinkSync(good, link);
    refused(link, /it is a symbolic link/);
    refused(path.join(base, 'missing'), /it does not exist/);
    const file = path.join(base, 'file');
    writeFileSync(file, '');
    refused(file, /not a directory/);
    const open = make('open', 0o777);
    refused(make('open/inner', 0o700), /its parent .*open is writable by every user \(mode 0777\)/);
    chmodSync(open, 0o1777);
    assert.doesNotThrow(() => verifySocketDir(path.join(open, 'inner'), owner), 'a sticky parent is fine');
  });

  test('a command attaching to the running server refuses a socket directory that is not PostgreSQL’s', async () => {
    const dataDir = path.join(tempDir(), 'z'.repeat(100));
    const server = await startEmbedded(dataDir, { noSync: true });
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const original = readFileSync(pidFile, 'utf8');
    try {
      const socketDir = new URL(server.url).searchParams.get('host') ?? '';
      dirs.push(socketDir);
      // Another user's directory holding a socket that leads to the real server: still refused.
      const swapped = mkdtempSync(path.join('/tmp', 'market-intel-pg-'));
      dirs.push(swapped);
      chmodSync(swapped, 0o755);
      const lines = original.split('\n');
      lines[4] = swapped;
      writeFileSync(pidFile, lines.join('\n'));
      const command = await cli(['users', 'create', '--email', 'swapped@example.test'], {
        DATA_DIR: dataDir,
      });
      assert.equal(command.code, 1, command.stderr);
      assert.match(
        command.stderr,
        /^market-intel: refusing PostgreSQL's socket directory \/tmp\/market-intel-pg-\w+: /m,
      );
      await assert.rejects(
        openDb({ databaseUrl: null, dataDir }, { attach: true }),
        /refusing PostgreSQL's socket directory \/tmp\/market-intel-pg-\w+: its mode is 0755|owned by uid/,
      );
      writeFileSync(pidFile, original);
      const db = await openDb({ databaseUrl: null, dataDir }, { attach: true });
      assert.equal((await db.query<{ user: string }>('SELECT current_user AS user'))[0]?.user, APP_ROLE);
      await db.close();
    } finally {
      writeFileSync(pidFile, original);
      await server.stop();
    }
  });
});
