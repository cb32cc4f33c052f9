/**
 * Runs the whole suite with node's test runner: the database under test is TEST_DATABASE_URL's
 * PostgreSQL, or else an embedded server started here on a temporary directory (the project's own
 * embedded mode) and stopped at the end: TEST_DATABASE_URL is then its superuser's, and TEST_APP_ROLE
 * names the restricted role test databases are opened as (test/support/db.ts). scripts/test-setup.ts seeds a template database once, then
 * every test/**\/*.test.ts runs. Extra arguments are test files to run instead of all of them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbedded } from '../src/store/embedded-postgres.ts';
import { APP_ROLE } from '../src/store/embedded-roles.ts';

function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = process.argv.slice(2).length ? process.argv.slice(2) : findTests('test').sort();
const env = { ...process.env };
let stop = async (): Promise<void> => undefined;
if (!env.TEST_DATABASE_URL) {
  const dir = mkdtempSync(path.join(tmpdir(), 'market-intel-test-'));
  // Tests open many pools side by side (two files at a time, several databases each).
  const server = await startEmbedded(dir, { noSync: true, maxConnections: 300 });
  // The harness creates databases as the superuser; the app under test connects as the restricted role.
  env.TEST_DATABASE_URL = server.adminUrl;
  env.TEST_APP_ROLE = APP_ROLE;
  process.stderr.write(`run-tests: embedded PostgreSQL (pid ${server.pid}) in ${dir}\n`);
  stop = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
const node = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', ...args], { stdio: 'inherit', env });

let status = 1;
try {
  const setup = node(['scripts/test-setup.ts']);
  status = setup.status ?? 1;
  if (status === 0)
    status = node(['--test', '--test-concurrency=2', '--test-reporter=spec', ...files]).status ?? 1;
} finally {
  await stop();
}
process.exit(status);
