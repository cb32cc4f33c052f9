/**
 * The postmaster as a process: its pid file, whether a pid is the live postmaster of a cluster, and
 * stopping it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const STOP_TIMEOUT_MS = 30_000;

interface PidFile {
  pid: number;
  socketDir: string;
  status: string;
}

/** postmaster.pid: line 1 the pid, 5 the socket directory, 8 the status (starting, ready, stopping). */
export function readPidFile(cluster: string): PidFile | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  return {
    pid: Number.parseInt(lines[0] ?? '', 10),
    socketDir: lines[4] ?? '',
    status: (lines[7] ?? '').trim(),
  };
}

/** A live postgres process whose working directory is `cluster` (the postmaster chdirs into it). */
export function isPostmasterOf(pid: number, cluster: string): boolean {
  if (!(pid > 0) || !isAlive(pid)) return false;
  try {
    const exe = path.basename(fs.readlinkSync(`/proc/${pid}/exe`));
    return exe.startsWith('postgres') && fs.readlinkSync(`/proc/${pid}/cwd`) === fs.realpathSync(cluster);
  } catch {
    return false;
  }
}

/** Alive and not a zombie (an exited child not yet reaped). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/** Fast shutdown (SIGINT: sessions ended, a checkpoint written); immediate (SIGQUIT) past the timeout. */
export async function stopPostmaster(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  let escalated = false;
  while (isAlive(pid)) {
    if (!escalated && Date.now() > deadline) {
      escalated = true;
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        return;
      }
    }
    await sleep(10);
  }
}
