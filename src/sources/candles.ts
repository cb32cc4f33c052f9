/**
 * Daily candle CSVs: header `date,open,high,low,close[,adj_close],volume` (any column order, names
 * case-insensitive, extra columns ignored). `adj_close` is optional and defaults to `close`.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Candle } from '../domain/types.ts';
import { parseCsv } from './csv.ts';
import { readTextFile } from './files.ts';

export interface CandlesParseResult {
  /** Ascending by date, one per date. */
  candles: Candle[];
  rejected: { line: number; message: string }[];
}

const REQUIRED = ['date', 'open', 'high', 'low', 'close', 'volume'] as const;
const NUM_RE = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isIsoDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/**
 * Parses a candle CSV. Rejected rows (with their 1-based line): wrong field count, invalid date,
 * a non-numeric value, a non-positive price, high < low, negative volume, and a repeated date (the
 * first occurrence is kept). Throws when a required column is missing from the header.
 */
export function parseCandlesCsv(text: string): CandlesParseResult {
  const { header, rows } = parseCsv(text);
  const cols = header.map((h) => h.trim().toLowerCase());
  const idx = (name: string): number => cols.indexOf(name);
  const missing = REQUIRED.filter((c) => idx(c) < 0);
  if (missing.length > 0) throw new Error(`candles CSV: header lacks ${missing.join(', ')}`);
  const adjIdx = idx('adj_close');
  const rejected: CandlesParseResult['rejected'] = [];
  const byDate = new Map<string, { candle: Candle; line: number }>();
  for (const { line, fields } of rows) {
    if (fields.length !== header.length) {
      rejected.push({ line, message: `expected ${header.length} fields, found ${fields.length}` });
      continue;
    }
    const get = (i: number): string => (fields[i] ?? '').trim();
    const date = get(idx('date'));
    if (!isIsoDate(date)) {
      rejected.push({ line, message: `date is not a valid YYYY-MM-DD date: '${date}'` });
      continue;
    }
    const names = ['open', 'high', 'low', 'close', 'adj_close', 'volume'] as const;
    const values: Record<string, number> = {};
    let bad: string | null = null;
    for (const name of names) {
      const i = name === 'adj_close' ? adjIdx : idx(name);
      if (i < 0) continue;
      const raw = get(i);
      if (!NUM_RE.test(raw)) {
        bad = `${name} is not a number: '${raw}'`;
        break;
      }
      values[name] = Number(raw);
    }
    if (bad) {
      rejected.push({ line, message: bad });
      continue;
    }
    const open = values.open ?? Number.NaN;
    const high = values.high ?? Number.NaN;
    const low = values.low ?? Number.NaN;
    const close = values.close ?? Number.NaN;
    const adjClose = values.adj_close ?? close;
    const volume = values.volume ?? Number.NaN;
    const nonPositive = (
      [
        ['open', open],
        ['high', high],
        ['low', low],
        ['close', close],
        ['adj_close', adjClose],
      ] as const
    ).find(([, v]) => !(v > 0) || !Number.isFinite(v));
    if (nonPositive) {
      rejected.push({ line, message: `${nonPositive[0]} must be a positive price: ${nonPositive[1]}` });
      continue;
    }
    if (high < low) {
      rejected.push({ line, message: `high ${high} is below low ${low}` });
      continue;
    }
    if (!(volume >= 0) || !Number.isFinite(volume)) {
      rejected.push({ line, message: `volume must be a non-negative number: ${volume}` });
      continue;
    }
    const first = byDate.get(date);
    if (first) {
      rejected.push({ line, message: `duplicate date ${date} (line ${first.line} kept)` });
      continue;
    }
    byDate.set(date, { candle: { date, open, high, low, close, adjClose, volume }, line });
  }
  const candles = [...byDate.values()].map((x) => x.candle).sort((a, b) => (a.date < b.date ? -1 : 1));
  return { candles, rejected };
}

/** Serializes candles as `date,open,high,low,close,adj_close,volume` CSV (LF, trailing newline). */
export function candlesToCsv(candles: readonly Candle[]): string {
  const lines = ['date,open,high,low,close,adj_close,volume'];
  for (const c of candles) {
    lines.push([c.date, c.open, c.high, c.low, c.close, c.adjClose, c.volume].map(String).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** `data/candles/<TICKER>.csv(.gz)` files → ticker (upper case) → candles. Rejected rows are skipped. */
export async function loadDemoCandles(dataDir: string): Promise<Map<string, Candle[]>> {
  const dir = join(dataDir, 'candles');
  const out = new Map<string, Candle[]>();
  const names = (await readdir(dir)).filter((n) => /^[A-Za-z0-9.-]+\.csv(\.gz)?$/.test(n)).sort();
  for (const name of names) {
    const ticker = name.replace(/\.csv(\.gz)?$/, '').toUpperCase();
    if (out.has(ticker)) throw new Error(`candles: both ${ticker}.csv and ${ticker}.csv.gz exist`);
    out.set(ticker, parseCandlesCsv(await readTextFile(join(dir, name))).candles);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Price-basis helpers (used by scripts/build-data.ts and tests)

/** Rounds to at most 6 decimals (as the shipped files are written). */
export function round6(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  return r === 0 ? 0 : r;
}

/** Multiplies open/high/low/close by `factor`; adj_close becomes the new close. Volume unchanged. */
export function scaleCandle(c: Candle, factor: number): Candle {
  const close = round6(c.close * factor);
  return {
    date: c.date,
    open: round6(c.open * factor),
    high: round6(c.high * factor),
    low: round6(c.low * factor),
    close,
    adjClose: close,
    volume: c.volume,
  };
}

/**
 * As-traded OHLC with an adjusted close → adjusted OHLC: each row's O/H/L/C is multiplied by its
 * own adj_close/close and then by `basisFactor` (the constant ratio to the target series).
 */
export function adjustAsTraded(c: Candle, basisFactor = 1): Candle {
  return scaleCandle(c, (c.adjClose / c.close) * basisFactor);
}

/** Median and relative spread (max/min − 1) of a[d]/b[d] over the dates both have. */
export function ratioStats(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  filter: (date: string) => boolean = () => true,
): { median: number; spread: number; n: number } {
  const qs: number[] = [];
  for (const [d, x] of a) {
    const y = b.get(d);
    if (y !== undefined && y > 0 && filter(d)) qs.push(x / y);
  }
  if (qs.length === 0) return { median: Number.NaN, spread: Number.NaN, n: 0 };
  qs.sort((x, y) => x - y);
  const mid = qs.length >> 1;
  const median = qs.length % 2 ? (qs[mid] as number) : ((qs[mid - 1] as number) + (qs[mid] as number)) / 2;
  return { median, spread: (qs[qs.length - 1] as number) / (qs[0] as number) - 1, n: qs.length };
}

/** Map date → adjusted close (or another field). */
export function closeMap(
  candles: readonly Candle[],
  field: 'close' | 'adjClose' = 'adjClose',
): Map<string, number> {
  return new Map(candles.map((c) => [c.date, c[field]]));
}

/** Daily simple returns of adj_close: `{ date, ret }` for every candle after the first. */
export function dailyReturns(candles: readonly Candle[]): { date: string; prevDate: string; ret: number }[] {
  const out: { date: string; prevDate: string; ret: number }[] = [];
  for (let i = 1; i < candles.length; i++) {
    const prev = candles[i - 1] as Candle;
    const cur = candles[i] as Candle;
    out.push({ date: cur.date, prevDate: prev.date, ret: cur.adjClose / prev.adjClose - 1 });
  }
  return out;
}
