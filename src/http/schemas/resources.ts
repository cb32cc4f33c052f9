/** The HTTP envelopes around the service's records (src/shapes/resources.ts). */
import { Type } from 'typebox';
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
import { Nullable, Pagination } from './common.ts';

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
    store: Type.String({ description: 'Where rate limits are decided: memory, cluster primary or redis.' }),
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
  engines: Type.Array(Type.Object({ name: EngineName, version: Type.String(), tier: Tier })),
  now: Type.String({ format: 'date-time' }),
});

export const Predictions = Type.Object({ data: Type.Array(Type.Unknown()), note: Type.String() });

export const Liveness = Type.Object({ ok: Type.Literal(true) });
