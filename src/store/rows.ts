import type { RationaleItem } from '../domain/types.ts';
import type { ContractDetailDto, ContractDto, SignalDto } from '../shapes/resources.ts';
import { type JsonList, jsonInteger, jsonNumber, jsonObject, jsonString, jsonTimestamp } from './json.ts';

/** Rows resolved before dated resolution existed were resolved on their own date all the same. */
const BASIS_SQL = `coalesce(c.resolution_basis, CASE WHEN c.source = 'announcement' THEN 'announcement_date' ELSE 'award_date' END)`;

/**
 * The ticker whose candles price a contract: the series holding its era owner's prices (United
 * Technologies' awards are priced on RTX's series). An owner with no shipped series keeps its own
 * ticker then (RTN, LLL…), which has no candles: its price joins are empty, never another company's.
 */
export const PRICE_TICKER_SQL = 'coalesce(c.series_ticker, c.ticker)';

/** A joint venture's parents as stored (JSON text in the schema's key order, identity-columns.ts), else `[]`. */
const VENTURE_PARENTS_SQL = `coalesce(c.venture_parents, '[]')`;

/** Column lists shared by every query that returns contracts or signals, so rows map one way. */
export const CONTRACT_COLUMNS = `c.id, c.ticker, c.recipient_name, c.award_date, c.contract_value, c.awarding_agency,
  c.awarding_sub_agency, c.description, c.naics, c.psc, c.nlp_classification, c.match_confidence, c.match_method,
  c.source, c.announced_at, c.first_seen_at, c.available_at, c.linked_id, c.link_method, c.source_url,
  CASE WHEN c.entity_id IS NULL THEN NULL ELSE json_build_object('id', c.entity_id, 'name', c.entity_name) END AS entity,
  c.owner_name, c.series_ticker,
  json_build_object('as_of', c.award_date, 'basis', ${BASIS_SQL}, 'resolver_version', c.resolver_version,
    'no_ticker_reason', c.no_ticker_reason, 'venture_parents', ${VENTURE_PARENTS_SQL}::json) AS resolution`;

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

/** The API's contract object (schema `Contract`) as JSON text, from the contracts row aliased `c`. */
export const CONTRACT_JSON = jsonObject([
  ['id', jsonString('c.id')],
  ['ticker', jsonString('c.ticker')],
  ['recipient_name', jsonString('c.recipient_name')],
  ['award_date', jsonString('c.award_date')],
  ['contract_value', jsonInteger('c.contract_value')],
  ['awarding_agency', jsonString('c.awarding_agency')],
  ['awarding_sub_agency', jsonString('c.awarding_sub_agency')],
  ['description', jsonString('c.description')],
  ['naics', jsonString('c.naics')],
  ['psc', jsonString('c.psc')],
  ['nlp_classification', jsonString('c.nlp_classification')],
  ['match_confidence', jsonNumber('c.match_confidence')],
  ['match_method', jsonString('c.match_method')],
  ['source', jsonString('c.source')],
  ['announced_at', jsonTimestamp('c.announced_at')],
  ['first_seen_at', jsonTimestamp('c.first_seen_at')],
  ['available_at', jsonTimestamp('c.available_at')],
  ['linked_id', jsonString('c.linked_id')],
  ['link_method', jsonString('c.link_method')],
  [
    'entity',
    `CASE WHEN c.entity_id IS NULL THEN 'null' ELSE ${jsonObject([
      ['id', jsonString('c.entity_id')],
      ['name', jsonString('c.entity_name')],
    ])} END`,
  ],
  ['owner_name', jsonString('c.owner_name')],
  ['series_ticker', jsonString('c.series_ticker')],
  [
    'resolution',
    jsonObject([
      ['as_of', jsonString('c.award_date')],
      ['basis', jsonString(BASIS_SQL)],
      ['resolver_version', jsonString('c.resolver_version')],
      ['no_ticker_reason', jsonString('c.no_ticker_reason')],
      ['venture_parents', VENTURE_PARENTS_SQL],
    ]),
  ],
  ['source_url', jsonString('c.source_url')],
]);

const SIGNAL_FIELDS: [string, string][] = [
  ['id', jsonString('s.id')],
  ['contract_id', jsonString('s.contract_id')],
  ['engine_name', jsonString('s.engine_name')],
  ['engine_version', jsonString('s.engine_version')],
  ['engine_tier', jsonString('s.engine_tier')],
  ['signal_score', jsonInteger('s.signal_score')],
  ['importance_score', jsonInteger('s.importance_score')],
  ['confidence_score', jsonInteger('s.confidence_score')],
  ['risk_score', jsonInteger('s.risk_score')],
  ['computed_at', jsonTimestamp('s.computed_at')],
];

/**
 * The API's signal object (schema `Signal`) as JSON text, from the signals row aliased `s`. The rationale
 * key only when it will be shown (see `signalColumns`), its value as stored: `widenRationales` makes it
 * the API's objects.
 */
export const signalJson = (withRationale: boolean) => (withRationale ? SIGNAL_JSON_FULL : SIGNAL_JSON);

const SIGNAL_JSON = jsonObject(SIGNAL_FIELDS);
const SIGNAL_JSON_FULL = jsonObject([...SIGNAL_FIELDS, ['rationale', 's.rationale']]);

/** A contracts row as CONTRACT_COLUMNS selects it; the lists' queries select only rows with a ticker. */
export type ContractRow = ContractDetailDto;
/** A row of a query that selects only contracts with a ticker (lists, company pages, webhooks). */
export type ListedContractRow = ContractDto;

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

/** The contract of a row, of the row's kind: a listed row gives a `ContractDto`. */
export function toContract<R extends ContractRow>(row: R): Pick<R, keyof ContractDetailDto> {
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
    source: row.source,
    announced_at: row.announced_at,
    first_seen_at: row.first_seen_at,
    available_at: row.available_at,
    linked_id: row.linked_id,
    link_method: row.link_method,
    entity: row.entity,
    owner_name: row.owner_name,
    series_ticker: row.series_ticker,
    resolution: row.resolution,
    source_url: row.source_url,
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

const RATIONALE_KEY = '"rationale":';
/** What goes before each field of a stored rule row: its key in the API's object. */
const RULE_KEYS = ['{"rule":', ',"weight":', ',"value":', ',"contribution":', ',"detail":'];
const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE = 0x5d;

/**
 * `json` with every stored rationale in it (after a `"rationale":` key, see `signalJson`) widened to the
 * API's objects: `[["agency",10,1,10,"…"]]` becomes `[{"rule":"agency","weight":10,…,"detail":"…"}]`,
 * the fields' text copied as stored. The bytes are scanned, not parsed: the brackets and commas between
 * fields are found by skipping strings. No string holds the key's text (its quotes would be escaped), so
 * every match is a key. Why in node: docs/EVALUATION.md#rationales-widened-in-node.
 */
export function widenRationales(json: string): string {
  let at = json.indexOf(RATIONALE_KEY);
  if (at < 0) return json;
  let out = '';
  let copied = 0;
  while (at >= 0) {
    let i = skipSpace(json, at + RATIONALE_KEY.length);
    if (json.charCodeAt(i) !== OPEN) throw malformed(json, i);
    out += json.slice(copied, i + 1);
    i = skipSpace(json, i + 1);
    while (json.charCodeAt(i) === OPEN) {
      let field = 0;
      let from = i + 1;
      out += RULE_KEYS[0];
      for (i = from; ; ) {
        const c = json.charCodeAt(i);
        if (c === QUOTE) i = stringEnd(json, i);
        else if (c === COMMA) {
          const key = RULE_KEYS[++field];
          if (key === undefined) throw malformed(json, i);
          out += json.slice(from, i) + key;
          from = ++i;
        } else if (c === CLOSE) {
          if (field !== RULE_KEYS.length - 1) throw malformed(json, i);
          out += `${json.slice(from, i)}}`;
          i = skipSpace(json, i + 1);
          break;
        } else if (c === OPEN || Number.isNaN(c)) throw malformed(json, i);
        else i++;
      }
      if (json.charCodeAt(i) === COMMA) {
        out += ',';
        i = skipSpace(json, i + 1);
      }
    }
    if (json.charCodeAt(i) !== CLOSE) throw malformed(json, i);
    out += ']';
    copied = i + 1;
    at = json.indexOf(RATIONALE_KEY, copied);
  }
  return out + json.slice(copied);
}

/** A list whose signals carry their stored rationale, widened; the others as they are. */
export const widened = <T extends JsonList>(list: T, withRationale: boolean): T =>
  withRationale ? { ...list, json: widenRationales(list.json) } : list;

/** The index after the string opening at `open`. */
function stringEnd(json: string, open: number): number {
  let quote = json.indexOf('"', open + 1);
  for (;;) {
    if (quote < 0) throw malformed(json, open);
    let slashes = 0;
    while (json.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    quote = json.indexOf('"', quote + 1);
  }
}

/** Past whitespace: rationales migration 009 converted from jsonb have a space after each comma. */
function skipSpace(json: string, i: number): number {
  let at = i;
  while (json.charCodeAt(at) === 32 || json.charCodeAt(at) === 10) at++;
  return at;
}

const malformed = (json: string, at: number) =>
  new Error(
    `stored rationale malformed at ${at}: ${JSON.stringify(json.slice(Math.max(0, at - 40), at + 40))}`,
  );
