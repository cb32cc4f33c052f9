/**
 * The records the service serves, as TypeBox schemas and their types: the one description of a
 * Contract, a Signal, a Regime, a Candle and a Company that the store writes rows into, the webhook
 * outbox sends, and the HTTP layer validates and documents (its envelopes are in http/schemas).
 */
import { type Static, Type } from 'typebox';
import { engineNames, RATIONALE_RULES } from '../domain/engines/index.ts';
import { MATCH_METHODS } from '../domain/resolver.ts';
import { CLASSIFICATION_LABELS, REGIME_BENCHMARKS, REGIME_NAMES, TIERS } from '../domain/types.ts';
import { Nullable, StringEnum } from './schema.ts';

export const CONTRACT_SOURCES = ['usaspending', 'announcement'] as const;
/** An announcement and an award are linked by the contract number (PIID) both name, and the ticker when both have one. */
export const LINK_METHODS = ['contract_number_and_ticker', 'contract_number'] as const;

/*
 * The closed value sets of the records, each built from the constant the code decides with. Exported
 * by name, each is a named enum in the OpenAPI document wherever a response uses it (http/openapi.ts).
 */
export const Classification = StringEnum(CLASSIFICATION_LABELS);
export const MatchMethod = StringEnum(MATCH_METHODS);
export const ContractSource = StringEnum(CONTRACT_SOURCES);
export const LinkMethod = StringEnum(LINK_METHODS);
/** The engine registry's names (src/domain/engines). */
export const EngineName = StringEnum(engineNames());
export const Tier = StringEnum(TIERS);
export const RegimeName = StringEnum(REGIME_NAMES);

export const Contract = Type.Object({
  id: Type.String({
    description:
      'USASpending generated award id (prefix CONT_AWD_), or for an awardee of a DoD contract announcement DOD_ANN_<date>_<paragraph>_<position>.',
  }),
  ticker: Type.String({ description: 'Ticker the recipient resolves to.' }),
  recipient_name: Type.String(),
  award_date: Type.String({ format: 'date' }),
  contract_value: Type.Integer({ description: 'Current total value of the award in whole US dollars.' }),
  awarding_agency: Type.String(),
  awarding_sub_agency: Nullable(Type.String()),
  description: Nullable(Type.String()),
  naics: Nullable(Type.String()),
  psc: Nullable(Type.String()),
  nlp_classification: Classification,
  match_confidence: Type.Number({ minimum: 0, maximum: 1 }),
  match_method: StringEnum(MATCH_METHODS, {
    description:
      'exact_alias: the recipient name is a known alias of the company; parent_alias: its parent company name is; fuzzy: the closest company name above the similarity threshold.',
  }),
  source: StringEnum(CONTRACT_SOURCES, {
    description:
      'usaspending: an award record; announcement: an awardee of a DoD daily contract announcement.',
  }),
  announced_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'When the Department of Defense announced it (17:00 New York time of the announcement date); for an award, its linked announcement’s.',
    }),
  ),
  first_seen_at: Type.String({ format: 'date-time', description: 'When the event reached this service.' }),
  available_at: Type.String({
    format: 'date-time',
    description: 'When the public could first know it: announced_at when announced, else first_seen_at.',
  }),
  linked_id: Nullable(
    Type.String({
      description: 'The other side of an announcement ↔ award link (a CONT_AWD_ or DOD_ANN_ id).',
    }),
  ),
  link_method: Nullable(StringEnum(LINK_METHODS, { description: 'How the link was made.' })),
});
export type ContractDto = Static<typeof Contract>;

export const RationaleRule = StringEnum<string>(RATIONALE_RULES, {
  description: "The engine rule a rationale row accounts for; one engine's rows name some of them.",
});

export const RationaleItem = Type.Object({
  rule: RationaleRule,
  weight: Type.Number(),
  value: Type.Number(),
  contribution: Type.Number(),
  detail: Type.String(),
});

export const Signal = Type.Object({
  id: Type.String({ format: 'uuid' }),
  contract_id: Type.String(),
  engine_name: EngineName,
  engine_version: Type.String(),
  engine_tier: StringEnum<string>(TIERS, { description: 'The lowest plan tier that sees this engine.' }),
  signal_score: Type.Integer({ minimum: 0, maximum: 100 }),
  importance_score: Type.Integer({ minimum: 0, maximum: 100 }),
  confidence_score: Type.Integer({ minimum: 0, maximum: 100 }),
  risk_score: Type.Integer({ minimum: 0, maximum: 100 }),
  computed_at: Type.String({ format: 'date-time' }),
  rationale: Type.Optional(
    Type.Array(RationaleItem, { description: 'Per-rule rationale; intelligence tier only.' }),
  ),
});
export type SignalDto = Static<typeof Signal>;

export const WeeklyPrice = Type.Object({
  week_start: Type.String({ format: 'date' }),
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  close: Type.Number(),
  volume: Type.Integer(),
});

const Share = Type.Number({ minimum: 0, maximum: 1 });
const regimeScores = { risk_on: Share, risk_off: Share, high_volatility: Share, range_bound: Share };

export const Regime = Type.Object({
  contract_id: Type.String(),
  ticker: Type.String(),
  as_of: Type.String({ format: 'date', description: 'Last candle date used; never after the award date.' }),
  benchmark: StringEnum(REGIME_BENCHMARKS, { description: 'The market the regime is read from.' }),
  dominant: RegimeName,
  scores: Type.Object(regimeScores),
  features: Type.Record(Type.String(), Type.Number()),
  engine_version: Type.String(),
});
export type RegimeDto = Static<typeof Regime>;

export const Decay = Type.Object({
  model: Type.Literal('exponential'),
  half_life_days: Type.Number(),
  age_days: Type.Integer(),
  strength: Type.Number({ minimum: 0, maximum: 1 }),
  effective_score: Type.Integer(),
});

export const Company = Type.Object({
  ticker: Type.String(),
  name: Type.String(),
  cik: Nullable(Type.String()),
  exchange: Nullable(Type.String()),
  sector: Nullable(Type.String()),
  industry: Nullable(Type.String()),
  aliases: Type.Array(Type.String()),
  contract_count: Type.Integer(),
  total_contract_value: Type.Integer(),
});

export const Candle = Type.Object({
  date: Type.String({ format: 'date' }),
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  close: Type.Number(),
  adj_close: Type.Number(),
  volume: Type.Integer(),
});
export type CandleDto = Static<typeof Candle>;
