/**
 * The records the service serves, as TypeBox schemas and their types: the one description of a
 * Contract, a Signal, a Regime, a Candle and a Company that the store writes rows into, the webhook
 * outbox sends, and the HTTP layer validates and documents (its envelopes are in http/schemas).
 */
import { type Static, Type } from 'typebox';
import { DATE_BASES } from '../domain/dated-resolver.ts';
import { engineNames, RATIONALE_RULES } from '../domain/engines/index.ts';
import { fieldTier } from '../domain/field-tiers.ts';
import { NO_TICKER_REASONS } from '../domain/identity.ts';
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
export const NoTickerReason = StringEnum(NO_TICKER_REASONS);

export const ResolvedEntity = Type.Object(
  {
    id: Type.String({ description: 'Identity id (data/identity/entities.csv).' }),
    name: Type.String(),
  },
  {
    description:
      'The entity the recipient name identifies (a company or one of its units); null when only the undated resolver knows it.',
  },
);

export const VentureParent = Type.Object(
  {
    entity_id: Type.String({ description: 'Identity id (data/identity/entities.csv).' }),
    name: Type.String(),
    share: Nullable(Type.Number({ minimum: 0, maximum: 1 }), {
      description: 'Its share; null when not known.',
    }),
    ticker: Nullable(Type.String(), {
      description: 'The ticker its owner traded under on the date; null when it had none.',
    }),
  },
  { description: 'One parent of a joint venture on the date.' },
);

export const Resolution = Type.Object(
  {
    as_of: Type.String({ format: 'date', description: 'The date the owner was taken on.' }),
    basis: StringEnum(DATE_BASES, {
      description: 'award_date: the award’s own date; announcement_date: the DoD announcement’s.',
    }),
    resolver_version: Nullable(
      Type.String({
        description:
          'Version of the resolver and identity data that resolved it; null before versions were stored.',
      }),
    ),
    no_ticker_reason: Nullable(NoTickerReason, {
      description:
        'Why `ticker` is null, else null. private: the owner on the date was privately held (employee- or sponsor-owned); foreign: a foreign parent with no US listing in the data; not_yet_public: the owner listed only later (SAIC before its 2006 IPO, Booz Allen before 2010); delisted: the owner’s listed years had ended; joint_venture: two or more parents, none controlling (see `venture_parents`); owner_unknown: the data names the entity but not who owned it then.',
    }),
    venture_parents: Type.Array(VentureParent, {
      description:
        'A joint venture’s parents on the date, each with its share and ticker then; empty unless `no_ticker_reason` is joint_venture.',
    }),
  },
  {
    description: 'How the point-in-time resolution was dated, and why there is no ticker when there is none.',
  },
);

const TICKER_THEN =
  'Ticker of the company that owned the recipient on the award (or announcement) date, as it traded then: a 2010 award to Sikorsky is UTX (United Technologies), a 2017 award to Rockwell Collins is COL.';

const CONTRACT_FIELDS = {
  id: Type.String({
    description:
      'USASpending generated award id (prefix CONT_AWD_), or for an awardee of a DoD contract announcement DOD_ANN_<date>_<paragraph>_<position>.',
  }),
  ticker: Type.String({ description: TICKER_THEN }),
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
      'exact_alias: the recipient name is a known alias of the company; parent_alias: its parent company name is; fuzzy: the closest company name above the similarity threshold. For a contract whose owner had no ticker, how its entity was identified.',
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
  entity: Nullable(ResolvedEntity),
  owner_name: Nullable(
    Type.String({
      description: 'The company whose stock carried the recipient on the date (the owner of `ticker`).',
    }),
  ),
  series_ticker: Nullable(
    Type.String({
      description:
        'The ticker of the shipped price series that holds the owner’s prices on the date (RTX for United Technologies, LHX for Harris); null when no series is shipped for that owner (the delisted RTN, LLL, COL…): its price joins are then empty.',
    }),
  ),
  resolution: Resolution,
  source_url: Nullable(
    Type.String({
      format: 'uri',
      description:
        'For an announcement read from DoD’s live feed, the article it was read from (its "Contracts For" page); null for an award, and for an announcement read from a file.',
    }),
  ),
};

/** A contract as the lists, exports, company pages and webhooks serve it: always one with a ticker. */
export const Contract = Type.Object(CONTRACT_FIELDS, {
  description:
    'A contract award credited to the listed company that owned its recipient on the date: lists, exports, company pages and webhooks serve only these, so `ticker` is never null here.',
});
export type ContractDto = Static<typeof Contract>;

/**
 * A contract as `GET /contracts/{id}` serves it: also one whose recipient was identified but whose owner
 * on the date had no listed stock (private then, not yet public, delisted, foreign, a joint venture).
 */
export const ContractDetail = Type.Object(
  {
    ...CONTRACT_FIELDS,
    ticker: Nullable(Type.String(), {
      description: `${TICKER_THEN} null when the owner on the date had no listed stock; see resolution.no_ticker_reason (such a contract is served only here, never in a list or export).`,
    }),
  },
  {
    description:
      'A contract with its point-in-time resolution; unlike the lists’ `Contract`, its ticker may be null.',
  },
);
export type ContractDetailDto = Static<typeof ContractDetail>;

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
    Type.Array(RationaleItem, {
      description: `Per-rule rationale; only for a plan reaching the ${fieldTier('signal', 'rationale')} tier, absent below it.`,
    }),
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

const DateOrOpen = (description: string) => Nullable(Type.String({ format: 'date', description }));

const HistoryEvent = Type.Object({
  entity_id: Type.String(),
  name: Type.String(),
  relation: Type.String({
    description: 'subsidiary, acquired, merged, spun_off, taken_private or joint_venture.',
  }),
  from: DateOrOpen('First day of the ownership (closing date); null: before the data begins.'),
  to: DateOrOpen('First day it no longer held; null: still holds.'),
  share: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'A joint venture stake, when known.' })),
  source: Type.String({ description: 'Public source of the event.' }),
});

export const CompanyHistory = Type.Object(
  {
    entity_id: Type.String(),
    name: Type.String(),
    cik: Nullable(Type.String()),
    listings: Type.Array(
      Type.Object({
        ticker: Type.String(),
        exchange: Type.String(),
        from: DateOrOpen('First day of the listing era; null: before the data begins.'),
        to: DateOrOpen('First day after it; null: still listed.'),
        series_ticker: Nullable(
          Type.String({
            description: 'The shipped price series holding this era (RTX for UTX); null: none.',
          }),
        ),
      }),
      { description: 'Listing eras of the registrant: a rename keeps the registrant and starts a new era.' },
    ),
    acquisitions: Type.Array(HistoryEvent, {
      description: 'Predecessors and acquisitions: what became part of it, with dates, oldest first.',
    }),
    owners: Type.Array(HistoryEvent, {
      description: 'Who owned it, oldest first: its successor when it was acquired, merged or taken private.',
    }),
  },
  { description: 'Point-in-time corporate history from the curated identity data.' },
);

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

const Fraction = (description: string) => Type.Number({ description });

/** A stored prediction of the prediction engine (src/domain/prediction.ts), with its outcome when known. */
export const Prediction = Type.Object({
  contract_id: Type.String({ description: 'The announcement event predicted.' }),
  ticker: Type.String(),
  made_at: Type.String({
    format: 'date-time',
    description: "When it was made: the event's available_at. Only closes at or before it were read.",
  }),
  day0: Type.String({
    format: 'date',
    description: 'The last trading day whose 16:00 New York close is at or before made_at.',
  }),
  horizon_days: Type.Integer({
    minimum: 1,
    description: 'Trading days after day0 (the benchmark calendar).',
  }),
  benchmark: Type.String({ description: 'A ticker served by /api/v1/market/candles.' }),
  expected_abnormal_return: Fraction(
    "The centre: adjusted-close return of the ticker from day0 to day0 + horizon minus the benchmark's, as a fraction.",
  ),
  interval: Type.Object({
    level: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'Stated coverage.' }),
    low: Fraction('Lower bound of the abnormal return.'),
    high: Fraction('Upper bound of the abnormal return.'),
  }),
  model: Type.Object({ name: Type.String(), version: Type.String() }),
  realized_abnormal_return: Nullable(
    Fraction(
      'The abnormal return realized, from the served adjusted closes; null until the horizon has passed.',
    ),
  ),
});
export type PredictionDto = Static<typeof Prediction>;
