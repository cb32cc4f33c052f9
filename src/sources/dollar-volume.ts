/**
 * Daily dollar volume (close × shares traded) of the company tickers with shipped volume, the size of
 * a firm at a date for the `ann-dv-1` rule: `data/candles/dollar-volume/dollar-volume.csv.gz`, built by
 * scripts/build-dollar-volume.ts (price basis in data/SOURCES.md: as traded to 2024-03-08, the
 * adjusted extension after). Read once per process: the file does not change while it runs.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIsoDate } from './candles.ts';
import { parseCsv } from './csv.ts';
import { readTextFile } from './files.ts';

export interface DollarVolumePoint {
  /** YYYY-MM-DD, ascending within a ticker. */
  date: string;
  /** Whole dollars traded that day. */
  dollars: number;
}

export type DollarVolumeSeries = ReadonlyMap<string, readonly DollarVolumePoint[]>;

export const DOLLAR_VOLUME_FILE = 'candles/dollar-volume/dollar-volume.csv.gz';

const DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));

/** `ticker,date,dollar_volume` rows; a row with a bad date, a non-number or a date out of order throws. */
export function parseDollarVolume(text: string): Map<string, DollarVolumePoint[]> {
  const { header, rows } = parseCsv(text);
  if (header.join(',') !== 'ticker,date,dollar_volume') {
    throw new Error('dollar volume CSV: expected the header ticker,date,dollar_volume');
  }
  const out = new Map<string, DollarVolumePoint[]>();
  for (const { line, fields } of rows) {
    const [ticker = '', date = '', raw = ''] = fields;
    const dollars = Number(raw);
    const list = out.get(ticker) ?? [];
    const previous = list[list.length - 1]?.date ?? '';
    if (!isIsoDate(date) || date <= previous || !Number.isFinite(dollars) || dollars < 0 || raw === '') {
      throw new Error(`dollar volume CSV line ${line}: bad or out-of-order row`);
    }
    list.push({ date, dollars });
    out.set(ticker, list);
  }
  return out;
}

let cached: Promise<Map<string, DollarVolumePoint[]>> | null = null;

/** The shipped series (read once). */
export function loadDollarVolume(): Promise<DollarVolumeSeries> {
  cached ??= readTextFile(join(DATA_DIR, DOLLAR_VOLUME_FILE)).then(parseDollarVolume);
  return cached;
}
