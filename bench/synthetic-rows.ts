/**
 * The rows of bench/synthetic.ts as COPY text: the vocabularies, the samplers and the generation of one
 * chunk of USAspending awards with their signals. A chunk is a pure function of (seed, chunk index), so
 * the same data set comes out whether one thread or several workers (bench/synthetic-worker.ts) build
 * it, in any order; the writer puts the chunks in the tables in chunk order.
 */
import { announcementDv } from '../src/domain/engines/announcement-dv.ts';
import { announcementSize } from '../src/domain/engines/announcement-size.ts';
import { materiality } from '../src/domain/engines/materiality.ts';
import { regimeAware } from '../src/domain/engines/regime-aware.ts';
import { REGIME_VERSION } from '../src/domain/regimes.ts';
import {
  CLASSIFICATION_LABELS,
  type ClassificationLabel,
  type EngineOutput,
  engineKey,
  REGIME_NAMES,
  type RegimeName,
  type RegimeResult,
} from '../src/domain/types.ts';
import { encodeRationale } from '../src/store/rows.ts';
import { seededRandom } from './common.ts';

// ---------------------------------------------------------------- vocabularies

/** [top-tier agency, FPDS code, relative share of awards, sub-agencies]. */
export const AGENCIES: readonly (readonly [string, string, number, readonly string[]])[] = [
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
export const LABEL_TEXT: Record<ClassificationLabel, readonly (readonly [string, string, string])[]> = {
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
export const PRIMES = ['LMT', 'RTX', 'BA', 'GD', 'NOC', 'HII', 'LHX', 'LDOS', 'SAIC', 'CACI', 'BAH', 'PLTR'];

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
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

// ---------------------------------------------------------------- calendar

export const DAY_MS = 86_400_000;
/** Award dates span 2001-01-01 … 2026-10-31: the DoD award history the issue asks for. */
export const FIRST_DAY = Date.UTC(2001, 0, 1);
export const LAST_DAY = Date.UTC(2026, 9, 31);
export const SPAN_DAYS = Math.round((LAST_DAY - FIRST_DAY) / DAY_MS);
/** The data set's clock: fixed, so a seed gives the same rows on any day it is built. */
export const NOW_MS = Date.UTC(2026, 10, 1);
/** Signals are spread over the 400 days before NOW_MS, in the order they are written. */
export const SIGNAL_SPAN_MS = 400 * DAY_MS;
export const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const isoTime = (ms: number): string => new Date(ms).toISOString();
export const dayIndex = (ms: number): number => Math.round((ms - FIRST_DAY) / DAY_MS);

// ---------------------------------------------------------------- the shared inputs of every chunk

export interface Company {
  ticker: string;
  name: string;
  sector: string | null;
  industry: string | null;
}

/** What every chunk is generated from: built once by the orchestrator, handed to each worker. */
export interface GenSpec {
  seed: number;
  /** USAspending awards of the bulk phase (chunks cover [0, bulk)). */
  bulk: number;
  /** Share of awards resolved to a ticker. */
  matched: number;
  /** Chosen companies, most popular first. */
  companies: Company[];
  /** Each ticker's relative popularity (awards drawn ∝ weight). */
  popularity: number[];
  /** Awards per year of each ticker, for the engines' trailing statistics. */
  perYear: number[];
  /** The regime of each calendar day from FIRST_DAY (null: none stored). */
  regimes: (RegimeResult | null)[];
}

/** A sampler over weighted items: cumulative weights and a binary search. */
export function sampler<T>(items: readonly T[], weights: readonly number[]): (u: number) => T {
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) {
    total += w;
    cumulative.push(total);
  }
  return (u) => {
    const x = u * total;
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

export const agencyOf = sampler(
  AGENCIES,
  AGENCIES.map((a) => a[2]),
);
export const labelOf = sampler(
  CLASSIFICATION_LABELS,
  CLASSIFICATION_LABELS.map((l) => LABEL_WEIGHTS[l]),
);

// ---------------------------------------------------------------- COPY text

/** A text value as a COPY text field: backslash, tab, LF and CR escaped; null is \N. */
export function copyText(value: string | null): string {
  if (value === null) return '\\N';
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/[\\\t\n\r]/g, (c) =>
        c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
      )
    : value;
}

/** A seeded UUIDv7: 48 bits of milliseconds, then random bits from `rand` (timeOrderedId's layout). */
export function seededUuid7(ms: number, rand: () => number): string {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const a = Math.floor(rand() * 0x1000000);
  const b = Math.floor(rand() * 0x1000000);
  const c = Math.floor(rand() * 0x1000000);
  const d = Math.floor(rand() * 0x1000000);
  const time = hex(ms, 12);
  return (
    `${time.slice(0, 8)}-${time.slice(8)}-7${hex(a & 0xfff, 3)}-${hex(0x8000 | (b & 0x3fff), 4)}-` +
    `${hex(c, 6)}${hex(d, 6)}`
  );
}

/** The columns each COPY of contracts writes, in order (the bulk awards' and the announcement phase's). */
export const CONTRACT_COLUMNS = [
  'id',
  'ticker',
  'recipient_name',
  'recipient_uei',
  'parent_name',
  'award_date',
  'contract_value',
  'awarding_agency',
  'awarding_sub_agency',
  'description',
  'naics',
  'psc',
  'nlp_classification',
  'match_confidence',
  'match_method',
  'source_modified_at',
  'first_seen_at',
  'updated_at',
  'announced_at',
  'available_at',
  'linked_id',
  'link_method',
  'source_url',
  'entity_id',
  'entity_name',
  'owner_name',
  'series_ticker',
  'resolution_basis',
  'no_ticker_reason',
  'resolver_version',
] as const;

export const SIGNAL_COLUMNS = [
  'id',
  'contract_id',
  'ticker',
  'engine_name',
  'engine_version',
  'engine_tier',
  'signal_score',
  'importance_score',
  'confidence_score',
  'risk_score',
  'rationale',
  'computed_at',
  'available_at',
] as const;

export interface ContractRowValues {
  id: string;
  ticker: string | null;
  recipient: string;
  uei: string;
  parent: string | null;
  awardDate: string;
  value: number;
  agency: string;
  subAgency: string | null;
  description: string;
  naics: string | null;
  psc: string | null;
  label: ClassificationLabel;
  confidence: number;
  method: string;
  modifiedAt: string | null;
  firstSeenAt: string;
  announcedAt: string | null;
  availableAt: string;
  linkedId: string | null;
  linkMethod: string | null;
  sourceUrl: string | null;
  company: Company | null;
  /** Identified but not listed on the date (ticker null): why. */
  noTickerReason: string | null;
  basis: 'award_date' | 'announcement_date';
}

export const RESOLVER_VERSION = 'pit-2';

/** One contracts line of COPY text, in CONTRACT_COLUMNS order. */
export function contractLine(c: ContractRowValues): string {
  const owner = c.company ? copyText(c.company.name) : '\\N';
  const entity = c.company
    ? `syn_${c.company.ticker.toLowerCase()}\t${owner}\t${owner}\t${copyText(c.company.ticker)}`
    : c.noTickerReason
      ? `syn_private_${c.uei.toLowerCase()}\t${copyText(c.recipient)}\t${copyText(c.recipient)}\t\\N`
      : '\\N\t\\N\t\\N\t\\N';
  return (
    `${c.id}\t${c.ticker === null ? '\\N' : copyText(c.ticker)}\t${copyText(c.recipient)}\t${c.uei}\t` +
    `${copyText(c.parent)}\t${c.awardDate}\t${c.value}\t${c.agency}\t${copyText(c.subAgency)}\t` +
    `${copyText(c.description)}\t${c.naics ?? '\\N'}\t${c.psc ?? '\\N'}\t${c.label}\t${c.confidence}\t` +
    `${c.method}\t${c.modifiedAt ?? '\\N'}\t${c.firstSeenAt}\t${c.firstSeenAt}\t${c.announcedAt ?? '\\N'}\t` +
    `${c.availableAt}\t${c.linkedId ?? '\\N'}\t${c.linkMethod ?? '\\N'}\t${c.sourceUrl ?? '\\N'}\t${entity}\t` +
    `${c.basis}\t${c.noTickerReason ?? '\\N'}\t${RESOLVER_VERSION}\n`
  );
}

/** One signals line of COPY text, in SIGNAL_COLUMNS order. */
export function signalLine(
  id: string,
  contractId: string,
  ticker: string,
  engine: { name: string; version: string; tier: string },
  output: EngineOutput,
  computedAt: string,
  /** The contract's (migration 028). */
  availableAt: string,
): string {
  const s = output.scores;
  return (
    `${id}\t${contractId}\t${copyText(ticker)}\t${engine.name}\t${engine.version}\t${engine.tier}\t` +
    `${s.signal}\t${s.importance}\t${s.confidence}\t${s.risk}\t${copyText(encodeRationale(output.rationale))}\t` +
    `${computedAt}\t${availableAt}\n`
  );
}

// ---------------------------------------------------------------- shared draws

/** The random draws of one generator: a stream of its own per chunk. */
export class Draws {
  readonly rand: () => number;
  readonly normal: () => number;
  constructor(seed: number) {
    const r = seededRandom(seed);
    this.rand = r.rand;
    this.normal = r.normal;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)] as T;
  }

  /**
   * The award date of the bulk phase's `at`-th award of `of`: dates lean to recent years (more awards
   * are published now than in 2001: density 0.4 + 1.2 t over the span), in date order with a few days of jitter, as a history
   * loaded file by file and then appended daily lies in the table.
   */
  awardDayInOrder(at: number, of: number): number {
    const t = Math.min(1, Math.max(0, at / of));
    const x = (-0.4 + Math.sqrt(0.16 + 2.4 * t)) / 1.2;
    const jitter = Math.floor((this.rand() - 0.5) * 6);
    const k = Math.min(SPAN_DAYS, Math.max(0, Math.floor(x * SPAN_DAYS) + jitter));
    return FIRST_DAY + k * DAY_MS;
  }

  /** Log-normal award value: median ≈ $250k, a long tail into the billions. */
  awardValue(median = 250_000, sigma = 2.2): number {
    return Math.max(
      100,
      Math.min(50_000_000_000, Math.round(Math.exp(Math.log(median) + sigma * this.normal()))),
    );
  }

  uei(): string {
    let out = '';
    for (let k = 0; k < 12; k++) out += ALNUM[Math.floor(this.rand() * ALNUM.length)];
    return out;
  }

  /** How the recipient was resolved and how sure: most by an exact alias. */
  match(matched: boolean): { method: string; confidence: number } {
    if (!matched) return { method: 'none', confidence: Math.round(500 * this.rand()) / 1000 };
    const u = this.rand();
    if (u < 0.7) return { method: 'exact_alias', confidence: 1 };
    if (u < 0.85) return { method: 'parent_alias', confidence: 0.95 };
    return { method: 'fuzzy', confidence: Math.round(1000 * (0.8 + 0.15 * this.rand())) / 1000 };
  }

  unmatchedName(i: number): string {
    return `${this.pick(WORDS)} ${this.pick(SUFFIX)} ${i % 50_000}`;
  }
}

/** A chunk's own seed: any chunk can be generated alone, by any worker. */
export const chunkSeed = (seed: number, chunk: number): number =>
  (Math.imul(seed, 0x9e3779b1) ^ (chunk + 1)) >>> 0;

/** The trailing-year statistics the engines compare an award with (drawn around the ticker's rate). */
export function trailingOf(
  perYear: number,
  d: Draws,
): { count: number; totalValue: number; medianValue: number } {
  const count = Math.round(perYear * (0.5 + d.rand()));
  const medianValue = 250_000 * (0.5 + d.rand());
  return { count, totalValue: count * medianValue * 2.5, medianValue };
}

const MATERIALITY_KEY = engineKey(materiality);

/** Materiality and regime-aware (built on it, as the pipeline scores an event with both). */
export function scoreBoth(
  input: Parameters<typeof materiality.score>[0],
): [materiality: EngineOutput, regimeAware: EngineOutput] {
  const base = materiality.score(input);
  return [base, regimeAware.score(input, new Map([[MATERIALITY_KEY, base]]))];
}

// ---------------------------------------------------------------- the bulk phase: one chunk

/**
 * COPY text written straight into one growing buffer: a line is garbage as soon as it is written, so a
 * chunk's tens of megabytes never live as strings for the young-generation collections to copy (which
 * took half the generator's time when the chunk was an array of lines).
 */
export class TextSink {
  private buffer: Buffer;
  private length = 0;
  rows = 0;

  /** `bytes`: the expected size (growing copies what was written). */
  constructor(bytes: number) {
    this.buffer = Buffer.alloc(bytes);
  }

  line(text: string): void {
    if (this.length + 3 * text.length > this.buffer.length) {
      const grown = Buffer.alloc(Math.max(2 * this.buffer.length, this.length + 3 * text.length));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, this.length);
    this.rows += 1;
  }

  /** The text written, over a memory of its own (large buffers are never pooled): transferable. */
  take(): Uint8Array {
    return new Uint8Array(this.buffer.buffer, this.buffer.byteOffset, this.length);
  }
}

export interface Chunk {
  index: number;
  contracts: Uint8Array;
  signals: Uint8Array;
  contractRows: number;
  signalRows: number;
}

/**
 * USAspending awards [start, start + size) of the bulk phase, with a materiality and a regime-aware
 * signal for each award resolved to a ticker. Signals are stamped in award-index order across the
 * SIGNAL_SPAN_MS before NOW_MS, as a scorer appending them would.
 */
export function bulkChunk(spec: GenSpec, index: number, start: number, size: number): Chunk {
  const d = new Draws(chunkSeed(spec.seed, index));
  const tickerOf = sampler(
    spec.companies.map((_, k) => k),
    spec.popularity,
  );
  // ≈ 420 bytes a contract and 1,400 of signals a contract (two, with their rationales).
  const contracts = new TextSink(size * 480);
  const signals = new TextSink(size * 1500);
  for (let i = start; i < start + size; i++) {
    const [agency, code, , subs] = agencyOf(d.rand());
    const label = labelOf(d.rand());
    const [text, naics, psc] = d.pick(LABEL_TEXT[label]);
    const day = d.awardDayInOrder(i, spec.bulk);
    const awardDate = isoDate(day);
    const value = d.awardValue();
    const matched = d.rand() < spec.matched;
    const rank = matched ? tickerOf(d.rand()) : -1;
    const company = rank >= 0 ? (spec.companies[rank] ?? null) : null;
    const { method, confidence } = d.match(company !== null);
    const id = `CONT_AWD_SYN${i.toString(36).toUpperCase().padStart(6, '0')}_${code}_-NONE-_-NONE-`;
    const recipient = company ? company.name.toUpperCase() : d.unmatchedName(i);
    // USAspending publishes an award days to months after it is signed (DoD's 90-day delay at most):
    // the service saw it, and it became available, then.
    const seenMs = Math.min(NOW_MS - 60_000, day + Math.floor(1 + d.rand() * 95) * DAY_MS + 3_600_000);
    const modifiedMs = Math.min(seenMs, day + Math.floor(d.rand() * 90) * DAY_MS + 3_600_000);
    const seen = isoTime(seenMs);
    const uei = d.uei();
    contracts.line(
      contractLine({
        id,
        ticker: company?.ticker ?? null,
        recipient,
        uei,
        parent: d.rand() < 0.3 ? recipient : null,
        awardDate,
        value,
        agency,
        subAgency: subs.length ? d.pick(subs) : null,
        description: `${text} ${awardDate.slice(0, 4)}`,
        naics,
        psc,
        label,
        confidence,
        method,
        modifiedAt: isoTime(modifiedMs),
        firstSeenAt: seen,
        announcedAt: null,
        availableAt: seen,
        linkedId: null,
        linkMethod: null,
        sourceUrl: null,
        company,
        // A few unresolved recipients were identified but privately held on the date.
        noTickerReason: company === null && d.rand() < 0.1 ? 'private' : null,
        basis: 'award_date',
      }),
    );
    if (!company) continue;
    const [base, aware] = scoreBoth({
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
      trailing: trailingOf(spec.perYear[rank] ?? 0, d),
      regime: spec.regimes[dayIndex(day)] ?? null,
    });
    // Spread over the span in generation order (plus a few minutes of jitter), as appended.
    const computedMs = Math.floor(NOW_MS - SIGNAL_SPAN_MS * (1 - i / spec.bulk) - d.rand() * 300_000);
    const computedAt = isoTime(computedMs);
    signals.line(
      signalLine(seededUuid7(computedMs, d.rand), id, company.ticker, materiality, base, computedAt, seen),
    );
    signals.line(
      signalLine(
        seededUuid7(computedMs + 1, d.rand),
        id,
        company.ticker,
        regimeAware,
        aware,
        isoTime(computedMs + 1),
        seen,
      ),
    );
  }
  return {
    index,
    contracts: contracts.take(),
    signals: signals.take(),
    contractRows: contracts.rows,
    signalRows: signals.rows,
  };
}

// ---------------------------------------------------------------- regimes

/**
 * The regime of every calendar day of the span. A regime is the benchmarks' state on the last weekday
 * on or before the day (its as_of, shared by a weekend and the Friday before it), and it persists for
 * weeks as market regimes do (a switch on ~3 % of days), with long-run shares 45/20/15/20 %.
 */
export function regimeCalendar(d: Draws): RegimeResult[] {
  const dominantOf = sampler(REGIME_NAMES, [45, 20, 15, 20]);
  let dominant = dominantOf(d.rand());
  let current: RegimeResult | undefined;
  const days: RegimeResult[] = [];
  for (let k = 0; k <= SPAN_DAYS; k++) {
    const ms = FIRST_DAY + k * DAY_MS;
    const dow = new Date(ms).getUTCDay();
    const weekday = dow !== 0 && dow !== 6;
    if (weekday || current === undefined) {
      if (d.rand() < 0.03) dominant = dominantOf(d.rand());
      const asOf = weekday ? ms : ms - (dow === 0 ? 2 : 1) * DAY_MS;
      current = regimeOn(d, isoDate(asOf), dominant);
    }
    days.push(current);
  }
  return days;
}

function regimeOn(d: Draws, asOf: string, dominant: RegimeName): RegimeResult {
  const raw = REGIME_NAMES.map(() => d.rand());
  raw[REGIME_NAMES.indexOf(dominant)] = 2 + d.rand();
  const total = raw.reduce((a, b) => a + b, 0);
  const scores = Object.fromEntries(
    REGIME_NAMES.map((n, k) => [n, Math.round(((raw[k] ?? 0) / total) * 1e4) / 1e4]),
  ) as Record<RegimeName, number>;
  const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
  const features = {
    spy_ret_20d: round6(d.normal() * 0.04),
    spy_ret_60d: round6(d.normal() * 0.08),
    spy_vol_20d: round6(0.1 + d.rand() * 0.3),
    spy_sma50: round6(300 + d.rand() * 200),
    spy_sma200: round6(300 + d.rand() * 200),
    xli_rel_60d: round6(d.normal() * 0.03),
    ita_rel_60d: round6(d.normal() * 0.03),
  };
  return { asOf, benchmark: 'SPY', dominant, scores, features, version: REGIME_VERSION };
}

// ---------------------------------------------------------------- the announcement phase

export const ANNOUNCEMENT_COLUMNS = [
  'id',
  'announced_on',
  'announced_at',
  'available_at',
  'first_seen_at',
  'section',
  'paragraph_no',
  'text',
  'kind',
  'face_value',
  'obligated_at_award',
  'contract_numbers',
  'contract_types',
  'competed',
  'offers',
  'contracting_activity',
  'multiple_award',
  'awardees',
  'source_url',
] as const;

export const PREDICTION_COLUMNS = [
  'contract_id',
  'model_name',
  'model_version',
  'ticker',
  'made_at',
  'day0',
  'horizon_days',
  'benchmark',
  'expected',
  'level',
  'low',
  'high',
  'created_at',
] as const;

/** The rows of the announcement phase, as COPY text per table. */
export interface AnnouncementRows<Text = TextSink> {
  contracts: Text;
  signals: Text;
  announcements: Text;
  piids: Text;
  predictions: Text;
  events: number;
  linkedAwards: number;
}

/** The rows' text taken from their sinks (transferable), with the row counts. */
export interface AnnouncementText extends AnnouncementRows<Uint8Array> {
  rows: Record<'contracts' | 'signals' | 'announcements' | 'piids' | 'predictions', number>;
}

export function takeAnnouncementText(out: AnnouncementRows): AnnouncementText {
  const sinks = {
    contracts: out.contracts,
    signals: out.signals,
    announcements: out.announcements,
    piids: out.piids,
    predictions: out.predictions,
  };
  return {
    contracts: out.contracts.take(),
    signals: out.signals.take(),
    announcements: out.announcements.take(),
    piids: out.piids.take(),
    predictions: out.predictions.take(),
    events: out.events,
    linkedAwards: out.linkedAwards,
    rows: Object.fromEntries(Object.entries(sinks).map(([k, v]) => [k, v.rows])) as AnnouncementText['rows'],
  };
}

const SECTIONS: readonly (readonly [section: string, subAgency: string, prefix: string])[] = [
  ['ARMY', 'Department of the Army', 'W'],
  ['NAVY', 'Department of the Navy', 'N'],
  ['AIR FORCE', 'Department of the Air Force', 'FA'],
  ['DEFENSE LOGISTICS AGENCY', 'Defense Logistics Agency', 'SPE'],
  ['MISSILE DEFENSE AGENCY', 'Missile Defense Agency', 'HQ'],
  ['DEFENSE INFORMATION SYSTEMS AGENCY', 'Defense Information Systems Agency', 'HC'],
];
const CONTRACT_TYPES = [
  'firm-fixed-price',
  'cost-plus-fixed-fee',
  'cost-plus-incentive-fee',
  'fixed-price-incentive',
];
const CITIES = [
  'Fort Worth, Texas',
  'Arlington, Virginia',
  'Tucson, Arizona',
  'Groton, Connecticut',
  'Huntsville, Alabama',
];
/** Announcement events of these tickers get an `announcement-dv` signal (their dollar volume is shipped). */
export const DV_TICKERS = new Set([...PRIMES, 'TXT']);
export const PREDICTION = { name: 'abnormal-return-5d', version: '1.0.0', horizon: 5, level: 0.8 };

/** 17:00 America/New_York of a date (EDT from the second Sunday of March to the first of November). */
function fivePmNewYork(day: number): number {
  const date = new Date(day);
  const year = date.getUTCFullYear();
  const nthSunday = (month: number, n: number) => {
    const first = Date.UTC(year, month, 1);
    const dow = new Date(first).getUTCDay();
    return first + ((7 - dow) % 7) * DAY_MS + (n - 1) * 7 * DAY_MS;
  };
  const summer = day >= nthSunday(2, 2) && day < nthSunday(10, 1);
  return day + (summer ? 21 : 22) * 3_600_000;
}

/**
 * DoD's daily contract announcements over the span: `events` awardee events (ids DOD_ANN_<date>_<nnnn>_<k>)
 * on business days, a paragraph each with one to three awardees (multiple-award ceilings among them),
 * ~60 % of them linked to the USAspending award they became (an extra contracts row, published later,
 * available from the announcement), each event scored by materiality and regime-aware, by
 * announcement-size once the company has a year of announcement history, by announcement-dv for the
 * tickers with shipped dollar volume, and each given a stored 5-day abnormal-return prediction. Its
 * signals are stamped just before the bulk phase's (they were appended first).
 */
export function announcementPhase(spec: GenSpec, events: number): AnnouncementText {
  const d = new Draws(chunkSeed(spec.seed, 0x7fff_0000));
  const out: AnnouncementRows = {
    contracts: new TextSink(events * 1000),
    signals: new TextSink(events * 4000),
    announcements: new TextSink(events * 700),
    piids: new TextSink(events * 50),
    predictions: new TextSink(events * 150),
    events: 0,
    linkedAwards: 0,
  };
  // Announcements go to large defense contractors: the primes' share is higher than among awards.
  const tickerOf = sampler(
    spec.companies.map((_, k) => k),
    spec.popularity.map((w, k) => (k < PRIMES.length ? w * 4 : w)),
  );
  const businessDays: number[] = [];
  for (let k = 0; k <= SPAN_DAYS; k++) {
    const day = FIRST_DAY + k * DAY_MS;
    const dow = new Date(day).getUTCDay();
    if (dow !== 0 && dow !== 6) businessDays.push(day);
  }
  // A paragraph names 1.225 awardees on average (15 % name two or three).
  const perDay = events / businessDays.length / 1.225;
  const firstAnnounced = new Map<string, number>();
  const spanStart = NOW_MS - SIGNAL_SPAN_MS - DAY_MS;
  let n = 0;
  for (const day of businessDays) {
    const date = isoDate(day);
    const announcedMs = fivePmNewYork(day);
    const announcedAt = isoTime(announcedMs);
    const paragraphs = Math.max(0, Math.round(perDay + d.normal() * Math.sqrt(perDay)));
    for (let p = 1; p <= paragraphs; p++) {
      const [section, subAgency, prefix] = d.pick(SECTIONS);
      const label = labelOf(d.rand());
      const [work] = d.pick(LABEL_TEXT[label]);
      const awardees = d.rand() < 0.15 ? 2 + Math.floor(d.rand() * 2) : 1;
      const multiple = awardees > 1;
      const face = d.awardValue(40_000_000, 1.3);
      const obligated = multiple
        ? Math.round(face * 0.001 * d.rand())
        : Math.round(face * (0.2 + 0.8 * d.rand()));
      const paragraphId = `DOD_ANN_${date}_${String(p).padStart(4, '0')}`;
      const fy = String((new Date(day).getUTCFullYear() + 1) % 100).padStart(2, '0');
      const piid = `${prefix}${String(Math.floor(d.rand() * 1e5)).padStart(5, '0')}${fy}C${String(Math.floor(d.rand() * 1e4)).padStart(4, '0')}`;
      const type = d.pick(CONTRACT_TYPES);
      const names: string[] = [];
      for (let k = 1; k <= awardees; k++) {
        const rank = tickerOf(d.rand());
        const company = spec.companies[rank] as Company;
        names.push(company.name);
        const eventId = `${paragraphId}_${k}`;
        const value = multiple ? Math.round(obligated / awardees) : obligated;
        const { method, confidence } = d.match(true);
        const sourceUrl = `https://www.defense.gov/News/Contracts/Contract/Article/${3_000_000 + n}/`;
        const linked = d.rand() < 0.6;
        const awardId = linked ? `CONT_AWD_${piid}${k > 1 ? `_${k}` : ''}_9700_-NONE-_-NONE-` : null;
        out.contracts.line(
          contractLine({
            id: eventId,
            ticker: company.ticker,
            recipient: company.name.toUpperCase(),
            uei: d.uei(),
            parent: null,
            awardDate: date,
            value,
            agency: 'Department of Defense',
            subAgency,
            description: `${work} (${type})`,
            naics: null,
            psc: null,
            label,
            confidence,
            method,
            modifiedAt: null,
            firstSeenAt: announcedAt,
            announcedAt,
            availableAt: announcedAt,
            linkedId: awardId,
            linkMethod: awardId ? 'contract_number_and_ticker' : null,
            sourceUrl,
            company,
            noTickerReason: null,
            basis: 'announcement_date',
          }),
        );
        out.piids.line(`${eventId}\t${piid}\n`);
        out.events += 1;
        n += 1;
        const computedMs = spanStart + Math.floor((n / events) * DAY_MS);
        const trailing = trailingOf(spec.perYear[rank] ?? 0, d);
        const contract = {
          id: eventId,
          ticker: company.ticker,
          value,
          awardDate: date,
          awardingAgency: 'Department of Defense',
          classification: label,
          matchConfidence: confidence,
        };
        const regime = spec.regimes[dayIndex(day)] ?? null;
        const scored = scoreBoth({ contract, company, trailing, regime });
        const first = firstAnnounced.get(company.ticker);
        if (first === undefined) firstAnnounced.set(company.ticker, day);
        const quartile = () => Math.floor(d.rand() * 4);
        const sizeReading =
          first !== undefined && day - first >= 365 * DAY_MS
            ? {
                ratio: 0.01 + d.rand() * 3,
                quartile: quartile(),
                pageValue: value,
                trailingValue: value * 20,
                reason: null,
              }
            : undefined;
        const dvReading = DV_TICKERS.has(company.ticker)
          ? {
              ratio: d.rand() * 0.05,
              quartile: quartile(),
              pageValue: value,
              trailingValue: null,
              reason: null,
            }
          : undefined;
        const input = {
          contract,
          company,
          trailing,
          regime,
          announcement: sizeReading,
          announcementDv: dvReading,
        };
        const outputs: [Parameters<typeof signalLine>[3], EngineOutput | null][] = [
          [materiality, scored[0]],
          [regimeAware, scored[1]],
          [announcementSize, announcementSize.score(input)],
          [announcementDv, announcementDv.score(input)],
        ];
        for (const [k2, [engine, output]] of outputs.entries()) {
          if (!output) continue;
          const ms = computedMs + k2;
          out.signals.line(
            signalLine(
              seededUuid7(ms, d.rand),
              eventId,
              company.ticker,
              engine,
              output,
              isoTime(ms),
              announcedAt,
            ),
          );
        }
        const vol = 0.01 + d.rand() * 0.03;
        const half = 1.28 * vol * Math.sqrt(PREDICTION.horizon);
        out.predictions.line(
          `${eventId}\t${PREDICTION.name}\t${PREDICTION.version}\t${company.ticker}\t${announcedAt}\t${date}\t` +
            `${PREDICTION.horizon}\tSPY\t0\t${PREDICTION.level}\t${(-half).toFixed(6)}\t${half.toFixed(6)}\t${announcedAt}\n`,
        );
        if (!awardId) continue;
        // The USAspending award it became: signed a few days before the page, published later, available
        // from the announcement.
        const awardDay = day - Math.floor(d.rand() * 5) * DAY_MS;
        const seenMs = Math.min(NOW_MS - 60_000, day + Math.floor(5 + d.rand() * 90) * DAY_MS);
        out.contracts.line(
          contractLine({
            id: awardId,
            ticker: company.ticker,
            recipient: company.name.toUpperCase(),
            uei: d.uei(),
            parent: null,
            awardDate: isoDate(awardDay),
            value,
            agency: 'Department of Defense',
            subAgency,
            description: `${work} ${date.slice(0, 4)}`,
            naics: null,
            psc: null,
            label,
            confidence,
            method,
            modifiedAt: isoTime(seenMs),
            firstSeenAt: isoTime(seenMs),
            announcedAt,
            availableAt: announcedAt,
            linkedId: eventId,
            linkMethod: 'contract_number_and_ticker',
            sourceUrl: null,
            company,
            noTickerReason: null,
            basis: 'award_date',
          }),
        );
        out.linkedAwards += 1;
        const awardScores = scoreBoth({
          contract: { ...contract, id: awardId, awardDate: isoDate(awardDay) },
          company,
          trailing,
          regime,
        });
        for (const [k2, [engine, output]] of (
          [
            [materiality, awardScores[0]],
            [regimeAware, awardScores[1]],
          ] as const
        ).entries()) {
          const ms = computedMs + 4 + k2;
          out.signals.line(
            signalLine(
              seededUuid7(ms, d.rand),
              awardId,
              company.ticker,
              engine,
              output,
              isoTime(ms),
              announcedAt,
            ),
          );
        }
      }
      const text =
        `${names.map((name, k) => `${name}, ${CITIES[(p + k) % CITIES.length]}`).join('; ')} ` +
        `${multiple ? 'are each awarded a multiple-award' : 'is awarded a'} $${face.toLocaleString('en-US')} ` +
        `${type} contract for ${work.toLowerCase()}. Work is expected to be completed by ${Number(date.slice(0, 4)) + 3}. ` +
        `Fiscal ${date.slice(0, 4)} funds of $${obligated.toLocaleString('en-US')} are obligated at the time of award. ` +
        `The contracting activity is ${subAgency} (${piid}).`;
      const awardeesJson = JSON.stringify(
        names.map((name, k) => ({ name, location: CITIES[(p + k) % CITIES.length] })),
      );
      out.announcements.line(
        `${paragraphId}\t${date}\t${announcedAt}\t${announcedAt}\t${announcedAt}\t${section}\t${p}\t${copyText(text)}\taward\t` +
          `${face}\t${obligated}\t{${piid}}\t{${type}}\t${d.rand() < 0.7 ? 't' : 'f'}\t${1 + Math.floor(d.rand() * 5)}\t` +
          `${copyText(subAgency)}\t${multiple ? 't' : 'f'}\t${copyText(awardeesJson)}\t` +
          `https://www.defense.gov/News/Contracts/Contract/Article/${3_000_000 + n}/\n`,
      );
    }
  }
  return takeAnnouncementText(out);
}
