/** Helpers shared by the benchmarks: the bench database, arguments, formatting. */
import pg from 'pg';
import { type Db, openDb } from '../src/store/db.ts';

/** The database bench/synthetic.ts fills and bench/explain.ts and bench/events-latency.ts read. */
export const DEFAULT_BENCH_URL = 'postgres://postgres@127.0.0.1:5432/market_intel_bench';

export function benchDatabaseUrl(): string {
  return process.env.DATABASE_URL?.trim() || DEFAULT_BENCH_URL;
}

export function isDefaultBenchUrl(url: string): boolean {
  return url === DEFAULT_BENCH_URL;
}

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`unsupported database name in ${url}`);
  return name;
}

/** Runs fn with a client connected to the server's `postgres` database (to create or drop databases). */
async function withAdmin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const client = new pg.Client({ connectionString: adminUrl.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in url when missing; with `recreate`, drops it first. */
export async function ensureDatabase(
  url: string,
  options: { recreate: boolean },
): Promise<'created' | 'exists'> {
  const name = databaseName(url);
  return withAdmin(url, async (client) => {
    if (options.recreate) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return 'exists';
    // Collation C, as the embedded default's cluster has (initdb --locale=C): text keys compare
    // byte by byte and sorts use abbreviated keys, where a libc locale such as this machine's C.UTF-8
    // compares through strcoll (the index builds of a 10 M build; docs/EVALUATION.md).
    await client.query(`CREATE DATABASE ${name} TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'`);
    return 'created';
  });
}

export async function databaseExists(url: string): Promise<boolean> {
  const name = databaseName(url);
  return withAdmin(url, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return (found.rowCount ?? 0) > 0;
  });
}

/** The synthetic database of `npm run bench:synthetic` (DATABASE_URL, else market_intel_bench), opened. */
export async function openSyntheticDb(): Promise<Db> {
  const url = benchDatabaseUrl();
  if (!(await databaseExists(url)))
    throw new Error(`${url} does not exist: run npm run bench:synthetic first`);
  return openDb({ databaseUrl: url, dataDir: '' });
}

/** `--name value` / `--name=value` / `--flag` arguments, with defaults. */
export function arg(name: string): string | undefined {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === `--${name}`) {
      const next = argv[i + 1];
      return next === undefined || next.startsWith('--') ? 'true' : next;
    }
    if (a?.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  return undefined;
}

export function numberArg(name: string, fallback: number): number {
  const raw = arg(name);
  if (raw === undefined) return fallback;
  const value = Number(raw.replaceAll('_', ''));
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`--${name}: expected a non-negative number, got ${raw}`);
  return value;
}

export function flag(name: string): boolean {
  const raw = arg(name);
  return raw !== undefined && raw !== 'false' && raw !== '0';
}

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
export const fmtMs = (n: number): string => `${n.toFixed(n < 10 ? 2 : 1)} ms`;
export const fmtMb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** A fixed-width text table. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function summary(title: string, lines: string[]): string {
  const bar = '='.repeat(Math.max(60, title.length + 8));
  return `\n${bar}\n=== ${title}\n${bar}\n${lines.join('\n')}\n${bar}\n`;
}

/** A seeded generator (mulberry32): the same seed gives the same synthetic data set on every run. */
export function seededRandom(seed: number): { rand: () => number; normal: () => number } {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** A standard normal draw (Box–Muller). */
  const normal = () => {
    const u = 1 - rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
  return { rand, normal };
}
