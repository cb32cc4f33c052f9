import type { RationaleItem } from '../domain/types.ts';
import type { ContractDto, SignalDto } from '../http/schemas/resources.ts';

/** Column lists shared by every query that returns contracts or signals, so rows map one way. */
export const CONTRACT_COLUMNS = `c.id, c.ticker, c.recipient_name, c.award_date, c.contract_value, c.awarding_agency,
  c.awarding_sub_agency, c.description, c.naics, c.psc, c.nlp_classification, c.match_confidence, c.match_method`;

export const SIGNAL_COLUMNS = `s.id AS s_id, s.contract_id AS s_contract_id, s.engine_name AS s_engine_name,
  s.engine_version AS s_engine_version, s.engine_tier AS s_engine_tier, s.signal_score AS s_signal_score,
  s.importance_score AS s_importance_score, s.confidence_score AS s_confidence_score, s.risk_score AS s_risk_score,
  s.computed_at AS s_computed_at`;

/**
 * The per-rule rationale is the bulk of a signal row (about 600 bytes) and only the intelligence tier
 * sees it, so list queries select it only when it will be shown.
 */
export const signalColumns = (withRationale: boolean) =>
  withRationale ? `${SIGNAL_COLUMNS}, s.rationale AS s_rationale` : SIGNAL_COLUMNS;

export type ContractRow = ContractDto;

export interface SignalRow {
  s_id: string | null;
  s_contract_id: string;
  s_engine_name: string;
  s_engine_version: string;
  s_engine_tier: string;
  s_signal_score: number;
  s_importance_score: number;
  s_confidence_score: number;
  s_risk_score: number;
  /** Stored form: see `encodeRationale`. */
  s_rationale?: string;
  s_computed_at: string;
}

export function toContract(row: ContractRow): ContractDto {
  return {
    id: row.id,
    ticker: row.ticker,
    recipient_name: row.recipient_name,
    award_date: row.award_date,
    contract_value: row.contract_value,
    awarding_agency: row.awarding_agency,
    awarding_sub_agency: row.awarding_sub_agency,
    description: row.description,
    naics: row.naics,
    psc: row.psc,
    nlp_classification: row.nlp_classification,
    match_confidence: row.match_confidence,
    match_method: row.match_method,
  };
}

/** A signal, with its rationale when the query selected it. */
export function toSignal(row: SignalRow): SignalDto | null {
  if (row.s_id === null) return null;
  return {
    id: row.s_id,
    contract_id: row.s_contract_id,
    engine_name: row.s_engine_name,
    engine_version: row.s_engine_version,
    engine_tier: row.s_engine_tier,
    signal_score: row.s_signal_score,
    importance_score: row.s_importance_score,
    confidence_score: row.s_confidence_score,
    risk_score: row.s_risk_score,
    computed_at: row.s_computed_at,
    ...(row.s_rationale === undefined ? {} : { rationale: decodeRationale(row.s_rationale) }),
  };
}

type StoredRule = [rule: string, weight: number, value: number, contribution: number, detail: string];

/**
 * A rationale as `signals.rationale` stores it (migration 009): compact JSON text, one array per rule,
 * `[rule, weight, value, contribution, detail]`; the objects' keys were a third of the bytes.
 */
export function encodeRationale(items: readonly RationaleItem[]): string {
  const before = previous;
  const extending =
    before.items.length > 0 && before.items.length < items.length && startsWith(items, before.items);
  // '[…rows before', ',', '…rows after]' joined into one flat string: a batch waiting for its write holds
  // thousands of these, and a string of pieces would be a tree for every collection to copy.
  const text = extending
    ? [before.text.slice(0, -1), ',', restText(items, before.items.length).slice(1)].join('')
    : JSON.stringify(items.map(storedRule));
  previous = { items, text };
  return text;
}

/**
 * The JSON text of `items` from `from` on. What follows a shared prefix is shared too as a rule
 * (regime-aware's regime rows: one set per award date and kind of work), so its text is kept by its
 * first row, for at most REST_LIMIT different rests.
 */
function restText(items: readonly RationaleItem[], from: number): string {
  const first = items[from] as RationaleItem;
  const kept = rests.get(first);
  if (kept !== undefined && kept.items.length === items.length - from && startsWith(items, kept.items, from))
    return kept.text;
  const rest = items.slice(from);
  const text = JSON.stringify(rest.map(storedRule));
  if (rests.size >= REST_LIMIT) rests.clear();
  rests.set(first, { items: rest, text });
  return text;
}

const REST_LIMIT = 10_000;
const rests = new Map<RationaleItem, { items: readonly RationaleItem[]; text: string }>();

/**
 * The rationale encoded last and its text. The pipeline encodes each engine's rationale in turn, and an
 * engine built on another starts with that one's rows (regime-aware with materiality's, the same row
 * objects: rows are values and never changed), so those rows are not encoded twice.
 */
let previous: { items: readonly RationaleItem[]; text: string } = { items: [], text: '[]' };

/** `items` holds the rows of `part` from position `at` on (by identity). */
function startsWith(items: readonly RationaleItem[], part: readonly RationaleItem[], at = 0): boolean {
  for (let i = 0; i < part.length; i++) if (items[at + i] !== part[i]) return false;
  return true;
}

const storedRule = (r: RationaleItem): StoredRule => [r.rule, r.weight, r.value, r.contribution, r.detail];

/** The API's rationale objects from their stored form. */
export function decodeRationale(stored: string): RationaleItem[] {
  return (JSON.parse(stored) as StoredRule[]).map(([rule, weight, value, contribution, detail]) => ({
    rule,
    weight,
    value,
    contribution,
    detail,
  }));
}
