/**
 * Shared shapes of the pure domain layer. Nothing here does I/O: the store
 * gathers these inputs from SQL and the http layer serializes the outputs.
 */

/** A normalized award, whatever the source (API v2, bulk CSV, JSON, admin ingest). */
export interface AwardRecord {
  /** `CONT_AWD_…` generated unique award id. */
  id: string;
  piid: string | null;
  recipientName: string;
  recipientUei: string | null;
  parentName: string | null;
  parentUei: string | null;
  awardingAgency: string;
  awardingSubAgency: string | null;
  /** Whole US dollars (current total value, obligated amount as fallback). */
  value: number;
  /** YYYY-MM-DD */
  awardDate: string;
  description: string | null;
  naics: string | null;
  psc: string | null;
  /** ISO date-time of the source's last modification, when known. */
  sourceModifiedAt: string | null;
}

/** A listed company (or ETF) as the service knows it. */
export interface Company {
  ticker: string;
  name: string;
  cik: string | null;
  exchange: string | null;
  sector: string | null;
  industry: string | null;
}

/** A daily bar, ascending by date in every array the domain receives. */
export interface Candle {
  date: string; // YYYY-MM-DD
  open: number;
  high: number;
  low: number;
  close: number;
  adjClose: number;
  volume: number;
}

export const CLASSIFICATION_LABELS = [
  'aircraft',
  'shipbuilding',
  'missiles_munitions',
  'space',
  'ground_vehicles',
  'electronics_comms',
  'it_services',
  'cybersecurity',
  'research_development',
  'construction_facilities',
  'logistics_supply',
  'healthcare',
  'professional_services',
  'other',
] as const;
export type ClassificationLabel = (typeof CLASSIFICATION_LABELS)[number];

export const TIERS = ['free', 'developer', 'intelligence'] as const;

/** The market a regime is read from: one so far (domain/regimes.ts). */
export const REGIME_BENCHMARKS = ['SPY'] as const;
export type Tier = (typeof TIERS)[number];

/** One rule's part of a score. Rows are values: engines may share one between outputs, so none is changed. */
export interface RationaleItem {
  readonly rule: string;
  readonly weight: number;
  readonly value: number;
  readonly contribution: number;
  readonly detail: string;
}

export interface Scores {
  signal: number; // integer 0-100
  importance: number;
  confidence: number;
  risk: number;
}

export const REGIME_NAMES = ['risk_on', 'risk_off', 'high_volatility', 'range_bound'] as const;
export type RegimeName = (typeof REGIME_NAMES)[number];

export interface RegimeResult {
  asOf: string; // last candle date used (<= award date)
  benchmark: (typeof REGIME_BENCHMARKS)[number];
  dominant: RegimeName;
  scores: Record<RegimeName, number>; // 0-1, sum 1
  features: Record<string, number>;
  version: string;
}

/** Everything an engine may look at; all of it is stored, so scoring is reproducible. */
export interface EngineInput {
  contract: {
    id: string;
    ticker: string;
    value: number;
    awardDate: string;
    awardingAgency: string;
    classification: ClassificationLabel;
    matchConfidence: number;
  };
  company: { sector: string | null; industry: string | null } | null;
  /** The same ticker's awards in the 365 days before the award date (excluding this one). */
  trailing: { count: number; totalValue: number; medianValue: number };
  regime: RegimeResult | null;
  /**
   * The announcement rule's reading of a DoD announcement event (src/evaluation/announcement-score.ts,
   * computed by the pipeline); absent for other events.
   */
  announcement?: AnnouncementRuleInput;
  /** The `ann-dv-1` rule's reading of the same event (src/evaluation/announcement-dv.ts); absent for other events. */
  announcementDv?: AnnouncementRuleInput;
}

/** Where an event comes from: DoD's daily announcements or USASpending's award records. */
export type EventSource = 'usaspending' | 'announcement';

export interface AnnouncementRuleInput {
  /** The rule's ratio (`ann-size-1`: page / trailing-year value; `ann-dv-1`: page awarded / daily dollar volume); null when the rule gives no score. */
  ratio: number | null;
  /** Its quartile by the rule's committed cut points, 0 (Q1) … 3 (Q4); null with no score. */
  quartile: number | null;
  pageValue: number;
  trailingValue: number | null;
  /** Why there is no score: less than a year of stored history, no dollar volume before the date, or a recipient its ticker did not own yet. */
  reason: 'short_history' | 'no_dollar_volume' | 'ownership' | null;
}

export interface EngineOutput {
  scores: Scores;
  rationale: readonly RationaleItem[];
}

/** `Output`: `EngineOutput` for an engine that scores every event it is given. */
export interface Engine<Output extends EngineOutput | null = EngineOutput | null> {
  name: string;
  version: string;
  tier: Tier;
  isDefault: boolean;
  /** The sources whose events the engine scores; every source when absent. */
  sources?: readonly EventSource[];
  /**
   * `earlier`: the outputs of other engines for this same input by `engineKey`, when the caller has them
   * (the pipeline scores a contract with every engine in turn); an engine built on another may take its
   * output from there instead of computing it again. Null: the engine has no score for this event (no
   * signal is written).
   */
  score(input: EngineInput, earlier?: ReadonlyMap<string, EngineOutput>): Output;
}

/** An engine version's key among `earlier` outputs: by name and version, not by object. */
export const engineKey = (engine: Pick<Engine, 'name' | 'version'>): string =>
  `${engine.name}@${engine.version}`;
