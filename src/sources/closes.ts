/**
 * Adjusted daily closes for the announcement study, read from files shipped in data/ (no database
 * table: the study reads them once per run). The wide file `data/candles/closes/…` holds yfinance
 * adjusted closes (split- and dividend-adjusted) of 41 tickers and XAR; SPY and ITA, which it lacks,
 * come from their `data/candles/<T>.csv.gz` adj_close (data/SOURCES.md gives every series' basis).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIsoDate, parseCandlesCsv } from './candles.ts';
import { parseCsv } from './csv.ts';
import { readTextFile } from './files.ts';

export interface ClosePoint {
  /** YYYY-MM-DD, ascending. */
  date: string;
  adjClose: number;
}

/** The shipped data directory (the same one `seed` reads). */
const DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));

export const WIDE_CLOSES_FILE =
  'candles/closes/yfinance_adjclose_wide_41tickers_2000-01-03_2026-04-24.csv.gz';

/** Benchmarks the wide file does not carry, read from their candle files' adj_close. */
export const CANDLE_FILE_BENCHMARKS = ['SPY', 'ITA'] as const;

/**
 * The wide file spells class shares with a dot (MOG.A), the SEC list and so the resolver with a hyphen
 * (MOG-A); the study looks series up by the resolver's ticker.
 */
export const tickerOfColumn = (column: string): string => column.trim().toUpperCase().replace(/\./g, '-');

export interface WideClosesResult {
  series: Map<string, ClosePoint[]>;
  rejected: { line: number; message: string }[];
}

/**
 * A `Date,<T1>,<T2>,…` CSV of closes: an empty cell is no price that day (before a listing); a
 * non-numeric or non-positive cell is rejected with its line, as is a row with a bad or repeated
 * date, so a damaged file shows instead of pricing a window across a hole.
 */
export function parseWideCloses(text: string): WideClosesResult {
  const { header, rows } = parseCsv(text);
  if ((header[0] ?? '').trim().toLowerCase() !== 'date' || header.length < 2) {
    throw new Error('wide closes CSV: expected a header Date,<ticker>,…');
  }
  const tickers = header.slice(1).map(tickerOfColumn);
  const series = new Map<string, ClosePoint[]>(tickers.map((t) => [t, []]));
  const rejected: WideClosesResult['rejected'] = [];
  let previous = '';
  for (const { line, fields } of rows) {
    if (fields.length !== header.length) {
      rejected.push({ line, message: `expected ${header.length} fields, found ${fields.length}` });
      continue;
    }
    const date = (fields[0] ?? '').trim();
    if (!isIsoDate(date)) {
      rejected.push({ line, message: `date is not a valid YYYY-MM-DD date: '${date}'` });
      continue;
    }
    if (date <= previous) {
      rejected.push({ line, message: `date ${date} does not follow ${previous}` });
      continue;
    }
    previous = date;
    tickers.forEach((ticker, i) => {
      const raw = (fields[i + 1] ?? '').trim();
      if (raw === '') return;
      const value = Number(raw);
      if (!(value > 0) || !Number.isFinite(value)) {
        rejected.push({ line, message: `${ticker}: not a positive price: '${raw}'` });
        return;
      }
      series.get(ticker)?.push({ date, adjClose: value });
    });
  }
  return { series, rejected };
}

/**
 * Every series the study prices: the wide file's tickers (and XAR) plus SPY and ITA. Throws when a
 * file has rejected rows: the shipped files have none, so any is damage.
 */
export async function loadStudyCloses(dataDir: string = DATA_DIR): Promise<Map<string, ClosePoint[]>> {
  const wide = parseWideCloses(await readTextFile(join(dataDir, WIDE_CLOSES_FILE)));
  if (wide.rejected.length > 0) {
    const first = wide.rejected[0];
    throw new Error(
      `${WIDE_CLOSES_FILE}: ${wide.rejected.length} rejected rows (line ${first?.line}: ${first?.message})`,
    );
  }
  const out = new Map(wide.series);
  for (const ticker of CANDLE_FILE_BENCHMARKS) {
    if (out.has(ticker)) continue;
    const file = join(dataDir, 'candles', `${ticker}.csv.gz`);
    const parsed = parseCandlesCsv(await readTextFile(file));
    if (parsed.rejected.length > 0) throw new Error(`${file}: ${parsed.rejected.length} rejected rows`);
    out.set(
      ticker,
      parsed.candles.map((c) => ({ date: c.date, adjClose: c.adjClose })),
    );
  }
  return out;
}
