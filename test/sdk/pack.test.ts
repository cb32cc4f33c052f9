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

/** TypeScript 5 (the devDependency `typescript5`, an alias of typescript@5): what most consumers still run. */
const TSC5 = path.join(ROOT, 'node_modules/typescript5/bin/tsc');

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

/**
 * A consumer of the main APIs, old and new: each `@ts-expect-error` pins a mistake the types must catch
 * (an unused one fails the compile too).
 */
const CONSUMER = `
import {
  MarketIntel, NotFoundError, RateLimitError, UnprocessableEntityError, constructEvent, verifyWebhook,
  type Conditional, type ErrorCode, type ExportCsvRow, type GetEventsResponse, type ResponseMeta,
  type ServiceErrorCode,
} from '@market-intel/sdk';

const client = new MarketIntel({ apiKey: 'iv_test_x', maxRetries: 1, maxRetryDelayMs: 2000, retryBudgetMs: 5000 });
const page: GetEventsResponse = await client.events.list({ ticker: 'LMT', limit: 5 });
const score: number | undefined = page.data[0]?.signal?.signal_score;
for await (const bar of client.benchmarks.iterate({ ticker: 'SPY' })) console.log(bar.close);

const { data, response }: { data: GetEventsResponse; response: ResponseMeta } = await client.events
  .list({ limit: 1 })
  .withResponse();
const requestId: string | null = response.requestId;
const remaining: number | undefined = response.rateLimit?.remaining;

const etag = response.etag ?? '*';
const conditional: Conditional<GetEventsResponse> = await client.events.list({ limit: 1 }, { ifNoneMatch: etag });
if (conditional.notModified) console.log('unchanged', conditional.etag);
else console.log(conditional.data.data.length, conditional.etag);
// @ts-expect-error a Conditional has no data until it is known to be modified
console.log(conditional.data);

for await (const row of client.events.exportRows({ format: 'ndjson', ticker: 'LMT' })) console.log(row.contract.id);
for await (const row of client.signals.exportRows({ min_score: 80 })) {
  const csv: ExportCsvRow = row;
  console.log(csv.contract_id, csv.description);
  // @ts-expect-error CSV rows have the export's columns only
  console.log(row.contract);
}
const exported = await client.events.exportStream({ format: 'csv' });
const exportId: string | null = exported.response.requestId;
for await (const chunk of exported) console.log(chunk.byteLength);
const text: string = await client.events.export({ format: 'csv', limit: 10 });
// @ts-expect-error only csv and ndjson exist
client.events.exportRows({ format: 'xml' });

const code: ServiceErrorCode = 'idempotency_key_reused';
const anyCode: ErrorCode = 'connection_error';
const error: unknown = null;
if (error instanceof RateLimitError) console.log(error.retryAfter, error.headers?.get('retry-after'));
if (error instanceof NotFoundError) console.log(error.param ?? 'no param', error.requestId);
const byId = await client.request('getEvents', { limit: 1 }, { ifNoneMatch: etag });
const byIdCount: number | null = byId.notModified ? null : byId.data.data.length;
const kinds = [NotFoundError, UnprocessableEntityError].map((k) => k.name);

const checked = verifyWebhook('{}', 't=1,v1=00', 'whsec_x', { toleranceSec: 600 });
const event = () => constructEvent('{}', {}, 'whsec_x', { toleranceSec: 600, now: new Date() });
// @ts-expect-error \`tickr\` is not a parameter of events
await client.events.list({ tickr: 'LMT' });
// @ts-expect-error a contract id is required
await client.contracts.get();
export { score, byIdCount, data, requestId, remaining, exportId, text, code, anyCode, kinds, checked, event };
`;

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

  test('builds with tsc and packs only dist/, README.md, LICENSE and package.json', () => {
    const pkg = path.join(dir, 'pkg');
    mkdirSync(pkg);
    for (const file of ['package.json', 'README.md', 'LICENSE'])
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
      'LICENSE',
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/generated.js',
      'package.json',
    ]) {
      assert.ok(files.includes(expected), `${expected} is packed`);
    }
    assert.deepEqual(
      files.filter((f) => !f.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(f)),
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

  test('a strict nodenext TypeScript 5 project compiles against the tarball, new APIs included', () => {
    assert.ok(
      existsSync(TSC5),
      `TypeScript 5 not found at ${TSC5}: npm install -D typescript5@npm:typescript@5`,
    );
    assert.match(run(process.execPath, [TSC5, '--version'], ROOT), /^Version 5\./);
    const project = path.join(dir, 'ts5');
    mkdirSync(project);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'ts5', private: true, type: 'module' }),
    );
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], project);
    writeFileSync(path.join(project, 'consumer.ts'), CONSUMER);
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    for (const [name, command, args] of [
      ['TypeScript 5', process.execPath, [TSC5]],
      ['TypeScript 7', TSC, []],
    ] as const) {
      try {
        run(command, [...args, '-p', project], project);
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        assert.fail(`${name}: the consumer does not compile as expected:\n${stdout ?? ''}${stderr ?? ''}`);
      }
    }
  });
});
