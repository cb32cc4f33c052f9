/** Processes and their memory from /proc (Linux): a server's process tree, postgres processes, RSS and PSS. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface Proc {
  pid: number;
  ppid: number;
  /** `node` when it runs this node binary, else /proc/<pid>/comm (`postgres`, `sh`, …). */
  comm: string;
  /** Start time in clock ticks since boot: with the pid, names the process across pid reuse. */
  start: number;
}

export function readProc(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The comm field is parenthesised and may hold spaces: split after its closing parenthesis.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    let exe = '';
    try {
      exe = readlinkSync(`/proc/${pid}/exe`);
    } catch {
      // Not ours to read, or a zombie.
    }
    return {
      pid,
      ppid: Number(fields[1]),
      comm: exe === process.execPath ? 'node' : comm,
      start: Number(fields[19]),
    };
  } catch {
    return null;
  }
}

function allProcs(): Proc[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProc(Number(name)))
    .filter((p): p is Proc => p !== null);
}

/** root and its descendants; each is also recorded in `seen` (pid → start time). */
export function processTree(root: number, seen?: Map<number, number>): Proc[] {
  const procs = allProcs();
  const children = new Map<number, Proc[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: Proc[] = [];
  const queue = procs.filter((p) => p.pid === root);
  while (queue.length) {
    const p = queue.shift() as Proc;
    out.push(p);
    seen?.set(p.pid, p.start);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** postgres processes working in dir (a postmaster and its backends chdir to their data directory). */
export function postgresProcs(dir: string): Proc[] {
  const root = path.resolve(dir);
  return allProcs().filter((p) => {
    if (p.comm !== 'postgres') return false;
    try {
      const cwd = readlinkSync(`/proc/${p.pid}/cwd`);
      return cwd === root || cwd.startsWith(`${root}/`);
    } catch {
      return false;
    }
  });
}

/** The process still is the one recorded (same pid, same start time). */
export function sameProcess(pid: number, start: number): boolean {
  return readProc(pid)?.start === start;
}

export interface Memory {
  processes: number;
  /** Sum of resident set sizes, bytes (shared pages counted in every process). */
  rss: number;
  /** Sum of proportional set sizes, bytes (shared pages split among their users); = rss where unreadable. */
  pss: number;
  /** How many processes gave no smaps_rollup (their PSS is their VmRSS). */
  pssMissing: number;
}

/** No process: what a sample of nothing sums to. */
export const NO_MEMORY: Memory = { processes: 0, rss: 0, pss: 0, pssMissing: 0 };

/**
 * RSS and PSS summed over pids, from /proc/<pid>/smaps_rollup (VmRSS of /proc/<pid>/status as fallback).
 * Read asynchronously: reading smaps_rollup walks the process's page tables in the kernel, several ms for
 * a few PostgreSQL processes, and bench:events samples while its load generator runs in this process —
 * read synchronously, each sample held every answer in flight (docs/EVALUATION.md, "The memory sampler
 * in the generator's event loop").
 */
export async function memoryOf(pids: number[]): Promise<Memory> {
  const total = { ...NO_MEMORY };
  const each = await Promise.all(
    [...new Set(pids)].map(async (pid) => {
      const rollup = await kb(`/proc/${pid}/smaps_rollup`, ['Rss', 'Pss']);
      if (rollup.Rss !== undefined && rollup.Pss !== undefined)
        return { rss: rollup.Rss, pss: rollup.Pss, missing: 0 };
      const rss = (await kb(`/proc/${pid}/status`, ['VmRSS'])).VmRSS;
      return rss === undefined ? null : { rss, pss: rss, missing: 1 };
    }),
  );
  for (const one of each) {
    if (one === null) continue;
    total.rss += one.rss;
    total.pss += one.pss;
    total.pssMissing += one.missing;
    total.processes++;
  }
  return total;
}

/** `Name:   123 kB` lines of a /proc file, in bytes. */
async function kb(file: string, names: string[]): Promise<Record<string, number | undefined>> {
  const out: Record<string, number | undefined> = {};
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return out;
  }
  for (const name of names) {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    if (match?.[1]) out[name] = Number(match[1]) * 1024;
  }
  return out;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on every Linux build here). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time the processes have used so far (user + system, their own threads only), ms; a process
 * gone since counts 0. Differences of two readings over a run give the CPU it took (10 ms resolution).
 */
export function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime: fields 14 and 15 of stat(5), 11 and 12 after the comm.
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Exited: its time is gone with it.
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Every process of this machine whose command is `comm` (e.g. all of a local PostgreSQL's). */
export const procsNamed = (comm: string): number[] =>
  allProcs()
    .filter((p) => p.comm === comm)
    .map((p) => p.pid);
