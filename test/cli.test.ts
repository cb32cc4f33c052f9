import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, cli } from './support/cli.ts';

describe('CLI in embedded mode', () => {
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mi-cli-'));
    env = { DATA_DIR: dir };
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  test('users create, keys create --json (raw key once), keys revoke', async () => {
    const user = await cli(['users', 'create', '--email', 'ops@example.test', '--plan', 'developer'], env);
    assert.equal(user.code, 0, user.stderr);
    assert.equal(JSON.parse(user.stdout).user.plan, 'developer');

    const key = await cli(
      ['keys', 'create', '--email', 'ops@example.test', '--name', 'ci', '--scopes', 'read,write', '--json'],
      env,
    );
    assert.equal(key.code, 0, key.stderr);
    const created = JSON.parse(key.stdout) as {
      id: string;
      secret: string;
      key: string;
      mode: string;
      scopes: string[];
    };
    // The raw key is `secret`, as in the admin API's answer; `key` is its deprecated alias.
    assert.match(created.secret, /^iv_live_[0-9A-Za-z]{43}$/);
    assert.equal(created.key, created.secret);
    assert.deepEqual([created.mode, created.scopes], ['live', ['read', 'write']]);

    const revoked = await cli(['keys', 'revoke', '--id', created.id], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stderr, /revoked/);
  });

  test('bad arguments exit 2 with a message, not a stack trace', async () => {
    const noEmail = await cli(['keys', 'create', '--name', 'x', '--scopes', 'read'], env);
    assert.equal(noEmail.code, 2);
    assert.match(noEmail.stderr, /--email, --name and --scopes are required/);
    const badScope = await cli(
      ['keys', 'create', '--email', 'ops@example.test', '--name', 'x', '--scopes', 'root'],
      env,
    );
    assert.match(badScope.stderr, /unknown scope root/);
    const badPort = await cli(['serve', '--port', 'x'], { ...env, PORT: 'eighty' });
    assert.equal(badPort.code, 2);
    assert.match(badPort.stderr, /invalid PORT/);
    const noWorkers = await cli(['serve', '--workers', '0'], env);
    assert.equal(noWorkers.code, 2);
    assert.match(noWorkers.stderr, /invalid --workers: expected 1\.\.64/);
  });

  test('while the server runs, one-off commands use its PostgreSQL and a second server is refused', async () => {
    let server: ChildProcess | undefined;
    try {
      server = spawn(process.execPath, [BIN, 'serve', '--no-seed', '--port', '0'], {
        env: { ...process.env, ...env, DATABASE_URL: '', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('server did not start')), 60_000);
        server?.stdout?.on('data', (d: Buffer) => {
          if (d.toString().includes('Server listening')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const late = await cli(['users', 'create', '--email', 'late@example.test', '--plan', 'developer'], env);
      assert.equal(late.code, 0, late.stderr);
      const key = await cli(
        ['keys', 'create', '--email', 'late@example.test', '--name', 'k', '--scopes', 'read', '--json'],
        env,
      );
      assert.equal(key.code, 0, key.stderr);

      const started = Date.now();
      const second = await cli(['serve', '--no-seed', '--port', '0'], env);
      assert.equal(second.code, 2);
      assert.match(
        second.stderr,
        /the embedded PostgreSQL in .* is run by another market-intel server \(pid \d+\)/,
      );
      assert.ok(Date.now() - started < 20_000, 'answers without waiting for the lock');
    } finally {
      server?.kill('SIGTERM');
      await new Promise((resolve) => server?.once('close', resolve));
    }
  });
});
