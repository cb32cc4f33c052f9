/**
 * Start-up time of `node bin/market-intel.js serve` in embedded mode: from spawn to the first 200 of
 * /api/v1/health (polled every 50 ms), on an empty temporary DATA_DIR (migrate + seed the demo data),
 * then again on the now-seeded DATA_DIR. Each server is stopped with SIGTERM.
 *
 *   npm run bench:startup -- [--timeout 600] [--repeat 1]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberArg, summary, table } from './common.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIMEOUT_S = numberArg('timeout', 600);
const REPEAT = Math.max(1, Math.floor(numberArg('repeat', 1)));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface StartResult {
  label: string;
  readyMs: number;
  stopMs: number;
  exitCode: number | null;
  signal: string | null;
  stderrTail: string;
}

async function startOnce(label: string, dataDir: string): Promise<StartResult> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, ['bin/market-intel.js', 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let earlyExit: { code: number | null; signal: string | null } | null = null;
  void exited.then((e) => {
    earlyExit = e;
  });

  let readyMs = Number.NaN;
  const deadline = started + TIMEOUT_S * 1000;
  while (performance.now() < deadline && !earlyExit) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`, {
      signal: AbortSignal.timeout(1000),
    }).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status === 200;
      },
      () => false,
    );
    if (ok) {
      readyMs = performance.now() - started;
      break;
    }
    await sleep(50);
  }
  const stopStarted = performance.now();
  if (!earlyExit) child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const { code, signal } = await exited;
  clearTimeout(killer);
  const stopMs = performance.now() - stopStarted;
  if (Number.isNaN(readyMs)) {
    throw new Error(
      `${label}: server never answered 200 on /api/v1/health (exit ${code ?? signal})\n${stderr}`,
    );
  }
  return {
    label,
    readyMs,
    stopMs,
    exitCode: code,
    signal,
    stderrTail: stderr.trim().split('\n').slice(-3).join(' | '),
  };
}

async function main(): Promise<void> {
  const results: StartResult[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'market-intel-startup-'));
    try {
      const suffix = REPEAT > 1 ? ` #${i + 1}` : '';
      console.log(`first start on empty ${dataDir}${suffix}…`);
      results.push(await startOnce(`first start (empty DATA_DIR: migrate + seed)${suffix}`, dataDir));
      console.log(`second start on the seeded ${dataDir}${suffix}…`);
      results.push(await startOnce(`second start (seeded DATA_DIR)${suffix}`, dataDir));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  console.log(
    summary('bench:startup', [
      table(
        ['run', 'spawn → first 200 /health', 'SIGTERM → exit', 'exit'],
        results.map((r) => [
          r.label,
          `${(r.readyMs / 1000).toFixed(2)} s`,
          `${r.stopMs.toFixed(0)} ms`,
          r.exitCode === null ? String(r.signal) : String(r.exitCode),
        ]),
      ),
    ]),
  );
  if (results.some((r) => r.exitCode !== 0)) {
    for (const r of results.filter((x) => x.exitCode !== 0))
      console.log(`${r.label}: stderr tail: ${r.stderrTail}`);
    process.exitCode = 1;
  }
}

await main();
