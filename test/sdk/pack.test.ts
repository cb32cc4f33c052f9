/**
 * The SDK as a user gets it: compiled with the repository's tsc, packed with `npm pack`, installed
 * offline into a scratch project, then the README's example run with plain node against the live app,
 * and a TypeScript file compiled against the installed declarations. Needs no network.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { makeKey } from '../support/app.ts';
import { type LiveServer, startLiveServer } from './server.ts';

const ROOT = path.resolve('.');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const SDK = path.join(ROOT, 'sdk');

let server: LiveServer;
let apiKey: string;
let dir: string;
let app: string;

const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
    env: {
      ...process.env,
      npm_config_cache: path.join(dir, 'npm-cache'),
      npm_config_update_notifier: 'false',
      ...env,
    },
  });

/** A child that talks to the live app, which runs in this process: the event loop must stay free. */
const runAsync = async (command: string, args: string[], cwd: string, env: Record<string, string>) =>
  (await promisify(execFile)(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } }))
    .stdout;

/** The first ```js block of sdk/README.md: the example the READMEs show. */
function readmeExample(): string {
  const match = /```js\n([\s\S]*?)```/.exec(readFileSync(path.join(SDK, 'README.md'), 'utf8'));
  assert.ok(match?.[1], 'sdk/README.md has a js example');
  return match[1];
}

before(async () => {
  server = await startLiveServer();
  apiKey = (await makeKey(server.db)).raw;
  dir = mkdtempSync(path.join(tmpdir(), 'sdk-pack-'));
  app = path.join(dir, 'app');
});
after(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed SDK', () => {
  test("the repository README shows the SDK README's example", () => {
    assert.ok(
      readFileSync(path.join(ROOT, 'README.md'), 'utf8').includes(`\`\`\`js\n${readmeExample()}\`\`\``),
    );
  });

  let tarball: string;

  test('builds with tsc and packs only dist/, README.md and package.json', () => {
    const pkg = path.join(dir, 'pkg');
    mkdirSync(pkg);
    for (const file of ['package.json', 'README.md'])
      copyFileSync(path.join(SDK, file), path.join(pkg, file));
    run(TSC, ['-p', path.join(SDK, 'tsconfig.json'), '--outDir', path.join(pkg, 'dist')], ROOT);
    const [packed] = JSON.parse(
      run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], pkg),
    ) as {
      filename: string;
      files: { path: string }[];
    }[];
    assert.ok(packed);
    tarball = path.join(dir, packed.filename);
    const files = packed.files.map((f) => f.path).sort();
    for (const expected of [
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/generated.js',
      'package.json',
    ]) {
      assert.ok(files.includes(expected), `${expected} is packed`);
    }
    assert.deepEqual(
      files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json'),
      [],
    );
    assert.ok(
      files.every((f) => !f.endsWith('.ts') || f.endsWith('.d.ts')),
      'no TypeScript sources',
    );
  });

  test('installs offline into a scratch project and runs the README example with plain node', async () => {
    mkdirSync(app);
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], app);
    assert.ok(existsSync(path.join(app, 'node_modules/@market-intel/sdk/dist/index.js')));
    writeFileSync(path.join(app, 'example.mjs'), readmeExample());
    const output = await runAsync(process.execPath, ['example.mjs'], app, {
      KEY: apiKey,
      BASE_URL: server.baseUrl,
    });
    const lines = output.trim().split('\n');
    assert.equal(
      lines.filter((l) => /^\d{4}-\d\d-\d\d CONT_AWD_|^\d{4}-\d\d-\d\d DOD_ANN_/.test(l)).length,
      3,
      output,
    );
    assert.match(output, /^\d+ signals scored 90 or more$/m);
    assert.match(output, /^true 404 not_found [\w-]+$/m);
    assert.match(output, /limit: 3000/);
  });

  test('its declarations type a TypeScript consumer: good calls compile, a misspelt parameter does not', () => {
    writeFileSync(
      path.join(app, 'consumer.ts'),
      [
        "import { MarketIntel, NotFoundError, verifyWebhook, type GetEventsResponse } from '@market-intel/sdk';",
        "const client = new MarketIntel({ apiKey: 'iv_test_x', maxRetries: 1 });",
        "const page: GetEventsResponse = await client.events.list({ ticker: 'LMT', limit: 5 });",
        'const score: number | undefined = page.data[0]?.signal?.signal_score;',
        "for await (const bar of client.benchmarks.iterate({ ticker: 'SPY' })) console.log(bar.close);",
        "const checked = verifyWebhook('{}', 't=1,v1=00', 'whsec_x');",
        'const kind: boolean = new NotFoundError({ status: 404, code: "not_found", message: "", requestId: null }) instanceof Error;',
        '// @ts-expect-error `tickr` is not a parameter of events',
        "await client.events.list({ tickr: 'LMT' });",
        '// @ts-expect-error a contract id is required',
        'await client.contracts.get();',
        'export { score, checked, kind };',
      ].join('\n'),
    );
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          strict: true,
          noEmit: true,
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    try {
      run(TSC, ['-p', app], app);
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      assert.fail(`the consumer does not compile as expected:\n${stdout ?? ''}${stderr ?? ''}`);
    }
  });
});
