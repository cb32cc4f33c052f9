#!/usr/bin/env node
// Runs the whole suite with node's test runner: seeds a shared fixture once, then every test/**/*.test.ts.
// Extra arguments are test files to run instead of all of them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = process.argv.slice(2).length ? process.argv.slice(2) : findTests('test').sort();
const node = (args) => spawnSync(process.execPath, ['--import', 'tsx', ...args], { stdio: 'inherit' });

const setup = node(['scripts/test-setup.ts']);
if (setup.status !== 0) process.exit(setup.status ?? 1);

const run = node(['--test', '--test-concurrency=2', '--test-reporter=spec', ...files]);
process.exit(run.status ?? 1);
