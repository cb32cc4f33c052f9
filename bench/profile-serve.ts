/**
 * Where a server's CPU goes under load: starts `serve` as `npm start` does (embedded, a fresh DATA_DIR)
 * with node's CPU profiler on in every node process, loads one URL with rotating developer keys
 * (closed loop), stops the server, and prints each process's self time by function and by file.
 *
 *   npm run bench:profile -- [--workers 1] [--duration 10] [--connections 50]
 *       [--path /api/v1/events?limit=50] [--top 25]
 *
 * With --bare, a bare node:http process (bare-server.ts) answering the same URL with the same bytes is
 * then profiled under the same load, for comparison: the ratio of the two req/s is bench:events' bar.
 *
 * The .cpuprofile files stay in the printed directory (open them in Chrome's DevTools).
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { removeTemporaryDir } from '../src/store/db.ts';
import { startBare } from './bare-server.ts';
import { cliAdminKey, provisionKeys } from './bench-keys.ts';
import { arg, flag, numberArg } from './common.ts';
import { closedLoop } from './load.ts';
import { onCleanup, runCleanups, startServer } from './server-process.ts';
import { fetchRaw } from './url-mix.ts';

const WORKERS = arg('workers') ?? '1';
const DURATION = numberArg('duration', 10);
const CONNECTIONS = numberArg('connections', 50);
const PATH = arg('path') ?? '/api/v1/events?limit=50';
const TOP = numberArg('top', 25);
const BARE = flag('bare');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const short = (url: string) =>
  url.includes('node_modules/')
    ? (url.split('node_modules/').pop() ?? url)
    : url.replace(/^file:\/\/.*?\/(src|bin)\//, '$1/');

function summarize(profile: Profile): {
  total: number;
  byFunction: [string, number][];
  byFile: [string, number][];
} {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)?.callFrame;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    total += ms;
    if (!frame) return;
    const file = frame.url ? short(frame.url) : `(${frame.functionName || 'native'})`;
    const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const module = file.includes('/') ? file.split('/').slice(0, 2).join('/') : file;
    byFile.set(module, (byFile.get(module) ?? 0) + ms);
  });
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  return { total, byFunction: top(byFunction), byFile: top(byFile) };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mi-profile-'));
  const profiles = await mkdtemp(path.join(tmpdir(), 'mi-profiles-'));
  // With its cluster, which lives outside DATA_DIR when run as root; after the server stopped.
  onCleanup(async () => removeTemporaryDir(dataDir));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const adminKey = await cliAdminKey(env);
  const server = await startServer({
    label: 'profile',
    env,
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`],
    args: ['--workers', WORKERS],
    logFile: path.join(dataDir, 'serve.log'),
    dataDir,
  });
  const keys = await provisionKeys(server.port, adminKey, 'developer', 1000, 'profile');
  const shots = Array.from({ length: 2000 }, (_, i) => ({ path: PATH, key: keys[i % keys.length] }));
  await closedLoop('warm-up', server.port, shots, { connections: CONNECTIONS, duration: 3 });
  const run = await closedLoop('profiled', server.port, shots, {
    connections: CONNECTIONS,
    duration: DURATION,
  });
  process.stdout.write(`${PATH}: ${Math.round(run.rps)} req/s over ${DURATION} s, ${run.non2xx} non-2xx\n`);
  const pool = new Pool(`http://127.0.0.1:${server.port}`);
  const answer = await fetchRaw(pool, PATH, keys[0]);
  await pool.close();
  await server.stop();
  await report(profiles, 'app');
  if (!BARE) return;
  const bareProfiles = await mkdtemp(path.join(tmpdir(), 'mi-profiles-bare-'));
  const bare = await startBare(new Map([[PATH, answer]]), path.join(bareProfiles, 'answers.json'), [
    '--cpu-prof',
    `--cpu-prof-dir=${bareProfiles}`,
  ]);
  const bareShots = [{ path: PATH }];
  await closedLoop('warm-up', bare.port, bareShots, { connections: CONNECTIONS, duration: 3 });
  const bareRun = await closedLoop('bare', bare.port, bareShots, {
    connections: CONNECTIONS,
    duration: DURATION,
  });
  await bare.stop();
  process.stdout.write(
    `\nbare: ${Math.round(bareRun.rps)} req/s; app / bare = ${((100 * run.rps) / bareRun.rps).toFixed(1)} %\n`,
  );
  await report(bareProfiles, 'bare');
}

async function report(profiles: string, label: string): Promise<void> {
  for (const file of (await readdir(profiles)).filter((f) => f.endsWith('.cpuprofile')).sort()) {
    const { total, byFunction, byFile } = summarize(
      JSON.parse(await readFile(path.join(profiles, file), 'utf8')),
    );
    if (total < 1000) continue;
    process.stdout.write(`\n== ${label} ${file}: ${(total / 1000).toFixed(1)} s sampled\n-- by file\n`);
    for (const [name, ms] of byFile) process.stdout.write(`${ms.toFixed(0).padStart(7)} ms  ${name}\n`);
    process.stdout.write('-- by function (self)\n');
    for (const [name, ms] of byFunction) process.stdout.write(`${ms.toFixed(0).padStart(7)} ms  ${name}\n`);
  }
  process.stdout.write(`\n${label} profiles: ${profiles}\n`);
}

try {
  await main();
} finally {
  await runCleanups();
}
