/**
 * Builds data/candles/dollar-volume/dollar-volume.csv.gz (the `ann-dv-1` rule's denominator, docs/DATA.md): each
 * company ticker's daily dollar volume, close × volume, from the shared candle files given as the
 * argument (a directory holding `<T>.csv`, as traded, and `<T>_ext.csv`). The as-traded file is used
 * to its end (2024-03-08); the adjusted extension only after it. Whole dollars, sorted by ticker, date.
 *
 *   node --import tsx scripts/build-dollar-volume.ts /path/to/candles
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const TICKERS = ['BA', 'BAH', 'CACI', 'GD', 'HII', 'LDOS', 'LHX', 'LMT', 'NOC', 'PLTR', 'RTX', 'SAIC', 'TXT'];

function rows(file: string): { date: string; dollars: number }[] {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const cols = (header ?? '').split(',');
  const close = cols.indexOf('close');
  const volume = cols.indexOf('volume');
  return lines.map((line) => {
    const f = line.split(',');
    return { date: f[0] ?? '', dollars: Math.round(Number(f[close]) * Number(f[volume])) };
  });
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: build-dollar-volume.ts <candles dir>');
const out = ['ticker,date,dollar_volume'];
for (const t of TICKERS) {
  const traded = rows(path.join(dir, `${t}.csv`));
  const last = traded[traded.length - 1]?.date ?? '';
  const ext = rows(path.join(dir, `${t}_ext.csv`)).filter((r) => r.date > last);
  for (const r of [...traded, ...ext]) out.push(`${t},${r.date},${r.dollars}`);
}
writeFileSync(
  'data/candles/dollar-volume/dollar-volume.csv.gz',
  gzipSync(`${out.join('\n')}\n`, { level: 9 }),
);
process.stdout.write(`${out.length - 1} rows\n`);
