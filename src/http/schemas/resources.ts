/** The HTTP envelopes around the service's records (src/shapes/resources.ts). */
import { Type } from 'typebox';
import { fieldTier } from '../../domain/field-tiers.ts';
import { LIMITER_STORES } from '../../infra/limiter.ts';
import {
  Candle,
  Company,
  CompanyHistory,
  Contract,
  ContractDetail,
  Decay,
  EngineName,
  Prediction,
  Regime,
  Signal,
  Tier,
  WeeklyPrice,
} from '../../shapes/resources.ts';
import { Nullable, Pagination, StringEnum } from './common.ts';

export * from '../../shapes/resources.ts';

export const EventItem = Type.Object({ contract: Contract, signal: Nullable(Signal) });
export const EventList = Type.Object({ data: Type.Array(EventItem), pagination: Pagination });
export const SignalItem = Type.Object({ signal: Signal, contract: Contract });
export const SignalList = Type.Object({ data: Type.Array(SignalItem), pagination: Pagination });
export const RegimeList = Type.Object({ data: Type.Array(Regime), pagination: Pagination });
export const ContractBundle = Type.Object({
  contract: ContractDetail,
  signal: Nullable(Signal),
  weekly_prices: Type.Array(WeeklyPrice),
  regime: Nullable(Regime, {
    description: `The market regime at the award date (as /api/v1/regimes serves it); null when none could be computed, and for a plan below the ${fieldTier('contract_bundle', 'regime')} tier.`,
  }),
  decay: Nullable(Decay),
});
export const ScoreResponse = Type.Object({ signal: Signal });
export const CompanyResponse = Type.Object({
  company: Company,
  recent_contracts: Type.Array(Contract),
  history: Nullable(CompanyHistory),
});

export const CandleList = Type.Array(Candle);

const Num = Nullable(Type.Number());

/** What the engine version's stored event study says beside its shifted-date placebos (docs/EVALUATION.md). */
const EngineEvidence = Type.Object(
  {
    verdict: Type.String({ description: 'In words: "Evidence: …" or "No evidence: …".' }),
    evidence: Type.Boolean({
      description: 'The real dates beat ≥ 95 % of the placebos and the date-clustered t is ≥ 2.5.',
    }),
    benchmark: Type.String(),
    horizon_days: Type.Integer(),
    top_minus_bottom: Num,
    t: Num,
    contracts: Type.Integer(),
    dates: Type.Integer(),
    placebo_percentile: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    within_company: Type.Object({ top_minus_bottom: Num, t: Num }),
    computed_at: Type.String({ format: 'date-time' }),
    page: Type.String({ description: "The dashboard's Evidence page of the engine: the whole study." }),
  },
  { description: 'Null until the version has been studied (the Evidence page or `market-intel evaluate`).' },
);

const Detail = Type.Optional(Type.String({ description: 'What is wrong, when not ok.' }));

const NullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const Health = Type.Object({
  ok: Type.Boolean(),
  failing: Type.Array(
    Type.Union([
      Type.Literal('db'),
      Type.Literal('limiter'),
      Type.Literal('webhooks'),
      Type.Literal('ingest'),
    ]),
    { description: 'The components that are not ok; empty when ok.' },
  ),
  db: Type.Object({ ok: Type.Boolean(), detail: Detail }),
  limiter: Type.Object({
    ok: Type.Boolean(),
    store: StringEnum(LIMITER_STORES, {
      description: 'Where rate limits are decided: this process (memory), the cluster primary, or Redis.',
    }),
    detail: Detail,
  }),
  webhooks: Type.Object({ ok: Type.Boolean(), detail: Detail }),
  ingest: Type.Object({
    ok: Type.Boolean(),
    scheduled: Type.Boolean({ description: 'Whether INGEST_SCHEDULE runs an ingest on a timer.' }),
    last_progress_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the scheduled ingest last saved progress (a page fetched); null before its first.',
    }),
    detail: Detail,
  }),
  announcements: Type.Object(
    {
      ok: Type.Boolean({
        description:
          'False when ANNOUNCEMENTS_LIVE is on and the release of the last business day that has passed was not seen. Not counted in `ok` or `failing`.',
      }),
      live: Type.Boolean({ description: 'Whether ANNOUNCEMENTS_LIVE polls the DoD feed.' }),
      last_page_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
        description: 'The newest release date the feed listed.',
      }),
      last_page_url: Type.Union([Type.String(), Type.Null()], { description: 'Its article.' }),
      last_poll_at: NullableTime,
      last_success_at: NullableTime,
      last_error: Type.Union([Type.String(), Type.Null()], {
        description:
          'The last failure (kept after later successes; compare last_error_at and last_success_at).',
      }),
      last_error_at: NullableTime,
      last_refused_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'When the site last refused the poll with 403 (see docs/OPERATIONS.md).',
      }),
      next_run_at: NullableTime,
      detail: Detail,
    },
    { description: 'The live DoD announcement poll (reported, never a 503).' },
  ),
  engines: Type.Array(
    Type.Object({
      name: EngineName,
      version: Type.String(),
      tier: Tier,
      evidence: Nullable(EngineEvidence),
    }),
  ),
  now: Type.String({ format: 'date-time' }),
});

const Share = Nullable(Type.Number({ minimum: 0, maximum: 1 }));
const Period = Type.Object({ from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }) });

/** The prediction model served, how it was fixed and how its stored predictions have done since. */
export const PredictionModelBlock = Type.Object({
  name: Type.String(),
  version: Type.String(),
  benchmark: Type.String(),
  horizon_days: Type.Integer(),
  level: Type.Number(),
  fit_period: Period,
  out_of_sample: Type.Object(
    {
      from: Type.String({ format: 'date', description: 'Predictions made on or after this date count.' }),
      n: Type.Integer({ description: 'Stored predictions made since `from` whose horizon has passed.' }),
      coverage: Share,
      mean_width: Nullable(Type.Number({ description: 'Mean high − low.' })),
      unconditional: Type.Object({
        low: Type.Number(),
        high: Type.Number(),
        width: Type.Number(),
        coverage: Share,
      }),
      realized_spread: Nullable(
        Type.Number({ description: "Spread of the realized values between the level's quantiles." }),
      ),
      skill_vs_zero: Nullable(
        Type.Number({ description: '1 − squared error of the centre / that of a zero forecast.' }),
      ),
    },
    { description: 'Recomputed from the stored predictions and the served closes at each request.' },
  ),
});

export const Predictions = Type.Object({
  data: Type.Array(Prediction),
  pagination: Pagination,
  model: PredictionModelBlock,
  note: Type.String(),
});

export const Liveness = Type.Object({ ok: Type.Literal(true) });
