/** `serve` as an operator runs it, in a child process whose JSON log lines a test can wait for. */
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from './cli.ts';

export const START_TIMEOUT_MS = 90_000;

export interface LogLine {
  pid: number;
  msg: string;
  [field: string]: unknown;
}

/** A spawned `serve`, its JSON log lines as they arrive, and a way to wait for one. */
export interface Server {
  child: ChildProcess;
  lines: LogLine[];
  stderr: () => string;
  waitFor(match: (line: LogLine) => boolean, what: string, timeoutMs?: number): Promise<LogLine>;
  exited: Promise<number | null>;
}

/** `serve --port 0` with `args` (`--no-seed` unless `seed`), its log at info level. */
export function startServe(
  args: string[],
  env: Record<string, string>,
  options: { seed?: boolean } = {},
): Server {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', ...(options.seed ? [] : ['--no-seed']), '--port', '0', ...args],
    {
      env: { ...process.env, LOG_LEVEL: 'info', HTTP_WORKERS: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as LogLine);
      } catch {
        // Not a log line.
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (match: (line: LogLine) => boolean, what: string, timeoutMs = START_TIMEOUT_MS) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (!found) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no log line: ${what}\nstderr: ${stderr.slice(-2000)}`));
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  return { child, lines, stderr: () => stderr, waitFor, exited };
}
