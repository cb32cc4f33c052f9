/**
 * Throughput and CPU per request of the list endpoints, split between the server's node process and the
 * PostgreSQL backends of its database, against a bare node:http process answering the same bytes per URL
 * in the same run. For comparing read paths: `--tree` runs another checkout's `serve` (e.g. a worktree of
 * the base commit), so two trees are measured by one script, alternately.
 *
 *   node --import tsx bench/read-path.ts -- --database-url URL [--tree DIR] [--runs dev,inst,mix]
 *                                           [--duration 10] [--connections 50] [--rounds 1]
 *
 * Runs: `dev` GET /api/v1/events?limit=50 with developer keys (no rationale), `inst` the same with
 * institutional keys (rationale), `mix` 20 filtered and paged URLs over events, signals, regimes and
 * candles (developer keys; institutional for regimes). CPU is read from /proc (user + system, 10 ms
 * ticks) before and after each run; PostgreSQL's is that of the backends connected to the database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { arg, fmtInt, numberArg, summary, table } from './common.ts';

const SELF = fileURLToPath(import.meta.url);
const TREE = arg('tree') ?? fileURLToPath(new URL('..', import.meta.url));
const DATABASE_URL = arg('database-url') ?? process.env.DATABASE_URL ?? '';
const DURATION = numberArg('duration', 10);
const CONNECTIONS = numberArg('connections', 50);
const ROUNDS = numberArg('rounds', 1);
const RUNS = (arg('runs') ?? 'dev,inst,mix').split(',');
const EMAIL = 'read-path-%@bench.invalid';

const EVENTS = '/api/v1/events?limit=50';
const MIX = [
  '/api/v1/events?limit=50&ticker=LMT',
  '/api/v1/events?limit=50&agency=Department%20of%20Defense',
  '/api/v1/events?limit=50&classification=aircraft',
  '/api/v1/events?limit=50&from=2022-01-01&to=2022-12-31',
  '/api/v1/events?limit=50&ticker=RTX&classification=missiles_munitions',
  '/api/v1/events?limit=50&offset=1000',
  '/api/v1/events?limit=200&ticker=BA',
  '/api/v1/contracts?limit=20&ticker=GD&from=2023-01-01',
  '/api/v1/signals?limit=50',
  '/api/v1/signals?min_score=75&limit=50',
  '/api/v1/signals?ticker=LMT&limit=50',
  '/api/v1/signals?since=2020-01-01T00:00:00Z&limit=100&offset=50',
  '/api/v1/signals?ticker=NOC&min_score=40',
  '/api/v1/regimes?limit=50',
  '/api/v1/regimes?dominant=risk_off&limit=100',
  '/api/v1/regimes?dominant=high_volatility',
  '/api/v1/market/candles/SPY',
  '/api/v1/market/candles/LMT?from=2022-01-01&limit=250',
  '/api/v1/benchmarks?ticker=ITA&from=2023-01-01',
  '/api/v1/market/candles/XLI?limit=100',
];

interface Shot {
  path: string;
  key?: string;
}

/** The bare server (child process): each path of the table file answered with its captured body and type. */
function bareChild(file: string): void {
  const answers = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { body: string; type: string }>;
  const server = http.createServer((req, res) => {
    const hit = answers[req.url ?? ''];
    const body = Buffer.from(hit?.body ?? '', 'base64');
    res.writeHead(hit ? 200 : 404, {
      'content-type': hit?.type ?? 'text/plain',
      'content-length': body.length,
    });
    res.end(body);
  });
  server.listen(numberArg('port', 0), '127.0.0.1');
}

/** CPU of a process so far, ms (user + system). */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  if (!DATABASE_URL) throw new Error('--database-url (or DATABASE_URL) is required');
  const database = new URL(DATABASE_URL).pathname.slice(1);
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  const children: ChildProcess[] = [];
  try {
    const keys = {
      developer: await provision('developer', 100),
      institutional: await provision('institutional', 100),
    };
    const port = 40_000 + Math.floor(Math.random() * 10_000);
    children.push(
      start([`${TREE}/bin/market-intel.js`, 'serve'], {
        DATABASE_URL,
        PORT: String(port),
        HOST: '127.0.0.1',
        SECRET_KEY: randomBytes(32).toString('base64url'),
        LOG_LEVEL: 'warn',
      }),
    );
    await ready(port, '/api/v1/health');
    const shots = (paths: string[], pool: string[]): Shot[] =>
      Array.from({ length: 400 }, (_, i) => {
        const url = paths[i % paths.length] ?? '/';
        return { path: url, key: (url.startsWith('/api/v1/regimes') ? keys.institutional : pool)[i % 100] };
      });
    const runs: Record<string, Shot[]> = {
      dev: shots([EVENTS], keys.developer),
      inst: shots([EVENTS], keys.institutional),
      mix: shots(MIX, keys.developer),
    };
    // What the app answers, per run and URL, for the bare server to answer the same.
    const answers: Record<string, { body: string; type: string }> = {};
    const bareRuns: Record<string, Shot[]> = {};
    for (const name of RUNS) {
      const list: Shot[] = [];
      for (const [i, shot] of (runs[name] ?? []).slice(0, 40).entries()) {
        const res = await fetch(`http://127.0.0.1:${port}${shot.path}`, {
          headers: { 'x-api-key': shot.key ?? '' },
        });
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200)
          throw new Error(`${shot.path}: ${res.status} ${body.toString().slice(0, 200)}`);
        answers[`/${name}/${i}`] = {
          body: body.toString('base64'),
          type: res.headers.get('content-type') ?? '',
        };
        list.push({ path: `/${name}/${i}` });
      }
      bareRuns[name] = list;
    }
    const file = path.join(tmpdir(), `read-path-${process.pid}.json`);
    await writeFile(file, JSON.stringify(answers));
    const barePort = port + 1;
    children.push(start(['--import', 'tsx', SELF, '--bare', file, '--port', String(barePort)], {}));
    await ready(barePort, '/');

    const backends = async () =>
      (
        await admin.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        )
      ).rows.map((r) => r.pid);
    const load = async (target: number, list: Shot[], seconds: number, nodePid: number) => {
      const pgPids = await backends();
      const node0 = cpuOf(nodePid);
      const pg0 = pgPids.map(cpuOf);
      const result = await autocannon({
        url: `http://127.0.0.1:${target}`,
        connections: CONNECTIONS,
        duration: seconds,
        requests: list.map((s) => ({
          method: 'GET',
          path: s.path,
          headers: s.key ? { 'x-api-key': s.key } : ({} as Record<string, string>),
        })),
      });
      const pgMs = pgPids.reduce((sum, pid, i) => sum + cpuOf(pid) - (pg0[i] ?? 0), 0);
      const n = result.requests.total;
      return {
        rps: n / seconds,
        nodeUs: ((cpuOf(nodePid) - node0) * 1000) / n,
        pgUs: (pgMs * 1000) / n,
        non2xx: result.non2xx,
        p99: result.latency.p99,
      };
    };
    const rows: string[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of RUNS) {
        const appPid = children[0]?.pid ?? 0;
        const barePid = children[1]?.pid ?? 0;
        await load(port, runs[name] ?? [], 2, appPid);
        const app = await load(port, runs[name] ?? [], DURATION, appPid);
        await load(barePort, bareRuns[name] ?? [], 2, barePid);
        const bare = await load(barePort, bareRuns[name] ?? [], DURATION, barePid);
        rows.push([
          name,
          fmtInt(app.rps),
          fmtInt(bare.rps),
          `${((100 * app.rps) / bare.rps).toFixed(1)} %`,
          fmtInt(app.nodeUs),
          fmtInt(app.pgUs),
          `${app.p99} ms`,
          fmtInt(app.non2xx),
        ]);
        process.stdout.write(`${rows.at(-1)?.join('  ')}\n`);
      }
    }
    await rm(file, { force: true });
    console.log(
      summary(`bench:read-path ${TREE}`, [
        `${DATABASE_URL}; ${CONNECTIONS} connections, ${DURATION} s a run`,
        table(
          ['run', 'app req/s', 'bare req/s', 'app / bare', 'node µs/req', 'pg µs/req', 'app p99', 'non-2xx'],
          rows,
        ),
      ]),
    );
  } finally {
    for (const child of children) child.kill();
    await admin.query(
      `DELETE FROM usage_minutely WHERE key_id IN
         (SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email LIKE $1)`,
      [EMAIL],
    );
    await admin.query('DELETE FROM users WHERE email LIKE $1', [EMAIL]);
    await admin.end();
  }
}

/** `count` live read keys of one user on `plan`, made through the tree's own store. */
async function provision(plan: string, count: number): Promise<string[]> {
  const { generateKey } = await import(`${TREE}/src/domain/keys.ts`);
  const { createUser, insertKey } = await import(`${TREE}/src/store/accounts.ts`);
  const { openDb } = await import(`${TREE}/src/store/db.ts`);
  const db = await openDb({ databaseUrl: DATABASE_URL, dataDir: '' });
  try {
    const email = EMAIL.replace('%', `${plan}-${Date.now()}-${process.pid}`);
    const user = await createUser(db, { email, plan, isAdmin: false, passwordHash: null });
    const raws: string[] = [];
    for (let k = 0; k < count; k++) {
      const key = generateKey('live');
      await insertKey(db, { userId: user.id, name: `bench ${k}`, mode: 'live', scopes: ['read'], key });
      raws.push(key.raw);
    }
    return raws;
  } finally {
    await db.close();
  }
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(port: number, path: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`http://127.0.0.1:${port}${path}`).then(
      (res) => res.status < 500,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing answered on port ${port}`);
}

const bare = arg('bare');
if (bare) bareChild(bare);
else await main();
