/**
 * Regenerates the project's demo data (`data/`) from a folder of the original downloads, laid out as
 * data/SOURCES.md lists them (awards/, candles/ and candles/closes/, companies/, contracts/).
 *
 *   node --import tsx scripts/build-data.ts SOURCE_DIR [outDir=data]
 *
 * Deterministic: the same inputs give byte-identical outputs (gzip headers carry no mtime).
 * Only the files listed in data/SOURCES.md are written; `data/postgres/` is never touched.
 * Every transformation is asserted here (constant splice ratios, continuity at splice points),
 * so a changed input fails loudly instead of shipping a silent jump.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Candle } from '../src/domain/types.ts';
import {
  adjustAsTraded,
  candlesToCsv,
  closeMap,
  dailyReturns,
  parseCandlesCsv,
  ratioStats,
  round6,
  scaleCandle,
} from '../src/sources/candles.ts';
import { parseCsv, rowToObject, toCsv } from '../src/sources/csv.ts';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// ---------------------------------------------------------------------------------------------
// Aliases

/** Labelled map rows whose ticker was wrong or unusable (see data/SOURCES.md). null = drop. */
const MAP_CORRECTIONS: Readonly<Record<string, string | null>> = {
  // L3Harris, not Lockheed, acquired Aerojet Rocketdyne (2023-07-28); LMT's bid was abandoned in 2022.
  'AEROJET ROCKETDYNE OF DE, INC': 'LHX',
  // RYCEY (Rolls-Royce Holdings ADR) is not in the SEC ticker list: no company row to point at.
  'ROLLS-ROYCE CORPORATION': null,
  // The SEC list writes Moog's class A shares as MOG-A.
  'MOOG INC': 'MOG-A',
};

/**
 * Hand-curated recipient names (as written in the shipped award files or their usual USASpending
 * spelling) → current listed parent. Ownership is as of 2025/26; see SOURCES.md for dates.
 */
const CURATED: readonly (readonly [string, string])[] = [
  // Lockheed Martin
  ['LOCKHEED MARTIN CORP', 'LMT'],
  ['LOCKHEED MARTIN SERVICES, LLC', 'LMT'],
  ['LOCKHEED MARTIN GLOBAL, INC.', 'LMT'],
  ['LOCKHEED MARTIN SIPPICAN, INC.', 'LMT'],
  ['LOCKHEED MARTIN TACTICAL SYSTEMS COMPANY', 'LMT'],
  ['LOCKHEED MARTIN INTEGRATED SYSTEMS, INC.', 'LMT'],
  ['LOCKHEED MISSILES & SPACE COMP', 'LMT'],
  ['POLSKIE ZAKLADY LOTNICZE SP Z O O', 'LMT'],
  ['ASTROTECH SPACE OPERATIONS, LLC', 'LMT'],
  // RTX
  ['RAYTHEON COMPANY', 'RTX'],
  ['RAYTHEON TECHNOLOGIES CORPORATION', 'RTX'],
  ['UNITED TECHNOLOGIES CORPORATION', 'RTX'],
  ['HAMILTON SUNDSTRAND CORPORATION', 'RTX'],
  ['PRATT & WHITNEY', 'RTX'],
  ['RAYTHEON SOUTHEAST ASIA SYSTEMS COMPANY', 'RTX'],
  ['RAYTHEON SYSTEMS LIMITED', 'RTX'],
  // General Dynamics
  ['GENERAL DYNAMICS CORPORATION', 'GD'],
  ['GENERAL DYNAMICS INFORMATION TECHNOLOGY INC.', 'GD'],
  ['GENERAL DYNAMICS MISSION SYSTEMS, INC.', 'GD'],
  ['GENERAL DYNAMICS LAND SYSTEMS INC.', 'GD'],
  ['GENERAL DYNAMICS LAND SYSTEMS CUSTOMER SERVICE & SUPPORT COMPANY', 'GD'],
  ['GENERAL DYNAMICS EUROPEAN LAND SYSTEMS-BRIDGE SYSTEMS GMBH', 'GD'],
  ['GENERAL DYNAMICS ORDNANCE AND TACTICAL SYSTEMS, INC.', 'GD'],
  ['GENERAL DYNAMICS-OTS, INC.', 'GD'],
  ['GENERAL DYNAMICS OTS (WILKES BARRE), LLC', 'GD'],
  ['GENERAL DYNAMICS ONE SOURCE LLC', 'GD'],
  ['GENERAL DYNAMICS GLOBAL FORCE, LLC', 'GD'],
  ['GENERAL DYNAMICS ELECTRIC BOAT', 'GD'],
  ['ELECTRIC BOAT CORPORATION', 'GD'],
  ['BATH IRON WORKS CORPORATION', 'GD'],
  ['NATIONAL STEEL AND SHIPBUILDING COMPANY', 'GD'],
  ['METRO MACHINE CORP.', 'GD'],
  ['GULFSTREAM AEROSPACE CORPORATION', 'GD'],
  ['CSRA LLC', 'GD'],
  ['APPLIED PHYSICAL SCIENCES CORP', 'GD'],
  // Northrop Grumman
  ['NORTHROP GRUMMAN CORPORATION', 'NOC'],
  ['NORTHROP GRUMMAN SYSTEMS CORPORATION', 'NOC'],
  ['NORTHROP GRUMMAN SPACE & MISSION SYSTEMS CORP.', 'NOC'],
  ['ALLIANT TECHSYSTEMS OPERATIONS LLC', 'NOC'],
  ['ORBITAL SCIENCES LLC', 'NOC'],
  ['ATK LAUNCH SYSTEMS LLC', 'NOC'],
  // Boeing
  ['BOEING COMPANY', 'BA'],
  ['BOEING AEROSPACE OPERATIONS, INC.', 'BA'],
  ['INSITU, INC.', 'BA'],
  ['AURORA FLIGHT SCIENCES CORPORATION', 'BA'],
  ['ARGON ST, INC.', 'BA'],
  // L3Harris
  ['L3HARRIS TECHNOLOGIES, INC.', 'LHX'],
  ['L3HARRIS GLOBAL COMMUNICATIONS, INC.', 'LHX'],
  ['L3HARRIS FUZING AND ORDNANCE SYSTEMS, INC.', 'LHX'],
  ['L3HARRIS FORCEX, INC.', 'LHX'],
  ['L3HARRIS INTERSTATE ELECTRONICS CORPORATION', 'LHX'],
  ['L3HARRIS NEXGEN COMMUNICATIONS LLC', 'LHX'],
  ['L3HARRIS MUSTANG TECHNOLOGY GROUP, L.P.', 'LHX'],
  ['L3HARRIS MARITIME SERVICES INC', 'LHX'],
  ['L3HARRIS MARITIME POWER & ENERGY SOLUTIONS, INC', 'LHX'],
  ['L3HARRIS LINCHPIN LABS, INC.', 'LHX'],
  ['LINCHPIN LABS INC', 'LHX'],
  ['L3 TECHNOLOGIES INC', 'LHX'],
  ['L-3 COMMUNICATIONS CORPORATION', 'LHX'],
  ['L-3 COMMUNICATIONS HOLDINGS INC.', 'LHX'],
  ['L-3 CHESAPEAKE SCIENCES CORPORATION', 'LHX'],
  ['L-3 COMMUNICATIONS MARIPRO, INC.', 'LHX'],
  ['HARRIS CORPORATION', 'LHX'],
  ['WESCAM USA, INC.', 'LHX'],
  ['AEROJET ROCKETDYNE, INC.', 'LHX'],
  ['AEROJET ROCKETDYNE COLEMAN AEROSPACE INC', 'LHX'],
  // Leidos
  ['LEIDOS INC', 'LDOS'],
  ['LEIDOS BIOMEDICAL RESEARCH INC', 'LDOS'],
  ['LEIDOS SECURITY DETECTION & AUTOMATION, INC.', 'LDOS'],
  ['LEIDOS SMS INC', 'LDOS'],
  ['QTC MEDICAL SERVICES INC', 'LDOS'],
  ['DYNETICS, INC.', 'LDOS'],
  ['REVEAL IMAGING TECHNOLOGIES, INC.', 'LDOS'],
  ['VAREC INC', 'LDOS'],
  ['1901 GROUP, LLC', 'LDOS'],
  ['GIBBS & COX INC', 'LDOS'],
  // SAIC, Booz Allen, CACI, Palantir
  ['SCIENCE APPLICATIONS INTERNATIONAL CORP', 'SAIC'],
  ['BOOZ ALLEN HAMILTON', 'BAH'],
  ['LIBERTY IT SOLUTIONS LLC', 'BAH'],
  ['CACI INTERNATIONAL INC', 'CACI'],
  ['CACI NSS, LLC', 'CACI'],
  ['CACI-ISS, LLC', 'CACI'],
  ['PALANTIR TECHNOLOGIES INC.', 'PLTR'],
  // Huntington Ingalls
  ['HUNTINGTON INGALLS', 'HII'],
  ['HUNTINGTON INGALLS INCORPORATED', 'HII'],
  ['HUNTINGTON INGALLS INDUSTRIES, INC.', 'HII'],
  ['HII FLEET SUPPORT GROUP LLC', 'HII'],
  ['HII TECHNICAL SOLUTIONS CORPORATION', 'HII'],
  ['HII SAN DIEGO SHIPYARD INC.', 'HII'],
  ['CONTINENTAL MARITIME OF SAN DIEGO, LLC', 'HII'],
  ['FULCRUM IT SERVICES, LLC', 'HII'],
  ['ENLIGHTEN IT CONSULTING LLC', 'HII'],
  // Textron
  ['BELL HELICOPTER TEXTRON INC.', 'TXT'],
  ['TEXTRON SYSTEMS CORPORATION', 'TXT'],
  ['TEXTRON AVIATION DEFENSE LLC', 'TXT'],
  ['AIRBORNE TACTICAL ADVANTAGE CO LLC', 'TXT'],
  ['ABLE AEROSPACE SERVICES, INC.', 'TXT'],
  ['TRU SIMULATION + TRAINING INC.', 'TXT'],
  // Honeywell
  ['HONEYWELL INC', 'HON'],
  ['HONEYWELL BUILDING SOLUTIONS SES CORP', 'HON'],
  ['HONEYWELL FEDERAL MANUFACTURING & TECHNOLOGIES, LLC', 'HON'],
  ['HONEYWELL TECHNOLOGY SOLUTIONS INC.', 'HON'],
  ['HONEYWELL SAFETY PRODUCTS USA, INC.', 'HON'],
  ['HONEYWELL LIMITED', 'HON'],
  ['NATIONAL TECHNOLOGY & ENGINEERING SOLUTIONS OF SANDIA, LLC', 'HON'],
  ['GRIMES AEROSPACE COMPANY', 'HON'],
  ['VOCOLLECT, INC.', 'HON'],
  // Other listed parents of recipients in the shipped award files
  ['AMENTUM TECHNOLOGY, INC.', 'AMTM'],
  ['DYNCORP INTERNATIONAL LLC', 'AMTM'],
  ['FLUOR FEDERAL SERVICES INC', 'FLR'],
  ['BAE SYSTEMS TECHNOLOGY SOLUTIONS & SERVICES INC.', 'BAESY'],
  ['BAE SYSTEMS PLC', 'BAESY'],
  ['CAE USA INC.', 'CAE'],
  ['CDW GOVERNMENT LLC', 'CDW'],
  ['CEPHEID', 'DHR'],
  ['PHILIPS NORTH AMERICA LLC', 'PHG'],
  ['HEWLETT-PACKARD COMPANY', 'HPQ'],
];

/** Same key for spelling variants that differ only in case, punctuation or spacing. */
function aliasKey(s: string): string {
  return s.toUpperCase().replace(/[.,]/g, ' ').replace(/\s+/g, ' ').trim();
}

function buildAliases(
  mapCsv: string,
  secTickers: ReadonlySet<string>,
): { csv: string; rows: number; log: string[] } {
  const log: string[] = [];
  const out = new Map<string, { alias: string; ticker: string; source: string }>();
  const add = (alias: string, ticker: string, source: string): void => {
    const key = aliasKey(alias);
    const prev = out.get(key);
    if (prev) {
      if (prev.ticker !== ticker) throw new Error(`alias conflict: ${alias} → ${prev.ticker} / ${ticker}`);
      return; // a spelling variant already present
    }
    if (!secTickers.has(ticker)) throw new Error(`alias ${alias} → ${ticker}: ticker not in the SEC list`);
    out.set(key, { alias, ticker, source });
  };
  const { header, rows } = parseCsv(mapCsv);
  for (const r of rows) {
    const row = rowToObject(header, r.fields);
    const name = (row.name ?? '').trim();
    const ticker = (row.ticker ?? '').trim();
    if (!name || !ticker) continue;
    const corrected = Object.hasOwn(MAP_CORRECTIONS, name) ? MAP_CORRECTIONS[name] : ticker;
    if (corrected === null || corrected === undefined) {
      log.push(`dropped ${name} → ${ticker}`);
      continue;
    }
    if (corrected !== ticker) log.push(`changed ${name}: ${ticker} → ${corrected}`);
    add(name, corrected, 'recipient_map_fy2024');
  }
  for (const [alias, ticker] of CURATED) add(alias, ticker, 'curated');
  const list = [...out.values()];
  return {
    csv: toCsv(
      ['alias', 'ticker', 'source'],
      list.map((a) => [a.alias, a.ticker, a.source]),
    ),
    rows: list.length,
    log,
  };
}

// ---------------------------------------------------------------------------------------------
// Candles

interface Segment {
  source: string;
  from: string;
  to: string;
  rows: number;
  factor: string;
}

interface CandleManifestEntry {
  basis: string;
  first: string;
  last: string;
  rows: number;
  segments: Segment[];
  /** First dates of segments joined to an earlier one (by this script or upstream). */
  splices: string[];
  /** Data gaps longer than a market holiday: [last date before, first date after]. */
  gaps: [string, string][];
}

function candlesOf(text: string, what: string): Candle[] {
  const { candles, rejected } = parseCandlesCsv(text);
  if (rejected.length > 0)
    throw new Error(`${what}: ${rejected.length} rejected rows, first: ${JSON.stringify(rejected[0])}`);
  return candles;
}

function assertConstant(what: string, s: { median: number; spread: number; n: number }, tol = 1e-5): number {
  if (s.n === 0 || !(s.spread < tol))
    throw new Error(`${what}: ratio not constant (n=${s.n}, spread=${s.spread})`);
  return s.median;
}

function segment(source: string, rows: Candle[], factor: string): Segment {
  const first = rows[0];
  const last = rows[rows.length - 1];
  if (!first || !last) throw new Error(`empty segment ${source}`);
  return { source, from: first.date, to: last.date, rows: rows.length, factor };
}

/** Checks that the return across each splice equals the reference adjusted-close return. */
function assertSpliceContinuity(
  ticker: string,
  series: Candle[],
  splice: string,
  ref: ReadonlyMap<string, number>,
): void {
  const i = series.findIndex((c) => c.date === splice);
  const prev = series[i - 1];
  const cur = series[i];
  if (i < 1 || !prev || !cur) throw new Error(`${ticker}: splice ${splice} not found`);
  const a = ref.get(prev.date);
  const b = ref.get(cur.date);
  if (a === undefined || b === undefined) throw new Error(`${ticker}: no reference prices around ${splice}`);
  const got = cur.adjClose / prev.adjClose - 1;
  const want = b / a - 1;
  if (Math.abs(got - want) > 1e-4)
    throw new Error(`${ticker}: return at splice ${splice} is ${got}, reference ${want}`);
}

function findGaps(series: Candle[]): [string, string][] {
  const gaps: [string, string][] = [];
  for (let i = 1; i < series.length; i++) {
    const a = series[i - 1] as Candle;
    const b = series[i] as Candle;
    const days = (Date.parse(b.date) - Date.parse(a.date)) / 86_400_000;
    if (days > 7) gaps.push([a.date, b.date]);
  }
  return gaps;
}

async function buildCandles(
  src: string,
): Promise<{ series: Map<string, Candle[]>; manifest: Record<string, CandleManifestEntry> }> {
  const read = async (name: string): Promise<Candle[]> =>
    candlesOf(await readFile(join(src, 'candles', name), 'utf8'), name);
  const series = new Map<string, Candle[]>();
  const manifest: Record<string, CandleManifestEntry> = {};
  const put = (
    ticker: string,
    rows: Candle[],
    basis: string,
    segments: Segment[],
    splices: string[],
  ): void => {
    const first = rows[0];
    const last = rows[rows.length - 1];
    if (!first || !last) throw new Error(`${ticker}: empty`);
    series.set(ticker, rows);
    manifest[ticker] = {
      basis,
      first: first.date,
      last: last.date,
      rows: rows.length,
      segments,
      splices,
      gaps: findGaps(rows),
    };
  };

  // Wide adjusted closes (yfinance, as of 2026-04-24): reference for checks and SAIC's basis.
  const wideText = await readFile(
    join(src, 'candles', 'closes', 'yfinance_adjclose_wide_41tickers_2000-01-03_2026-04-24.csv'),
    'utf8',
  );
  const wide = parseCsv(wideText);
  const wideCol = (ticker: string): Map<string, number> => {
    const i = wide.header.indexOf(ticker);
    const m = new Map<string, number>();
    for (const r of wide.rows) {
      const v = r.fields[i];
      const d = r.fields[0];
      if (d && v) m.set(d, Number(v));
    }
    return m;
  };

  const START = '2000-01-01';
  const EXT_BASIS = (asOf: string): string =>
    `split- and dividend-adjusted OHLC (yfinance auto_adjust, adjusted as of ${asOf}); adj_close = close`;

  // LMT, RTX, BA: the _ext series alone (1962→2026), from 2000 on.
  for (const t of ['LMT', 'RTX', 'BA']) {
    const ext = (await read(`${t}_ext.csv`)).filter((c) => c.date >= START).map((c) => scaleCandle(c, 1));
    put(t, ext, EXT_BASIS('2026-08-21'), [segment(`${t}_ext.csv`, ext, '1')], []);
  }
  // PLTR: _ext covers the whole listing (upstream splice at 2025-12-31).
  {
    const ext = (await read('PLTR_ext.csv')).map((c) => scaleCandle(c, 1));
    put('PLTR', ext, EXT_BASIS('2026-08-20'), [segment('PLTR_ext.csv', ext, '1')], ['2025-12-31']);
  }
  // 2000–2024 as-traded rows before the _ext start, adjusted onto the _ext basis.
  const spliced: readonly [string, string, string[]][] = [
    ['GD', '2026-08-20', ['2025-12-31']],
    ['NOC', '2026-08-20', ['2025-12-31']],
    ['LHX', '2026-08-20', ['2025-12-31']],
    ['LDOS', '2026-08-20', ['2025-12-31']],
    ['HII', '2026-08-20', ['2025-12-31']],
    ['TXT', '2026-08-20', ['2025-12-31']],
    ['BAH', '2025-07-08', []],
    ['CACI', '2025-07-08', []],
  ];
  for (const [t, asOf, upstream] of spliced) {
    const old = await read(`${t}.csv`);
    const ext = (await read(`${t}_ext.csv`)).map((c) => scaleCandle(c, 1));
    const firstExt = ext[0]?.date ?? '';
    const k = assertConstant(`${t} ext/old`, ratioStats(closeMap(ext, 'close'), closeMap(old)));
    const older = old.filter((c) => c.date < firstExt && c.date >= START).map((c) => adjustAsTraded(c, k));
    const rows = [...older, ...ext];
    assertSpliceContinuity(t, rows, firstExt, closeMap(old));
    put(
      t,
      rows,
      EXT_BASIS(asOf),
      [segment(`${t}.csv`, older, `adj_close/close × ${round6(k)}`), segment(`${t}_ext.csv`, ext, '1')],
      [firstExt, ...upstream],
    );
  }
  // SAIC: everything onto the wide file's adjusted closes (as of 2026-04-24).
  {
    const w = wideCol('SAIC');
    const old = await read('SAIC.csv');
    const ext = await read('SAIC_ext.csv');
    const ext2 = await read('SAIC_ext2.csv');
    const k1 = assertConstant('SAIC wide/old', ratioStats(w, closeMap(old)));
    const k2 = assertConstant('SAIC wide/ext', ratioStats(w, closeMap(ext, 'close')));
    const firstExt = ext[0]?.date ?? '';
    const older = old.filter((c) => c.date < firstExt).map((c) => adjustAsTraded(c, k1));
    const mid = ext.map((c) => scaleCandle(c, k2));
    // SAIC_ext2 is not dividend-adjusted (its ratio to the wide file steps at the 2026-01-14 and
    // 2026-04-10 ex-dividend dates), so each row is scaled onto the wide basis by that day's ratio;
    // rows after the wide file's last date keep the last ratio (1.0 since 2026-04-10).
    let f = Number.NaN;
    const late = ext2.map((c) => {
      const ref = w.get(c.date);
      if (ref !== undefined) f = ref / c.close;
      if (!Number.isFinite(f)) throw new Error(`SAIC_ext2: no wide close on/before ${c.date}`);
      return scaleCandle(c, f);
    });
    const rows = [...older, ...mid, ...late];
    const firstLate = late[0]?.date ?? '';
    assertSpliceContinuity('SAIC', rows, firstExt, w);
    assertSpliceContinuity('SAIC', rows, firstLate, w);
    put(
      'SAIC',
      rows,
      'split- and dividend-adjusted OHLC on the basis of the yfinance adjusted closes as of 2026-04-24 ' +
        '(dividends with ex-date after 2026-04-24 not reflected); adj_close = close; no rows 2025-07-09…2025-10-30',
      [
        segment('SAIC.csv', older, `adj_close/close × ${round6(k1)}`),
        segment('SAIC_ext.csv', mid, String(round6(k2))),
        segment('SAIC_ext2.csv', late, 'per-day wide/close (1.007214 → 1.003909 → 1)'),
      ],
      [firstExt, firstLate],
    );
  }
  // Benchmarks.
  for (const t of ['SPY', 'XLI']) {
    const rows = (await read(`${t}.csv`)).map((c) => scaleCandle(c, 1));
    put(t, rows, EXT_BASIS('2026-08-21'), [segment(`${t}.csv`, rows, '1')], []);
  }
  {
    const ita = await read('ITA.csv');
    const last = ita[ita.length - 1]?.date ?? '';
    const extAll = await read('ITA_ext.csv');
    const overlap = ratioStats(closeMap(extAll, 'close'), closeMap(ita, 'close'));
    assertConstant('ITA_ext/ITA', overlap, 1e-6);
    if (Math.abs(overlap.median - 1) > 1e-6) throw new Error('ITA_ext is not on ITA.csv basis');
    const appended = extAll.filter((c) => c.date > last);
    const raw = [...ita, ...appended];
    // Dividend-adjusted closes (auto_adjust, as of 2026-03-10) for 2020-10-26 → 2026-03-10.
    const longText = await readFile(
      join(src, 'candles', 'closes', 'daily_close_prices_2020-10-26_2026-03-10_12primes_ITA.csv'),
      'utf8',
    );
    const long = parseCsv(longText);
    const adj = new Map<string, number>();
    for (const r of long.rows) {
      const o = rowToObject(long.header, r.fields);
      if (o.ticker === 'ITA' && o.date && o.close) adj.set(o.date, Number(o.close));
    }
    const firstAdj = [...adj.keys()].sort()[0] ?? '';
    const firstRow = raw.find((c) => c.date === firstAdj);
    const a0 = adj.get(firstAdj);
    if (!firstRow || a0 === undefined) throw new Error('ITA: no overlap with adjusted closes');
    const r0 = a0 / firstRow.close;
    const rows = raw.map((c) => {
      const a = adj.get(c.date);
      if (c.date >= firstAdj && a === undefined) throw new Error(`ITA: no adjusted close on ${c.date}`);
      return { ...scaleCandle(c, 1), adjClose: round6(a ?? c.close * r0) };
    });
    put(
      'ITA',
      rows,
      'open/high/low/close split-adjusted only (2:1 split 2020-12-07; as traded after it); ' +
        `adj_close dividend-adjusted (yfinance auto_adjust closes as of 2026-03-10) from ${firstAdj}, ` +
        `before that close × ${round6(r0)} (dividends before ${firstAdj} not reflected)`,
      [
        segment('ITA.csv', ita, '1'),
        segment('ITA_ext.csv', appended, '1'),
        {
          source: 'closes/daily_close_prices…_ITA (adj_close)',
          from: firstAdj,
          to: rows[rows.length - 1]?.date ?? '',
          rows: 0,
          factor: 'adj_close',
        },
      ],
      [firstAdj, appended[0]?.date ?? ''],
    );
  }
  /**
   * Days whose daily return differs by > 0.2% from the wide yfinance adjusted-close file: LMT
   * 2026-04-07…04-10 is a 4-day level shift inside the wide file only (LMT_ext is smooth there);
   * TXT 2001-09-17 (first session after the 9/11 closure) differs between the two Yahoo pulls.
   */
  const KNOWN_WIDE_DIFFERENCES: Record<string, string[]> = {
    LMT: ['2026-04-07', '2026-04-13'],
    TXT: ['2001-09-17'],
  };
  // Cross-check every contractor's daily returns against the wide adjusted closes.
  for (const [t, rows] of series) {
    if (['SPY', 'XLI', 'ITA'].includes(t)) continue;
    const w = wideCol(t);
    const off: string[] = [];
    let compared = 0;
    for (const r of dailyReturns(rows)) {
      const a = w.get(r.prevDate);
      const b = w.get(r.date);
      if (a === undefined || b === undefined) continue;
      compared++;
      const diff = r.ret - (b / a - 1);
      if (Math.abs(diff) > 2e-3) off.push(`${r.date} (${diff.toFixed(4)})`);
    }
    const expected = KNOWN_WIDE_DIFFERENCES[t] ?? [];
    const unexpected = off.filter((o) => !expected.some((d) => o.startsWith(d)));
    if (compared < rows.length / 2 || unexpected.length > 0) {
      throw new Error(
        `${t}: ${compared} returns compared; differ from the wide adjusted closes on ${unexpected.join(', ')}`,
      );
    }
  }
  return { series, manifest };
}

// ---------------------------------------------------------------------------------------------

async function writeGz(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, gzipSync(Buffer.from(text, 'utf8'), { level: 9 }));
}

async function writeText(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** Byte copy that does not carry over the source's (read-only) file mode. */
async function copyBytes(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await writeFile(to, await readFile(from));
}

/** Columns of the 12-primes transaction file that carry the source author's ticker mapping. */
const DROPPED_TRANSACTION_COLUMNS = new Set(['ticker', 'company_name', 'company_query']);

export async function buildData(src: string, out: string): Promise<string[]> {
  const report: string[] = [];
  const c = (p: string): string => join(src, 'contracts', p);

  // Awards
  const tx = parseCsv(
    await readFile(c('usaspending_transactions_12primes_2021-2025_award_dedup.csv'), 'utf8'),
  );
  const keep = tx.header.map((h, i) => [h, i] as const).filter(([h]) => !DROPPED_TRANSACTION_COLUMNS.has(h));
  await writeGz(
    join(out, 'awards', 'usaspending_transactions_12primes_2021-2025_award_dedup.csv.gz'),
    toCsv(
      keep.map(([h]) => h),
      tx.rows.map((r) => keep.map(([, i]) => r.fields[i] ?? '')),
    ),
  );
  report.push(`awards/12primes: ${tx.rows.length} rows, columns ${keep.length}`);
  await writeGz(
    join(out, 'awards', 'usaspending_contract_awards.json.gz'),
    await readFile(c('usaspending_contract_awards.json'), 'utf8'),
  );
  await writeGz(
    join(out, 'awards', 'usaspending_legacy_datafeed_dod_fy2006_sample999.csv.gz'),
    await readFile(c('usaspending_legacy_datafeed_dod_fy2006_sample999.csv'), 'utf8'),
  );
  await copyBytes(
    c('usaspending_top100_awards_spending_by_award.csv'),
    join(out, 'awards', 'usaspending_top100_awards_spending_by_award.csv'),
  );
  for (const f of [
    'nasa_spending_by_award_contracts.json',
    'nasa_spending_by_award_search_results_contracts.json',
  ]) {
    await copyBytes(c(f), join(out, 'fixtures', f));
  }

  // Companies and aliases
  const secText = await readFile(join(src, 'companies', 'sec_company_tickers_exchange.csv'), 'utf8');
  await writeGz(join(out, 'companies', 'sec_company_tickers_exchange.csv.gz'), secText);
  await copyBytes(
    join(src, 'companies', 'sp500_constituents.csv'),
    join(out, 'companies', 'sp500_constituents.csv'),
  );
  const sec = parseCsv(secText);
  const tickerIdx = sec.header.indexOf('ticker');
  const secTickers = new Set(sec.rows.map((r) => r.fields[tickerIdx] ?? ''));
  const aliases = buildAliases(
    await readFile(join(src, 'companies', 'usaspending_recipient_ticker_map_fy2024.csv'), 'utf8'),
    secTickers,
  );
  await writeText(join(out, 'aliases.csv'), aliases.csv);
  report.push(`aliases.csv: ${aliases.rows} rows`, ...aliases.log.map((l) => `  ${l}`));

  // Candles
  const { series, manifest } = await buildCandles(src);
  for (const [t, rows] of series) {
    await writeGz(join(out, 'candles', `${t}.csv.gz`), candlesToCsv(rows));
    const m = manifest[t];
    if (m)
      report.push(
        `candles/${t}: ${m.rows} rows ${m.first} → ${m.last}; splices ${m.splices.join(' ') || '-'}`,
      );
  }
  await writeText(join(out, 'candles', 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // The wide adjusted closes themselves, which the announcement study prices from: gzip only.
  const wide = 'yfinance_adjclose_wide_41tickers_2000-01-03_2026-04-24.csv';
  await writeGz(
    join(out, 'candles', 'closes', `${wide}.gz`),
    await readFile(join(src, 'candles', 'closes', wide), 'utf8'),
  );
  report.push(`candles/closes/${wide}.gz: gzip of the source`);
  return report;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv[2]) {
    process.stderr.write('usage: build-data.ts SOURCE_DIR [OUT_DIR]  (SOURCE_DIR: the original downloads)\n');
    process.exit(2);
  }
  const src = resolve(process.argv[2]);
  const out = resolve(process.argv[3] ?? join(projectRoot, 'data'));
  const report = await buildData(src, out);
  console.log(report.join('\n'));
}
