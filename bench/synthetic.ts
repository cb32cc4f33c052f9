/**
 * Fills a PostgreSQL database with a synthetic, realistically shaped data set for the benchmarks:
 * N contracts (default 1,000,000) over ~500 tickers of the companies table with a heavy-tailed
 * popularity, ~40 agencies, the 14 classification labels, award dates 2000–2025 and log-normal values;
 * ~90 % resolved to a ticker, each of those with one default-engine (materiality) signal scored by the
 * real engine; one market_regimes row per distinct award date of those (the `regimes` view joins them to
 * the contracts, as migration 008 stores them), and daily candles for every ticker used. Signals are
 * written in computed_at order with time-ordered ids, as the scorer appends them, so the BRIN index on
 * computed_at sees realistic block ranges.
 *
 *   npm run bench:synthetic -- [--count 1000000] [--batch 10000] [--seed 42] [--tickers 500]
 *                              [--matched 0.9] [--no-regimes] [--no-candles] [--keep-indexes] [--reset]
 *
 * DATABASE_URL picks the database; by default the scratch database `market_intel_bench` on
 * 127.0.0.1:5432 is dropped and created anew. Another database must be empty, or pass --reset to
 * truncate its market tables first.
 */
import { materiality } from '../src/domain/engines/materiality.ts';
import { normalizeName } from '../src/domain/names.ts';
import { REGIME_VERSION } from '../src/domain/regimes.ts';
import { CLASSIFICATION_LABELS, type ClassificationLabel, REGIME_NAMES } from '../src/domain/types.ts';
import { DEMO_DATA_DIR } from '../src/pipeline/seed.ts';
import { loadDemoCompanies } from '../src/sources/companies.ts';
import { type Db, openDb } from '../src/store/db.ts';
import { timeOrderedId } from '../src/store/ids.ts';
import { migrate } from '../src/store/migrate.ts';
import { encodeRationale } from '../src/store/rows.ts';
import { insertAliases, upsertCompanies } from '../src/store/writes.ts';
import {
  benchDatabaseUrl,
  ensureDatabase,
  flag,
  fmtInt,
  isDefaultBenchUrl,
  numberArg,
  seededRandom,
  summary,
  table,
} from './common.ts';

const COUNT = Math.floor(numberArg('count', 1_000_000));
const BATCH = Math.max(1, Math.floor(numberArg('batch', 10_000)));
const SEED = Math.floor(numberArg('seed', 42));
const TICKERS = Math.max(1, Math.floor(numberArg('tickers', 500)));
const MATCHED = numberArg('matched', 0.9);
const WITH_REGIMES = !flag('no-regimes');
const WITH_CANDLES = !flag('no-candles');
const KEEP_INDEXES = flag('keep-indexes');
const RESET = flag('reset');
/** Batches in flight at once (each on its own pooled connection). */
const PARALLEL = Math.max(1, Math.floor(numberArg('parallel', 2)));

// ---------------------------------------------------------------- deterministic randomness

const { rand, normal } = seededRandom(SEED);

/** A sampler over weighted items: cumulative weights and a binary search. */
function weighted<T>(items: readonly T[], weights: readonly number[]): () => T {
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) {
    total += w;
    cumulative.push(total);
  }
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 0) < x) lo = mid + 1;
      else hi = mid;
    }
    return items[lo] as T;
  };
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

// ---------------------------------------------------------------- vocabularies

/** [top-tier agency, FPDS code, relative share of awards, sub-agencies]. */
const AGENCIES: readonly (readonly [string, string, number, readonly string[]])[] = [
  [
    'Department of Defense',
    '9700',
    520,
    [
      'Department of the Army',
      'Department of the Navy',
      'Department of the Air Force',
      'Defense Logistics Agency',
      'Defense Information Systems Agency',
      'Missile Defense Agency',
      'Defense Advanced Research Projects Agency',
      'U.S. Special Operations Command',
    ],
  ],
  ['Department of Veterans Affairs', '3600', 70, ['Veterans Affairs']],
  [
    'Department of Health and Human Services',
    '7529',
    55,
    [
      'National Institutes of Health',
      'Centers for Disease Control and Prevention',
      'Food and Drug Administration',
    ],
  ],
  [
    'Department of Homeland Security',
    '7001',
    45,
    ['U.S. Coast Guard', 'U.S. Customs and Border Protection', 'Federal Emergency Management Agency'],
  ],
  [
    'National Aeronautics and Space Administration',
    '8000',
    40,
    ['National Aeronautics and Space Administration'],
  ],
  ['Department of Energy', '8900', 35, ['Department of Energy']],
  [
    'General Services Administration',
    '4732',
    35,
    ['Federal Acquisition Service', 'Public Buildings Service'],
  ],
  ['Department of Justice', '1501', 20, ['Federal Bureau of Investigation', 'Federal Prisons System']],
  ['Department of State', '1900', 20, ['Department of State']],
  ['Department of Transportation', '6920', 18, ['Federal Aviation Administration']],
  ['Department of the Treasury', '2041', 15, ['Internal Revenue Service']],
  ['Department of Agriculture', '12C2', 15, ['Forest Service', 'Agricultural Research Service']],
  ['Department of the Interior', '1406', 14, ['National Park Service', 'Bureau of Reclamation']],
  [
    'Department of Commerce',
    '1330',
    12,
    ['National Oceanic and Atmospheric Administration', 'Census Bureau'],
  ],
  ['Department of Labor', '1605', 8, ['Employment and Training Administration']],
  ['Department of Education', '9100', 6, ['Federal Student Aid']],
  ['Department of Housing and Urban Development', '8620', 5, ['Department of Housing and Urban Development']],
  ['Social Security Administration', '2800', 6, ['Social Security Administration']],
  ['Environmental Protection Agency', '6800', 5, ['Environmental Protection Agency']],
  ['Agency for International Development', '7200', 5, ['Agency for International Development']],
  ['Office of Personnel Management', '2400', 3, ['Office of Personnel Management']],
  ['National Science Foundation', '4900', 3, ['National Science Foundation']],
  ['Nuclear Regulatory Commission', '3100', 2, ['Nuclear Regulatory Commission']],
  ['Small Business Administration', '7300', 2, ['Small Business Administration']],
  ['Securities and Exchange Commission', '5000', 2, ['Securities and Exchange Commission']],
  ['Federal Trade Commission', '2900', 1, ['Federal Trade Commission']],
  [
    'National Archives and Records Administration',
    '8800',
    1,
    ['National Archives and Records Administration'],
  ],
  ['Export-Import Bank of the United States', '8300', 1, ['Export-Import Bank of the United States']],
  ['Government Accountability Office', '0500', 1, ['Government Accountability Office']],
  [
    'U.S. International Development Finance Corporation',
    '7700',
    1,
    ['U.S. International Development Finance Corporation'],
  ],
  ['Consumer Financial Protection Bureau', '955F', 1, ['Consumer Financial Protection Bureau']],
  [
    'Corporation for National and Community Service',
    '9577',
    1,
    ['Corporation for National and Community Service'],
  ],
  ['National Transportation Safety Board', '9508', 1, ['National Transportation Safety Board']],
  ['Tennessee Valley Authority', '6400', 2, ['Tennessee Valley Authority']],
  ['Peace Corps', '1145', 1, ['Peace Corps']],
  ['Federal Communications Commission', '2700', 1, ['Federal Communications Commission']],
  ['Railroad Retirement Board', '6000', 1, ['Railroad Retirement Board']],
  [
    'Court Services and Offender Supervision Agency',
    '9594',
    1,
    ['Court Services and Offender Supervision Agency'],
  ],
  ['Smithsonian Institution', '3300', 1, ['Smithsonian Institution']],
  ['Federal Election Commission', '9506', 1, ['Federal Election Commission']],
  ['U.S. Agency for Global Media', '9568', 1, ['U.S. Agency for Global Media']],
];

/** Relative frequency of each label among awards. */
const LABEL_WEIGHTS: Record<ClassificationLabel, number> = {
  aircraft: 7,
  shipbuilding: 3,
  missiles_munitions: 5,
  space: 3,
  ground_vehicles: 3,
  electronics_comms: 9,
  it_services: 16,
  cybersecurity: 4,
  research_development: 8,
  construction_facilities: 8,
  logistics_supply: 10,
  healthcare: 6,
  professional_services: 12,
  other: 6,
};

/** [description words, NAICS, PSC] per label. */
const LABEL_TEXT: Record<ClassificationLabel, readonly (readonly [string, string, string])[]> = {
  aircraft: [
    ['F-35 LIGHTNING II AIR VEHICLE SUSTAINMENT', '336411', '1510'],
    ['AIRFRAME STRUCTURAL COMPONENTS', '336413', '1560'],
    ['ROTARY WING AIRCRAFT PRODUCTION LOT', '336411', '1520'],
  ],
  shipbuilding: [
    ['DDG 51 CLASS DESTROYER CONSTRUCTION', '336611', '1905'],
    ['SUBMARINE OVERHAUL AND REPAIR', '336611', 'J019'],
  ],
  missiles_munitions: [
    ['STANDARD MISSILE PRODUCTION', '336414', '1410'],
    ['155MM ARTILLERY PROJECTILES', '332993', '1320'],
  ],
  space: [
    ['SATELLITE BUS AND PAYLOAD INTEGRATION', '336414', '1820'],
    ['LAUNCH SERVICES', '481212', 'V126'],
  ],
  ground_vehicles: [
    ['JOINT LIGHT TACTICAL VEHICLE PRODUCTION', '336992', '2320'],
    ['ABRAMS TANK UPGRADE KITS', '336992', '2350'],
  ],
  electronics_comms: [
    ['TACTICAL RADIO SYSTEMS', '334220', '5820'],
    ['RADAR SYSTEM SPARE PARTS', '334511', '5840'],
  ],
  it_services: [
    ['ENTERPRISE IT MODERNIZATION SERVICES', '541512', 'D399'],
    ['CLOUD HOSTING AND MIGRATION', '518210', 'DA01'],
    ['SOFTWARE DEVELOPMENT AND SUSTAINMENT', '541511', 'D302'],
  ],
  cybersecurity: [
    ['CYBERSECURITY OPERATIONS CENTER SUPPORT', '541519', 'D310'],
    ['ZERO TRUST ARCHITECTURE IMPLEMENTATION', '541512', 'DJ01'],
  ],
  research_development: [
    ['APPLIED RESEARCH IN HYPERSONICS', '541715', 'AC12'],
    ['ADVANCED TECHNOLOGY DEVELOPMENT', '541715', 'AC13'],
  ],
  construction_facilities: [
    ['MILITARY FAMILY HOUSING CONSTRUCTION', '236220', 'Y1AA'],
    ['AIRFIELD PAVEMENT REPAIR', '237310', 'Z2LB'],
  ],
  logistics_supply: [
    ['FUEL SUPPLY AND DISTRIBUTION', '424720', '9130'],
    ['SUBSISTENCE PRIME VENDOR', '424410', '8970'],
  ],
  healthcare: [
    ['PHARMACEUTICALS PRIME VENDOR', '325412', '6505'],
    ['MEDICAL SERVICES TRICARE', '621111', 'Q201'],
  ],
  professional_services: [
    ['PROGRAM MANAGEMENT SUPPORT SERVICES', '541611', 'R408'],
    ['ENGINEERING AND TECHNICAL SERVICES', '541330', 'R425'],
  ],
  other: [
    ['MISCELLANEOUS ITEMS', '339999', '9999'],
    ['JANITORIAL SERVICES', '561720', 'S201'],
  ],
};

/** The demo primes head the popularity ranking, as they do in real award data. */
const PRIMES = ['LMT', 'RTX', 'BA', 'GD', 'NOC', 'HII', 'LHX', 'LDOS', 'SAIC', 'CACI', 'BAH', 'PLTR'];

const DAY_MS = 86_400_000;
const SIGNAL_SPAN_MS = 400 * DAY_MS;
const FIRST_DAY = Date.UTC(2000, 0, 1);
const LAST_DAY = Date.UTC(2025, 11, 31);
const SPAN_DAYS = Math.round((LAST_DAY - FIRST_DAY) / DAY_MS);
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Award dates lean to recent years (more awards are published now than in 2000). */
function awardDay(): number {
  const u = rand();
  const t = rand() < 0.4 ? u : Math.sqrt(u);
  return FIRST_DAY + Math.floor(t * SPAN_DAYS) * DAY_MS;
}

/** Log-normal award value: median ≈ $250k, a long tail into the billions. */
function awardValue(): number {
  return Math.max(100, Math.min(50_000_000_000, Math.round(Math.exp(Math.log(250_000) + 2.2 * normal()))));
}

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
const uei = () => Array.from({ length: 12 }, () => ALNUM[Math.floor(rand() * ALNUM.length)]).join('');
const WORDS = [
  'ACME',
  'SUMMIT',
  'PIONEER',
  'FEDERAL',
  'ATLAS',
  'VECTOR',
  'LIBERTY',
  'BLUE RIDGE',
  'KEYSTONE',
  'HORIZON',
];
const SUFFIX = ['LLC', 'INC', 'CORP', 'GROUP LLC', 'SOLUTIONS INC', 'TECHNOLOGIES LLC', 'SERVICES CORP'];

// ---------------------------------------------------------------- regimes

interface DayRegime {
  asOf: string;
  dominant: string;
  scores: string;
  features: string;
}

function regimeRow(asOf: string, dominant: (typeof REGIME_NAMES)[number]): DayRegime {
  const raw = REGIME_NAMES.map(() => rand());
  raw[REGIME_NAMES.indexOf(dominant)] = 2 + rand();
  const total = raw.reduce((a, b) => a + b, 0);
  const scores = Object.fromEntries(
    REGIME_NAMES.map((n, k) => [n, Math.round(((raw[k] ?? 0) / total) * 1e4) / 1e4]),
  );
  const features = {
    spy_ret_63d: Math.round(normal() * 800) / 1e4,
    spy_vol_21d: Math.round((0.1 + rand() * 0.3) * 1e4) / 1e4,
    spy_above_sma200: rand() < 0.7 ? 1 : 0,
    xli_rel_63d: Math.round(normal() * 300) / 1e4,
    ita_rel_63d: Math.round(normal() * 300) / 1e4,
  };
  return { asOf, dominant, scores: JSON.stringify(scores), features: JSON.stringify(features) };
}

/**
 * The regime of every calendar day of the span. A regime is the benchmarks' state on the last weekday
 * on or before the day (its as_of, shared by a weekend and the Friday before it), and it persists for
 * weeks as market regimes do (a switch on ~3 % of days), with long-run shares 45/20/15/20 %.
 */
function regimeCalendar(): DayRegime[] {
  const dominantOf = weighted(REGIME_NAMES, [45, 20, 15, 20]);
  let dominant = dominantOf();
  let current: DayRegime | undefined;
  const days: DayRegime[] = [];
  for (let d = 0; d <= SPAN_DAYS; d++) {
    const ms = FIRST_DAY + d * DAY_MS;
    const dow = new Date(ms).getUTCDay();
    const weekday = dow !== 0 && dow !== 6;
    if (weekday || current === undefined) {
      if (rand() < 0.03) dominant = dominantOf();
      const asOf = weekday ? ms : ms - (dow === 0 ? 2 : 1) * DAY_MS;
      current = regimeRow(isoDate(asOf), dominant);
    }
    days.push(current);
  }
  return days;
}

/** The regime row of an award day the first time the day is seen, then undefined (one row per date). */
function firstRegimeOfDay(): (day: number) => DayRegime | undefined {
  const calendar = regimeCalendar();
  const written = new Set<number>();
  return (day) => {
    if (written.has(day)) return undefined;
    written.add(day);
    return calendar[Math.round((day - FIRST_DAY) / DAY_MS)];
  };
}

// ---------------------------------------------------------------- setup

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Company {
  ticker: string;
  name: string;
  sector: string | null;
  industry: string | null;
}

async function loadCompanies(db: Db): Promise<void> {
  const started = Date.now();
  try {
    const { companies, aliases } = await loadDemoCompanies(DEMO_DATA_DIR);
    for (let i = 0; i < companies.length; i += 5000) await upsertCompanies(db, companies.slice(i, i + 5000));
    const known = new Set(companies.map((c) => c.ticker));
    await insertAliases(
      db,
      aliases
        .filter((a) => known.has(a.ticker))
        .map((a) => ({ aliasNorm: normalizeName(a.alias), ticker: a.ticker, source: a.source })),
    );
    log(`companies: ${fmtInt(companies.length)} loaded from ${DEMO_DATA_DIR} in ${Date.now() - started} ms`);
  } catch (error) {
    const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')) as [
      { n: number },
    ];
    if (n > 0) {
      log(
        `companies: demo data unavailable (${(error as Error).message}); using the ${n} already in the table`,
      );
      return;
    }
    log(
      `companies: demo data unavailable (${(error as Error).message}); generating ${TICKERS} synthetic companies`,
    );
    const rows = Array.from({ length: TICKERS }, (_, i) => ({
      ticker: `SYN${i}`,
      name: `${pick(WORDS)} ${pick(SUFFIX)} ${i}`,
      cik: String(1_000_000 + i).padStart(10, '0'),
      exchange: 'NYSE',
      sector: 'Industrials',
      industry: 'Aerospace & Defense',
    }));
    await upsertCompanies(db, rows);
  }
}

/** ~TICKERS companies, S&P 500 members first (they carry a sector), the demo primes at the head. */
async function chooseTickers(db: Db): Promise<Company[]> {
  const rows = await db.query<Company>(
    `SELECT ticker, name, sector, industry FROM companies
     WHERE ticker NOT IN ('SPY', 'XLI', 'ITA')
     ORDER BY (sector IS NULL), md5(ticker || $1) LIMIT $2`,
    [String(SEED), TICKERS],
  );
  const head = PRIMES.flatMap((t) => rows.filter((r) => r.ticker === t));
  const rest = rows.filter((r) => !PRIMES.includes(r.ticker));
  return [...head, ...rest];
}

async function dropSecondaryIndexes(db: Db): Promise<string[]> {
  const rows = await db.query<{ indexname: string; indexdef: string }>(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
     WHERE i.schemaname = 'public' AND i.tablename IN ('contracts', 'signals', 'market_regimes', 'candles')
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  for (const r of rows) await db.exec(`DROP INDEX ${r.indexname}`);
  return rows.map((r) => r.indexdef);
}

// ---------------------------------------------------------------- generation

interface Batch {
  contracts: unknown[][];
  signals: unknown[][];
  regimes: unknown[][];
}

function columns(width: number): unknown[][] {
  return Array.from({ length: width }, () => []);
}

function makeBatch(
  start: number,
  size: number,
  tickerOf: () => Company,
  agencyOf: () => (typeof AGENCIES)[number],
  labelOf: () => ClassificationLabel,
  trailingOf: Map<string, { count: number; medianValue: number }>,
  regimeOf: (day: number) => DayRegime | undefined,
  nowMs: number,
): Batch {
  const contracts = columns(16);
  const signals = columns(9);
  const regimes = columns(5);
  const push = (cols: unknown[][], values: unknown[]) => {
    for (let i = 0; i < values.length; i++) cols[i]?.push(values[i]);
  };
  for (let i = start; i < start + size; i++) {
    const [agency, code, , subs] = agencyOf();
    const label = labelOf();
    const [text, naics, psc] = pick(LABEL_TEXT[label]);
    const day = awardDay();
    const awardDate = isoDate(day);
    const value = awardValue();
    const matched = rand() < MATCHED;
    const company = matched ? tickerOf() : null;
    const method = company
      ? rand() < 0.7
        ? 'exact_alias'
        : rand() < 0.5
          ? 'parent_alias'
          : 'fuzzy'
      : 'none';
    const confidence =
      method === 'exact_alias'
        ? 1
        : method === 'parent_alias'
          ? 0.95
          : method === 'fuzzy'
            ? 0.8 + 0.15 * rand()
            : 0.5 * rand();
    const id = `CONT_AWD_SYN${i.toString(36).toUpperCase().padStart(6, '0')}_${code}_-NONE-_-NONE-`;
    const recipient = company ? company.name.toUpperCase() : `${pick(WORDS)} ${pick(SUFFIX)} ${i % 50_000}`;
    const modified = new Date(
      Math.min(nowMs, day + Math.floor(rand() * 400) * DAY_MS + 3_600_000),
    ).toISOString();
    push(contracts, [
      id,
      company?.ticker ?? null,
      recipient,
      uei(),
      rand() < 0.3 ? recipient : null,
      awardDate,
      value,
      agency,
      subs.length ? pick(subs) : null,
      `${text} ${awardDate.slice(0, 4)}`,
      naics,
      psc,
      label,
      Math.round(confidence * 1000) / 1000,
      method,
      modified,
    ]);
    if (!company) continue;

    const trailing = trailingOf.get(company.ticker) ?? { count: 0, medianValue: 0 };
    const count = Math.round(trailing.count * (0.5 + rand()));
    const medianValue = trailing.medianValue * (0.5 + rand());
    const output = materiality.score({
      contract: {
        id,
        ticker: company.ticker,
        value,
        awardDate,
        awardingAgency: agency,
        classification: label,
        matchConfidence: confidence,
      },
      company: { sector: company.sector, industry: company.industry },
      trailing: { count, totalValue: count * medianValue * 2.5, medianValue },
      regime: null,
    });
    // Spread over the last 400 days in generation order (plus a few minutes of jitter), as appended.
    const computedMs = Math.floor(nowMs - SIGNAL_SPAN_MS * (1 - i / COUNT) - rand() * 300_000);
    const computedAt = new Date(computedMs).toISOString();
    push(signals, [
      timeOrderedId(computedMs),
      id,
      company.ticker,
      output.scores.signal,
      output.scores.importance,
      output.scores.confidence,
      output.scores.risk,
      encodeRationale(output.rationale),
      computedAt,
    ]);
    const regime = WITH_REGIMES ? regimeOf(day) : undefined;
    if (regime) push(regimes, [awardDate, regime.asOf, regime.dominant, regime.scores, regime.features]);
  }
  return { contracts, signals, regimes };
}

async function insertBatch(db: Db, batch: Batch): Promise<void> {
  const [engineName, engineVersion, engineTier] = [materiality.name, materiality.version, materiality.tier];
  await db.query(
    `INSERT INTO contracts (id, ticker, recipient_name, recipient_uei, parent_name, award_date, contract_value,
       awarding_agency, awarding_sub_agency, description, naics, psc, nlp_classification, match_confidence,
       match_method, source_modified_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::date[], $7::int8[],
       $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::float8[], $15::text[],
       $16::timestamptz[])`,
    batch.contracts,
  );
  if (batch.signals[0]?.length) {
    await db.query(
      `INSERT INTO signals (id, contract_id, ticker, engine_name, engine_version, engine_tier, signal_score,
         importance_score, confidence_score, risk_score, rationale, computed_at)
       SELECT u.id, u.contract_id, u.ticker, $10, $11, $12, u.s, u.i, u.c, u.r, u.rationale, u.computed_at
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::int[], $8::text[],
         $9::timestamptz[]) AS u(id, contract_id, ticker, s, i, c, r, rationale, computed_at)`,
      [...batch.signals.slice(0, 9), engineName, engineVersion, engineTier],
    );
  }
  if (WITH_REGIMES && batch.regimes[0]?.length) {
    await db.query(
      `INSERT INTO market_regimes (award_date, as_of, benchmark, dominant, scores, features, engine_version)
       SELECT u.award_date, u.as_of, 'SPY', u.dominant, u.scores, u.features, $6
       FROM unnest($1::date[], $2::date[], $3::text[], $4::jsonb[], $5::jsonb[])
         AS u(award_date, as_of, dominant, scores, features)`,
      [...batch.regimes.slice(0, 5), REGIME_VERSION],
    );
  }
}

/** Business-day random walks for the chosen tickers (and the three benchmarks). */
async function insertCandles(db: Db, tickers: string[]): Promise<number> {
  const days: string[] = [];
  for (let t = Date.UTC(2000, 0, 3); t <= LAST_DAY; t += DAY_MS) {
    const dow = new Date(t).getUTCDay();
    if (dow !== 0 && dow !== 6) days.push(isoDate(t));
  }
  let total = 0;
  let inFlight: Promise<unknown>[] = [];
  for (const ticker of tickers) {
    const cols = columns(7);
    let close = 10 + rand() * 190;
    const vol = 0.01 + rand() * 0.02;
    for (const date of days) {
      const open = close * (1 + normal() * vol * 0.3);
      close = Math.max(0.5, close * Math.exp(normal() * vol + 0.0003));
      const high = Math.max(open, close) * (1 + rand() * vol);
      const low = Math.min(open, close) * (1 - rand() * vol);
      const r = (x: number) => Math.round(x * 1e4) / 1e4;
      const row = [date, r(open), r(high), r(low), r(close), r(close * 0.97), Math.floor(1e5 + rand() * 5e6)];
      for (let k = 0; k < 7; k++) cols[k]?.push(row[k]);
    }
    inFlight.push(
      db.query(
        `INSERT INTO candles (ticker, date, open, high, low, close, adj_close, volume)
         SELECT $1, * FROM unnest($2::date[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::int8[])
         ON CONFLICT DO NOTHING`,
        [ticker, ...cols],
      ),
    );
    total += days.length;
    if (inFlight.length >= PARALLEL) {
      await Promise.all(inFlight);
      inFlight = [];
    }
  }
  await Promise.all(inFlight);
  return total;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  const safeUrl = url.replace(/:[^:@/]*@/, ':***@');
  const started = Date.now();
  const state = await ensureDatabase(url, { recreate: isDefaultBenchUrl(url) });
  log(`database ${safeUrl}: ${isDefaultBenchUrl(url) ? 'recreated' : state}`);
  const db = await openDb({ databaseUrl: url, dataDir: '' });
  try {
    const applied = await migrate(db);
    log(`migrations: ${applied.length ? applied.join(', ') : 'up to date'}`);
    const [{ n: existing }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts')) as [
      { n: number },
    ];
    if (existing > 0) {
      if (!RESET)
        throw new Error(`${safeUrl} already holds ${existing} contracts; pass --reset to truncate them`);
      // Signals are emptied with contracts by their truncate trigger.
      await db.exec('TRUNCATE contracts, market_regimes, candles CASCADE');
      log(`truncated ${fmtInt(existing)} contracts and their signals, market regimes and candles`);
    }

    await loadCompanies(db);
    const companies = await chooseTickers(db);
    if (companies.length === 0) throw new Error('no companies to draw tickers from');
    // Zipf-like popularity: rank r gets weight 1 / r^1.1, so the top dozen tickers take ~35 % of awards.
    const popularity = companies.map((_, r) => 1 / (r + 1) ** 1.1);
    const popTotal = popularity.reduce((a, b) => a + b, 0);
    const tickerOf = weighted(companies, popularity);
    const agencyOf = weighted(
      AGENCIES,
      AGENCIES.map((a) => a[2]),
    );
    const labelOf = weighted(
      CLASSIFICATION_LABELS,
      CLASSIFICATION_LABELS.map((l) => LABEL_WEIGHTS[l]),
    );
    // Rough per-ticker trailing-year statistics, so engine scores spread like real ones.
    const perYear = (COUNT * MATCHED) / (SPAN_DAYS / 365);
    const trailingOf = new Map(
      companies.map((c, r) => [
        c.ticker,
        { count: Math.round((perYear * (popularity[r] ?? 0)) / popTotal), medianValue: 250_000 },
      ]),
    );
    log(
      `drawing from ${companies.length} tickers (top: ${companies
        .slice(0, 5)
        .map((c) => c.ticker)
        .join(', ')}), ${AGENCIES.length} agencies, ${CLASSIFICATION_LABELS.length} labels`,
    );

    const regimeOf = firstRegimeOfDay();
    const dropped = KEEP_INDEXES ? [] : await dropSecondaryIndexes(db);
    if (dropped.length) log(`dropped ${dropped.length} secondary indexes for the load (recreated after)`);

    const nowMs = Date.now();
    const loadStarted = Date.now();
    let done = 0;
    let signals = 0;
    let regimes = 0;
    let lastReport = 0;
    const inFlight = new Set<Promise<void>>();
    for (let start = 0; start < COUNT; start += BATCH) {
      const size = Math.min(BATCH, COUNT - start);
      const batch = makeBatch(start, size, tickerOf, agencyOf, labelOf, trailingOf, regimeOf, nowMs);
      const nSignals = batch.signals[0]?.length ?? 0;
      const nRegimes = batch.regimes[0]?.length ?? 0;
      const p: Promise<void> = insertBatch(db, batch).then(() => {
        inFlight.delete(p);
        done += size;
        signals += nSignals;
        regimes += nRegimes;
        const elapsed = (Date.now() - loadStarted) / 1000;
        if (done - lastReport >= 50_000 || done === COUNT) {
          lastReport = done;
          log(
            `contracts ${fmtInt(done)}/${fmtInt(COUNT)} (${((100 * done) / COUNT).toFixed(0)}%)  ` +
              `signals ${fmtInt(signals)}  ${fmtInt(done / elapsed)} contracts/s  ` +
              `${fmtInt((done + signals + regimes) / elapsed)} rows/s`,
          );
        }
      });
      inFlight.add(p);
      if (inFlight.size >= PARALLEL) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const loadSeconds = (Date.now() - loadStarted) / 1000;

    let candleRows = 0;
    let candleSeconds = 0;
    if (WITH_CANDLES) {
      const t = Date.now();
      candleRows = await insertCandles(db, [...companies.map((c) => c.ticker), 'SPY', 'XLI', 'ITA']);
      candleSeconds = (Date.now() - t) / 1000;
      log(
        `candles: ${fmtInt(candleRows)} rows in ${candleSeconds.toFixed(1)} s (${fmtInt(candleRows / candleSeconds)} rows/s)`,
      );
    }

    const indexStarted = Date.now();
    for (const def of dropped) await db.exec(def);
    const indexSeconds = (Date.now() - indexStarted) / 1000;
    if (dropped.length) log(`recreated ${dropped.length} indexes in ${indexSeconds.toFixed(1)} s`);

    const analyzeStarted = Date.now();
    await db.exec('VACUUM (ANALYZE) contracts, signals, market_regimes, candles, companies, company_aliases');
    const analyzeSeconds = (Date.now() - analyzeStarted) / 1000;

    const sizes = await db.query<{ name: string; rows: number; bytes: number }>(
      `SELECT c.relname AS name, c.reltuples::bigint AS rows, pg_total_relation_size(c.oid) AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r'
         AND c.relname IN ('companies', 'company_aliases', 'contracts', 'signals', 'market_regimes', 'candles')
       ORDER BY c.relname`,
    );
    const [{ bytes: dbBytes }] = (await db.query<{ bytes: number }>(
      'SELECT pg_database_size(current_database()) AS bytes',
    )) as [{ bytes: number }];
    const total = (Date.now() - started) / 1000;
    log(
      summary('bench:synthetic', [
        `database              ${safeUrl}`,
        `contracts             ${fmtInt(COUNT)} (${fmtInt(signals)} with a ticker, ${(100 * (signals / COUNT)).toFixed(1)}%)`,
        `signals (materiality) ${fmtInt(signals)}  engine ${materiality.name} ${materiality.version}`,
        `market regimes        ${fmtInt(regimes)} (one per award date with a ticker)`,
        `candles               ${fmtInt(candleRows)}`,
        `contract load         ${loadSeconds.toFixed(1)} s = ${fmtInt(COUNT / loadSeconds)} contracts/s, ` +
          `${fmtInt((COUNT + signals + regimes) / loadSeconds)} rows/s (contracts+signals+regimes), batch ${fmtInt(BATCH)} x ${PARALLEL}`,
        `candle load           ${candleSeconds.toFixed(1)} s`,
        `index build           ${indexSeconds.toFixed(1)} s (${dropped.length} indexes)`,
        `vacuum analyze        ${analyzeSeconds.toFixed(1)} s`,
        `total                 ${total.toFixed(1)} s`,
        `database size         ${(dbBytes / 1024 / 1024).toFixed(0)} MB`,
        '',
        table(
          ['table', 'rows (est.)', 'size'],
          sizes.map((s) => [s.name, fmtInt(s.rows), `${(s.bytes / 1024 / 1024).toFixed(0)} MB`]),
        ),
      ]),
    );
  } finally {
    await db.close();
  }
}

await main();
