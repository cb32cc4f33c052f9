/**
 * bin/compile.js: the CLI runs src/ compiled to dist/, rebuilt whenever a source changes, and falls
 * back to tsx when it cannot build.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain JavaScript without declarations
import { compiledEntry } from '../bin/compile.js';
import { BIN } from './support/cli.ts';

const compile = compiledEntry as (root: string) => Promise<string | null>;
const root = mkdtempSync(path.join(tmpdir(), 'mi-compile-'));
after(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

describe('compiled sources', () => {
  test('builds dist/ from src/: types gone, relative .ts imports made .js, other files copied', async () => {
    write(
      'src/cli.ts',
      "import { twice } from './lib/math.ts';\nexport const main = (n: number): number => twice(n);\n",
    );
    write('src/lib/math.ts', 'export function twice(n: number): number {\n  return 2 * n;\n}\n');
    write('src/public/app.css', 'body { margin: 0 }\n');
    const entry = await compile(root);
    assert.ok(entry);
    assert.equal(fileURLToPath(entry), path.join(root, 'dist', 'cli.js'));
    assert.match(readFileSync(path.join(root, 'dist', 'cli.js'), 'utf8'), /from "\.\/lib\/math\.js"/);
    assert.equal(readFileSync(path.join(root, 'dist', 'public', 'app.css'), 'utf8'), 'body { margin: 0 }\n');
    const { main } = (await import(`${entry}?v=1`)) as { main: (n: number) => number };
    assert.equal(main(21), 42);
  });

  test('reuses a current build, rebuilds after a source changes', async () => {
    const built = statSync(path.join(root, 'dist', 'cli.js')).mtimeMs;
    await compile(root);
    assert.equal(
      statSync(path.join(root, 'dist', 'cli.js')).mtimeMs,
      built,
      'nothing changed, nothing built',
    );
    write('src/lib/math.ts', 'export function twice(n: number): number {\n  return n + n + 1;\n}\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(root, 'src/lib/math.ts'), later, later);
    const entry = await compile(root);
    assert.match(readFileSync(path.join(root, 'dist', 'lib', 'math.js'), 'utf8'), /n \+ n \+ 1/);
    assert.ok(entry);
    // Run in a plain node of its own: this process's loader has the first build's modules cached.
    const run = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', 'console.log((await import(process.argv[1])).main(21))', entry],
      { encoding: 'utf8' },
    );
    assert.equal(run.stdout.trim(), '43', run.stderr);
  });

  test('another process building (its lock held) means no compiled entry this time', async () => {
    write('src/lib/more.ts', 'export const more = 1;\n');
    writeFileSync(path.join(root, 'dist.lock'), '');
    try {
      assert.equal(await compile(root), null);
    } finally {
      rmSync(path.join(root, 'dist.lock'));
    }
    assert.ok(await compile(root));
  });

  test('a source that does not compile leaves the caller to tsx, which reports it', async () => {
    write('src/broken.ts', 'export const = ;\n');
    assert.equal(await compile(root), null);
    rmSync(path.join(root, 'src/broken.ts'));
  });

  test('the CLI runs compiled, and through tsx when asked', () => {
    for (const env of [{}, { MARKET_INTEL_TSX: '1' }]) {
      const run = spawnSync(process.execPath, [BIN, 'help'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, /^usage: market-intel <command>/);
    }
  });
});
