import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { resolveSecretKey, SECRET_KEY_FILE } from '../../src/secret-key.ts';
import { openDb } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { generateSecret, openSecret, sealSecret } from '../../src/webhooks/secrets.ts';
import { cli } from '../support/cli.ts';

const CLUSTER_URL = 'postgres://postgres@127.0.0.1:5432/mi_h3';
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mi-secrets-'));
  dirs.push(dir);
  return dir;
}

const modeOf = (file: string) => statSync(file).mode & 0o777;
const embedded = (dataDir: string, env: Record<string, string> = {}) =>
  loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });

/** Every path under `dir` whose mode is not 0700 (directories) or 0600 (files), with its mode. */
function looseModes(dir: string): string[] {
  const loose = modeOf(dir) === 0o700 ? [] : [`${dir} ${modeOf(dir).toString(8)}`];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const expected = entry.isDirectory() ? 0o700 : 0o600;
    if (modeOf(file) !== expected) loose.push(`${file} ${modeOf(file).toString(8)}`);
  }
  return loose;
}

describe('embedded data directory', () => {
  test('a fresh one holds postgres/ at 0700 with every database file 0600, and secret.key at 0600', async () => {
    const dataDir = tempDir();
    const run = await cli(['migrate'], { DATA_DIR: dataDir, SECRET_KEY: '' });
    assert.equal(run.code, 0, run.stderr);
    const cluster = path.join(dataDir, 'postgres');
    assert.ok(readdirSync(cluster, { recursive: true }).length > 100, 'initdb wrote the database files');
    assert.deepEqual(looseModes(cluster), []);
    assert.equal(modeOf(path.join(dataDir, SECRET_KEY_FILE)), 0o600);
  });

  test('an existing one opened to others is closed again when started, and the server starts', async () => {
    const dataDir = tempDir();
    const cluster = path.join(dataDir, 'postgres');
    const first = await openDb({ databaseUrl: null, dataDir });
    await migrate(first);
    await first.close();
    chmodSync(cluster, 0o755);

    const db = await openDb({ databaseUrl: null, dataDir });
    try {
      assert.equal(modeOf(cluster), 0o700);
      assert.equal((await db.query<{ n: number }>('SELECT 1 AS n'))[0]?.n, 1);
    } finally {
      await db.close();
    }
  });
});

describe('SECRET_KEY', () => {
  test('embedded mode generates one key on first use and every later load reads it', async () => {
    const dataDir = tempDir();
    const racing = await Promise.all(
      Array.from({ length: 4 }, () => resolveSecretKey(embedded(dataDir), 'serve')),
    );
    const key = racing[0]?.secretKey;
    assert.match(key ?? '', /^[\w-]{43}$/);
    for (const config of racing) assert.equal(config.secretKey, key);
    assert.equal((await resolveSecretKey(embedded(dataDir), 'keys')).secretKey, key);
    assert.equal(modeOf(path.join(dataDir, SECRET_KEY_FILE)), 0o600);
    assert.deepEqual(
      readdirSync(dataDir).filter((name) => name.startsWith(SECRET_KEY_FILE)),
      [SECRET_KEY_FILE],
      'no staged key file is left behind',
    );
  });

  test('the generated key encrypts webhook secrets at rest', async () => {
    const dataDir = tempDir();
    const { secretKey } = await resolveSecretKey(embedded(dataDir), 'serve');
    const secret = generateSecret();
    const webhookId = randomUUID();
    const sealed = sealSecret(secret, webhookId, secretKey);
    assert.ok(!sealed.startsWith('plain:'), sealed);
    assert.ok(!sealed.includes(secret));
    const later = await resolveSecretKey(embedded(dataDir), 'worker');
    assert.equal(openSecret(sealed, webhookId, later.secretKey), secret);
  });

  test('a SECRET_KEY in the environment wins and no key file is written', async () => {
    const dataDir = tempDir();
    const config = await resolveSecretKey(embedded(dataDir, { SECRET_KEY: 'from-the-environment' }), 'serve');
    assert.equal(config.secretKey, 'from-the-environment');
    assert.equal(existsSync(path.join(dataDir, SECRET_KEY_FILE)), false);
  });

  test('cluster mode: serve and worker exit non-zero naming SECRET_KEY when it is not set', async () => {
    const dataDir = tempDir();
    for (const command of ['serve', 'worker']) {
      const run = await cli([command], {
        DATABASE_URL: CLUSTER_URL,
        DATA_DIR: dataDir,
        PORT: '0',
        SECRET_KEY: '',
      });
      assert.equal(run.code, 2, `${command}: ${run.stderr}`);
      assert.match(
        run.stderr,
        /market-intel: invalid SECRET_KEY: not set\. With DATABASE_URL \(cluster mode\)/,
      );
    }
    assert.equal(existsSync(path.join(dataDir, SECRET_KEY_FILE)), false);
  });

  test('cluster mode: commands that never touch webhook secrets run without it', async () => {
    const dataDir = tempDir();
    const config = loadConfig({ DATABASE_URL: CLUSTER_URL, DATA_DIR: dataDir });
    for (const command of ['migrate', 'seed', 'users', 'keys', 'ingest', 'score']) {
      assert.equal((await resolveSecretKey(config, command)).secretKey, null);
    }
    await assert.rejects(resolveSecretKey(config, 'serve'), /SECRET_KEY/);
    assert.equal(existsSync(path.join(dataDir, SECRET_KEY_FILE)), false);
  });
});
