/**
 * Start-up time of the server in embedded mode, started as `npm start` starts it (package.json's
 * `start` script; see server-process.ts): from spawn to the first 200 of /api/v1/health (polled every
 * 50 ms), first on an empty temporary DATA_DIR (whatever a first start does: create the database,
 * migrate, seed the demo data), then --later times again on that DATA_DIR. Each server is stopped with
 * SIGTERM; its exit status and stop time are shown. Ends with the start-up bars (first start ≤ 5 s,
 * every later start ≤ 2 s), PASS/FAIL. The temp dirs are removed and no server outlives the bench, on
 * failure and Ctrl-C too. Exit status 1 when a server failed to start or exited non-zero.
 *
 *   npm run bench:startup -- [--later 2] [--repeat 1] [--timeout 600] [--workers N]
 *
 * --repeat runs the whole sequence that many times, each on a new DATA_DIR; --workers N is passed to
 * `serve` only when given.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { removeTemporaryDir } from '../src/store/db.ts';
import { arg, numberArg, summary, table } from './common.ts';
import { onCleanup, runCleanups, startServer, wasInterrupted } from './server-process.ts';

const TIMEOUT_S = numberArg('timeout', 600);
const REPEAT = Math.max(1, Math.floor(numberArg('repeat', 1)));
const LATER = Math.max(1, Math.floor(numberArg('later', 2)));
const WORKERS = arg('workers');
const FIRST_BAR_S = 5;
const LATER_BAR_S = 2;

interface StartResult {
  label: string;
  first: boolean;
  readyMs: number;
  stopMs: number;
  exit: string;
}

async function startOnce(label: string, first: boolean, dataDir: string): Promise<StartResult> {
  const server = await startServer({
    label,
    env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    args: WORKERS ? ['--workers', WORKERS] : [],
    logFile: path.join(path.dirname(dataDir), 'serve.log'),
    dataDir,
    timeoutMs: TIMEOUT_S * 1000,
  });
  const stopped = await server.stop();
  const exit = stopped.code === null ? String(stopped.signal) : String(stopped.code);
  if (exit !== '0') console.log(`${label}: exit ${exit}; log tail:\n${await server.logTail()}`);
  return { label, first, readyMs: server.readyMs, stopMs: stopped.stopMs, exit };
}

async function main(): Promise<void> {
  const results: StartResult[] = [];
  try {
    for (let i = 0; i < REPEAT; i++) {
      const scratch = await mkdtemp(path.join(tmpdir(), 'market-intel-startup-'));
      const dataDir = path.join(scratch, 'data');
      // DATA_DIR with its cluster, which lives outside it when run as root.
      onCleanup(async () => {
        removeTemporaryDir(dataDir);
        await rm(scratch, { recursive: true, force: true });
      });
      const suffix = REPEAT > 1 ? ` #${i + 1}` : '';
      console.log(`first start on an empty DATA_DIR ${dataDir}${suffix}…`);
      results.push(await startOnce(`first start (empty DATA_DIR)${suffix}`, true, dataDir));
      for (let n = 1; n <= LATER; n++) {
        console.log(`later start ${n} on the same DATA_DIR${suffix}…`);
        results.push(await startOnce(`later start ${n}${suffix}`, false, dataDir));
      }
      await runCleanups();
    }
  } finally {
    await runCleanups();
  }
  if (wasInterrupted()) return;
  const worst = (first: boolean) =>
    Math.max(...results.filter((r) => r.first === first).map((r) => r.readyMs));
  const verdict = (ms: number, bar: number) => (ms <= bar * 1000 ? 'PASS' : 'FAIL');
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    summary('bench:startup', [
      table(
        ['run', 'spawn → first 200 /health', 'SIGTERM → exit', 'exit'],
        results.map((r) => [r.label, seconds(r.readyMs), `${r.stopMs.toFixed(0)} ms`, r.exit]),
      ),
      '',
      table(
        ['bar', 'measured (slowest)', 'result'],
        [
          [`first start ≤ ${FIRST_BAR_S} s`, seconds(worst(true)), verdict(worst(true), FIRST_BAR_S)],
          [`later starts ≤ ${LATER_BAR_S} s`, seconds(worst(false)), verdict(worst(false), LATER_BAR_S)],
        ],
      ),
    ]),
  );
  if (results.some((r) => r.exit !== '0')) process.exitCode = 1;
}

await main().catch((error: unknown) => {
  if (wasInterrupted()) return;
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
