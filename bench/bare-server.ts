/**
 * The baseline of bench:events: a bare node:http server answering each URL with the status line,
 * headers and body the app gave it (read from a JSON file), and nothing else — no routing beyond a Map
 * lookup, no auth, no database. Run in a process of its own by startBare().
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './server-process.ts';
import type { Captured } from './url-mix.ts';

const SELF = fileURLToPath(import.meta.url);

interface Stored {
  headers: Record<string, string | string[]>;
  body: string;
}

async function serveBare(file: string): Promise<void> {
  const stored = JSON.parse(await readFile(file, 'utf8')) as Record<string, Stored>;
  const answers = new Map(
    Object.entries(stored).map(([path, s]) => [
      path,
      { headers: s.headers, body: Buffer.from(s.body, 'base64') },
    ]),
  );
  const server = http.createServer((req, res) => {
    const answer = answers.get(req.url ?? '');
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, answer.headers);
    res.end(answer.body);
  });
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send?.({ port: (server.address() as { port: number }).port });
  process.on('disconnect', () => process.exit(0));
}

export interface BareServer {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts a bare server answering each path of `answers` with its captured headers and body; node runs
 * under `wrapper` when one is given (`valgrind --tool=callgrind …`).
 */
export async function startBare(
  answers: Map<string, Captured>,
  file: string,
  nodeArgs: string[] = [],
  wrapper: string[] = [],
): Promise<BareServer> {
  const stored: Record<string, Stored> = {};
  for (const [path, a] of answers) stored[path] = { headers: a.headers, body: a.body.toString('base64') };
  await writeFile(file, JSON.stringify(stored));
  const [execPath = process.execPath, ...wrapperArgs] = [...wrapper, process.execPath];
  const proc: ChildProcess = fork(SELF, ['--bare-answers', file], {
    execPath,
    execArgv: [...wrapperArgs, ...nodeArgs, '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    // With node flags (a profiler), exit through process.exit on disconnect so that it writes its file.
    if ((nodeArgs.length > 0 || wrapper.length > 0) && proc.connected) proc.disconnect();
    else proc.kill('SIGKILL');
    await exited;
  };
  const removeCleanup = onCleanup(stop);
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m: { port: number }) => resolve(m.port));
    proc.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
  });
  return {
    port,
    pid: proc.pid ?? 0,
    stop: async () => {
      removeCleanup();
      await stop();
    },
  };
}

const flagAt = process.argv.indexOf('--bare-answers');
if (flagAt >= 0 && process.argv[1] === SELF) await serveBare(process.argv[flagAt + 1] ?? '');
