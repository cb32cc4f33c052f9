/** The HTTP envelopes around the service's records (src/shapes/resources.ts). */
import { Type } from 'typebox';
import { LIMITER_STORES } from '../../infra/limiter.ts';
import {
  Candle,
  Company,
  Contract,
  Decay,
  EngineName,
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
  contract: Contract,
  signal: Nullable(Signal),
  weekly_prices: Type.Array(WeeklyPrice),
  regime: Nullable(Regime),
  decay: Nullable(Decay),
});
export const ScoreResponse = Type.Object({ signal: Signal });
export const CompanyResponse = Type.Object({ company: Company, recent_contracts: Type.Array(Contract) });

export const CandleList = Type.Array(Candle);

const Detail = Type.Optional(Type.String({ description: 'What is wrong, when not ok.' }));

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
  engines: Type.Array(Type.Object({ name: EngineName, version: Type.String(), tier: Tier })),
  now: Type.String({ format: 'date-time' }),
});

export const Predictions = Type.Object({ data: Type.Array(Type.Unknown()), note: Type.String() });

export const Liveness = Type.Object({ ok: Type.Literal(true) });
