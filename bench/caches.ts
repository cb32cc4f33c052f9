/**
 * GET /api/v1/events?limit=50 with the key and response caches on and off (AppDeps `caches`), each run
 * followed by a bare node:http server returning the same bytes: the machine is shared and noisy, so
 * what counts is each app's req/s as a share of the bare server's in the same run. Auth, limits and
 * usage stay on; the load rotates over developer live keys so that no key meets its limit.
 * PostgreSQL holds the demo data (seeded here when empty); the servers run in child processes.
 *
 *   node --import tsx bench/caches.ts [--duration 10] [--connections 20] [--rounds 1] [--keys 300]
 *   DATABASE_URL (default postgres://postgres@127.0.0.1:5432/mi_cache)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { arg, fmtInt, numberArg, table } from './common.ts';

const SELF = fileURLToPath(import.meta.url);
const URL_PATH = '/api/v1/events?limit=50';
const DURATION = numberArg('duration', 10);
const CONNECTIONS = numberArg('connections', 20);
const ROUNDS = numberArg('rounds', 1);
const KEY_COUNT = numberArg('keys', 300);
const DATABASE_URL = process.env.DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/mi_cache';
const BENCH_EMAIL = 'bench-caches-%@bench.invalid';

type Mode = 'on' | 'off' | 'bare';

async function child(mode: Mode, file: string): Promise<void> {
  let port: number;
  if (mode === 'bare') {
    const body = await readFile(file);
    const server = http.createServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  } else {
    const { buildApp } = await import('../src/app.ts');
    const { loadConfig } = await import('../src/config.ts');
    const { openDb } = await import('../src/store/db.ts');
    const db = await openDb({ databaseUrl: DATABASE_URL, dataDir: '' });
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL });
    const app = await buildApp({ config, db, logger: false, caches: mode === 'on' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  }
  process.send?.({ port });
}

function start(mode: Mode, file: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = fork(SELF, ['--child', mode, '--file', file], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    proc.once('message', (m: { port: number }) => resolve({ proc, port: m.port }));
    proc.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

async function load(port: number, keys: string[], duration: number) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration,
    requests: keys.map((key) => ({ method: 'GET', path: URL_PATH, headers: { 'x-api-key': key } })),
  });
  return { rps: result.requests.total / result.duration, non2xx: result.non2xx, p99: result.latency.p99 };
}

/** Demo data when the database is empty, bench users with developer live keys; returns the raw keys. */
async function prepare(): Promise<{ keys: string[]; cleanup: () => Promise<void> }> {
  const { openDb } = await import('../src/store/db.ts');
  const { migrate } = await import('../src/store/migrate.ts');
  const { seed } = await import('../src/pipeline/seed.ts');
  const { isEmpty } = await import('../src/store/market.ts');
  const { generateKey } = await import('../src/domain/keys.ts');
  const { createUser, insertKey } = await import('../src/store/accounts.ts');
  const db = await openDb({ databaseUrl: DATABASE_URL, dataDir: '' });
  await migrate(db);
  if (await isEmpty(db)) await seed(db, { signalThreshold: 75 });
  const cleanup = async () => {
    await db.query(
      `DELETE FROM usage_minutely WHERE key_id IN
         (SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email LIKE $1)`,
      [BENCH_EMAIL],
    );
    await db.query('DELETE FROM users WHERE email LIKE $1', [BENCH_EMAIL]);
  };
  await cleanup();
  const keys: string[] = [];
  for (let u = 0; keys.length < KEY_COUNT; u++) {
    const user = await createUser(db, {
      email: BENCH_EMAIL.replace('%', `${process.pid}-${u}`),
      plan: 'developer',
      isAdmin: false,
      passwordHash: null,
    });
    for (let k = 0; k < 10 && keys.length < KEY_COUNT; k++) {
      const key = generateKey('live');
      await insertKey(db, { userId: user.id, name: `bench ${k}`, mode: 'live', scopes: ['read'], key });
      keys.push(key.raw);
    }
  }
  return {
    keys,
    cleanup: async () => {
      await cleanup();
      await db.close();
    },
  };
}

async function main(): Promise<void> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'bench-caches-'));
  const bodyFile = path.join(scratch, 'body.json');
  const { keys, cleanup } = await prepare();
  const rows: string[][] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of (round % 2 ? ['off', 'on'] : ['on', 'off']) as Mode[]) {
        const app = await start(mode, bodyFile);
        const res = await fetch(`http://127.0.0.1:${app.port}${URL_PATH}`, {
          headers: { 'x-api-key': keys[0] ?? '' },
        });
        await writeFile(bodyFile, Buffer.from(await res.arrayBuffer()));
        await load(app.port, keys, 2);
        const measured = await load(app.port, keys, DURATION);
        await stop(app.proc);
        const bare = await start('bare', bodyFile);
        await load(bare.port, keys, 2);
        const baseline = await load(bare.port, keys, DURATION);
        await stop(bare.proc);
        rows.push([
          String(round + 1),
          `caches ${mode}`,
          fmtInt(measured.rps),
          `${measured.p99} ms`,
          String(measured.non2xx),
          fmtInt(baseline.rps),
          `${((100 * measured.rps) / baseline.rps).toFixed(1)} %`,
        ]);
        process.stdout.write(`${rows.at(-1)?.join('  ')}\n`);
      }
    }
  } finally {
    await cleanup();
    await rm(scratch, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nGET ${URL_PATH}, ${DURATION} s runs, ${CONNECTIONS} connections, ${keys.length} developer keys\n`,
  );
  process.stdout.write(
    `${table(['round', 'app', 'req/s', 'p99', 'non-2xx', 'bare req/s', 'app/bare'], rows)}\n`,
  );
}

if (arg('child')) await child(arg('child') as Mode, arg('file') ?? '');
else await main();
