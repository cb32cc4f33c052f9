/**
 * Examples of the OpenAPI document, by operationId: real answers of the API on the demo data (an LMT
 * award, its signals, regime and candles; accounts and webhooks as the admin API created them), cut to
 * one or two items per list. Error examples are built by the API's own error factories. The document
 * test validates each against its schema and fails for an operation without one.
 */
import { type ServiceError, webhookErrors } from '../../services/errors.ts';
import { CSV_COLUMNS } from '../../store/export.ts';
import { KEYSETS } from '../../store/keyset.ts';
import { signedHeaders } from '../../webhooks/delivery.ts';
import { deliveryBody } from '../../webhooks/outbox.ts';
import { encodeCursor, filterDigest } from '../cursor.ts';
import { ApiError, errors } from '../errors.ts';

const CONTRACT = {
  id: 'CONT_AWD_FA868224CB001_9700_-NONE-_-NONE-',
  ticker: 'LMT',
  recipient_name: 'LOCKHEED MARTIN CORPORATION',
  award_date: '2024-09-27',
  contract_value: 2423365242,
  awarding_agency: 'Department of Defense',
  awarding_sub_agency: 'Department of the Air Force',
  description: 'LONG RANGE ANTI-SHIP MISSILE/JOINT AIR-TO-SURFACE STANDOFF MISSILE LARGE LOT PROCUREMENT',
  naics: null,
  psc: null,
  nlp_classification: 'shipbuilding',
  match_confidence: 0.99,
  match_method: 'exact_alias',
  source: 'usaspending',
  announced_at: null,
  first_seen_at: '2026-11-26T05:50:29.065Z',
  available_at: '2026-11-26T05:50:29.065Z',
  linked_id: null,
  link_method: null,
  entity: { id: 'lockheed_martin', name: 'Lockheed Martin Corporation' },
  owner_name: 'Lockheed Martin Corporation',
  series_ticker: 'LMT',
  resolution: {
    as_of: '2024-09-27',
    basis: 'award_date',
    resolver_version: 'pit-2-3f0c9a1d2b7e',
    no_ticker_reason: null,
    venture_parents: [],
  },
  source_url: null,
};

/** Lockheed Martin's history, shortened to one acquisition. */
const HISTORY = {
  entity_id: 'lockheed_martin',
  name: 'Lockheed Martin Corporation',
  cik: '0000936468',
  listings: [{ ticker: 'LMT', exchange: 'NYSE', from: '1995-03-15', to: null, series_ticker: 'LMT' }],
  acquisitions: [
    {
      entity_id: 'sikorsky',
      name: 'Sikorsky Aircraft Corporation',
      relation: 'acquired',
      from: '2015-11-06',
      to: null,
      share: null,
      source: 'https://en.wikipedia.org/wiki/Sikorsky_Aircraft',
    },
  ],
  owners: [],
};

const SIGNAL = {
  id: '01a21667-cc00-7186-bb30-057a2ece1f6d',
  contract_id: 'CONT_AWD_FA868224CB001_9700_-NONE-_-NONE-',
  engine_name: 'materiality',
  engine_version: '2.0.0',
  engine_tier: 'developer',
  signal_score: 97,
  importance_score: 100,
  confidence_score: 99,
  risk_score: 31,
  computed_at: '2026-11-26T05:50:31.210Z',
  rationale: [
    {
      rule: 'award_size',
      weight: 35,
      value: 1,
      contribution: 35,
      detail: 'award value $2,423,365,242',
    },
    {
      rule: 'relative_to_median',
      weight: 25,
      value: 1,
      contribution: 25,
      detail: '49.31× the trailing 365-day median of $49,149,497',
    },
    {
      rule: 'share_of_trailing',
      weight: 10,
      value: 0.751,
      contribution: 7.5099,
      detail: '17.91% of $ awarded over 87 awards in 365 days',
    },
    {
      rule: 'agency',
      weight: 10,
      value: 1,
      contribution: 10,
      detail: 'Department of Defense (defense)',
    },
    {
      rule: 'classification',
      weight: 15,
      value: 1,
      contribution: 15,
      detail: 'shipbuilding',
    },
    {
      rule: 'match_confidence',
      weight: 5,
      value: 0.95,
      contribution: 4.75,
      detail: 'ticker match confidence 0.99',
    },
  ],
};

const RESCORED = {
  id: '01a21667-cc00-7130-b2c8-a77e4f6dd293',
  contract_id: 'CONT_AWD_FA868224CB001_9700_-NONE-_-NONE-',
  engine_name: 'regime-aware',
  engine_version: '1.1.0',
  engine_tier: 'intelligence',
  signal_score: 100,
  importance_score: 100,
  confidence_score: 97,
  risk_score: 34,
  computed_at: '2026-11-26T05:50:36.430Z',
  rationale: [
    // The materiality engine's rules, the same values: regime-aware adds the regime's to them.
    ...SIGNAL.rationale,
    {
      rule: 'regime_risk_on',
      weight: 10,
      value: 0.7815,
      contribution: 7.8146,
      detail: 'risk_on probability 0.781 as of 2024-09-27 (dominant risk_on)',
    },
    {
      rule: 'regime_risk_off',
      weight: -8,
      value: 0.0025,
      contribution: -0.0203,
      detail: 'risk_off probability 0.003 as of 2024-09-27 (dominant risk_on)',
    },
    {
      rule: 'regime_high_volatility',
      weight: -6,
      value: 0.2104,
      contribution: -1.2622,
      detail: 'high_volatility probability 0.210 as of 2024-09-27 (dominant risk_on)',
    },
    {
      rule: 'sector_relative_strength',
      weight: 50,
      value: 0.0776,
      contribution: 3.8797,
      detail: "ITA 60-day return minus SPY's: 7.76%",
    },
  ],
};

const REGIME = {
  contract_id: 'CONT_AWD_FA868224CB001_9700_-NONE-_-NONE-',
  ticker: 'LMT',
  as_of: '2024-09-27',
  benchmark: 'SPY',
  dominant: 'risk_on',
  scores: {
    risk_on: 0.781457,
    risk_off: 0.002541,
    high_volatility: 0.210367,
    range_bound: 0.005635,
  },
  features: {
    trend: 0.061563,
    ret_20d: 0.026637,
    ret_60d: 0.039464,
    vol_20d: 0.139553,
    drawdown: -0.00145,
    spy_sma50: 540.599158,
    spy_sma200: 509.248504,
    vol_pct_1y: 0.763889,
    ita_rel_60d: 0.077594,
    xli_rel_60d: 0.072387,
  },
  engine_version: 'regime-1',
};

const CONTRACT_BUNDLE = {
  contract: CONTRACT,
  signal: SIGNAL,
  weekly_prices: [
    {
      week_start: '2024-07-29',
      open: 522.85629,
      high: 532.343449,
      low: 513.625303,
      close: 520.626831,
      volume: 1484800,
    },
    {
      week_start: '2024-08-05',
      open: 524.791624,
      high: 533.747503,
      low: 509.213663,
      close: 523.292603,
      volume: 5695500,
    },
  ],
  regime: REGIME,
  decay: {
    model: 'exponential',
    half_life_days: 30,
    age_days: 790,
    strength: 0,
    effective_score: 0,
  },
};

const COMPANY = {
  ticker: 'LMT',
  name: 'LOCKHEED MARTIN CORP',
  cik: '0000936468',
  exchange: 'NYSE',
  sector: 'Industrials',
  industry: 'Aerospace & Defense',
  aliases: [
    'ASTROTECH SPACE OPERATIONS',
    'LOCKHEED MARTIN',
    'LOCKHEED MARTIN GLOBAL',
    'LOCKHEED MARTIN INTEGRATED SYSTEMS',
    'LOCKHEED MARTIN SERVICES',
    'LOCKHEED MARTIN SIPPICAN',
    'LOCKHEED MARTIN TACTICAL SYSTEMS',
    'LOCKHEED MISSILES AND SPACE COMP',
    'POLSKIE ZAKLADY LOTNICZE SP Z O O',
    'SIKORSKY AIRCRAFT',
  ],
  contract_count: 547,
  total_contract_value: 81619761389,
};

const HEALTH = {
  ok: true,
  failing: [],
  db: {
    ok: true,
  },
  limiter: {
    ok: true,
    store: 'memory',
  },
  webhooks: {
    ok: true,
  },
  ingest: {
    ok: true,
    scheduled: false,
    last_progress_at: null,
  },
  announcements: {
    ok: true,
    live: true,
    last_page_date: '2026-11-25',
    last_page_url: 'https://www.war.gov/News/Contracts/Contract/Article/4343860/',
    last_poll_at: '2026-11-26T05:45:00.120Z',
    last_success_at: '2026-11-26T05:45:00.120Z',
    last_error: null,
    last_error_at: null,
    last_refused_at: null,
    next_run_at: '2026-11-26T13:00:00.000Z',
  },
  engines: [
    {
      name: 'materiality',
      version: '2.0.0',
      tier: 'developer',
      evidence: {
        verdict:
          'No evidence: top − bottom +0.29 % (t 1.09), above 92 % of 38 placebos; the bar is beating ≥ 95 % of shifted-date placebos and t ≥ 2.5.',
        evidence: false,
        benchmark: 'SPY',
        horizon_days: 5,
        top_minus_bottom: 0.002915,
        t: 1.09,
        contracts: 1178,
        dates: 696,
        placebo_percentile: 0.921053,
        within_company: { top_minus_bottom: 0.002493, t: 0.95 },
        computed_at: '2026-11-26T05:41:12.004Z',
        page: '/dashboard/#/evidence?engine=materiality',
      },
    },
    {
      name: 'regime-aware',
      version: '1.1.0',
      tier: 'intelligence',
      evidence: null,
    },
  ],
  now: '2026-11-26T05:50:36.296Z',
};

const USER = {
  id: 'd742f09a-c5fa-4756-95cc-dc6b35a92e8d',
  email: 'analyst@example.com',
  plan: 'developer',
  is_admin: false,
  created_at: '2026-11-26T05:50:36.529Z',
};

const KEY = {
  id: 'f5b0780f-6f04-4e86-9962-33210a975cdd',
  user_id: 'd742f09a-c5fa-4756-95cc-dc6b35a92e8d',
  name: 'research notebook',
  mode: 'live',
  scopes: ['read'],
  display_prefix: 'iv_live_HxOt',
  created_at: '2026-11-26T05:50:36.543Z',
  last_used_at: null,
  revoked_at: null,
};

const WEBHOOK = {
  id: '7b32ab2e-5fc4-4dbe-9d96-3c59d0f97626',
  user_id: 'd742f09a-c5fa-4756-95cc-dc6b35a92e8d',
  url: 'https://hooks.example.com/market-intel',
  status: 'active',
  created_at: '2026-11-26T05:50:36.597Z',
  disabled_at: null,
  failure_streak: 0,
  failing_since: null,
  retry_at: null,
  suspended_at: null,
  previous_secret_expires_at: null,
};

const DELIVERY = {
  id: '4fb2cebd-0b1c-444f-aa7d-672ca8e00aed',
  webhook_id: '7b32ab2e-5fc4-4dbe-9d96-3c59d0f97626',
  event: 'signal.created',
  status: 'pending',
  attempts: 0,
  series: 1,
  next_attempt_at: '2026-11-26T05:50:36.636Z',
  last_status: null,
  last_error: null,
  created_at: '2026-11-26T05:50:36.636Z',
  updated_at: '2026-11-26T05:50:36.636Z',
};

const DELIVERED = {
  id: '4fb2cebd-0b1c-444f-aa7d-672ca8e00aed',
  webhook_id: '7b32ab2e-5fc4-4dbe-9d96-3c59d0f97626',
  event: 'signal.created',
  status: 'succeeded',
  attempts: 1,
  series: 1,
  next_attempt_at: null,
  last_status: 200,
  last_error: null,
  created_at: '2026-11-26T05:50:36.636Z',
  updated_at: '2026-11-26T05:50:37.196Z',
};

const ATTEMPT = {
  id: '9b1f3c52-7d44-4e0a-8a51-2f6e0c9d7a13',
  delivery_id: '4fb2cebd-0b1c-444f-aa7d-672ca8e00aed',
  series: 1,
  attempt_no: 1,
  started_at: '2026-11-26T05:50:37.012Z',
  duration_ms: 184,
  status_code: 200,
  error: null,
};

const page = (data: unknown[], limit = 50, nextCursor: string | null = null) => ({
  data,
  pagination: { limit, offset: 0, count: data.length, next_cursor: nextCursor },
});

/** A first page of one event with more to come: its cursor is the one the API gives after this award. */
const EVENTS = page(
  [{ contract: CONTRACT, signal: SIGNAL }],
  1,
  encodeCursor(KEYSETS.events, filterDigest({}, {}), [CONTRACT.award_date, CONTRACT.id]),
);
const WEBHOOKS = page([WEBHOOK]);
const DELIVERIES = page([DELIVERED]);
const ATTEMPTS = page([ATTEMPT], 1000);
const RESEND = {
  delivery: {
    id: '4fb2cebd-0b1c-444f-aa7d-672ca8e00aed',
    webhook_id: '7b32ab2e-5fc4-4dbe-9d96-3c59d0f97626',
    event: 'signal.created',
    status: 'pending',
    attempts: 0,
    series: 2,
    next_attempt_at: '2026-11-26T06:02:11.408Z',
    last_status: 200,
    last_error: null,
    created_at: '2026-11-26T05:50:36.636Z',
    updated_at: '2026-11-26T06:02:11.408Z',
  },
};
const ENABLED = { webhook: WEBHOOK };
const DELETED = {
  webhook: {
    id: '7b32ab2e-5fc4-4dbe-9d96-3c59d0f97626',
    user_id: 'd742f09a-c5fa-4756-95cc-dc6b35a92e8d',
    url: 'https://hooks.example.com/market-intel',
    status: 'deleted',
    created_at: '2026-11-26T05:50:36.597Z',
    disabled_at: '2026-11-26T05:50:36.655Z',
    failure_streak: 0,
    failing_since: null,
    retry_at: null,
    suspended_at: null,
    previous_secret_expires_at: null,
  },
};
const NEW_WEBHOOK = { webhook: WEBHOOK, secret: 'whsec_L2OzosiZbFSRcuZ7i3Kuw5SQerg/iRHC9UEcL0uPJ2w=' };
const ROTATED = {
  webhook: { ...WEBHOOK, previous_secret_expires_at: '2026-11-27T09:14:02.518Z' },
  secret: 'whsec_8xq2Vd7nYc0l+Jb3sRk5TfWmA1eZpH6uGo9NiLyQ4Ew=',
};
const TESTED = {
  delivery: {
    ...DELIVERY,
    id: 'c2d9a7e4-1f53-4b8e-9a06-5e3b7c1d2f84',
    event: 'webhook.test',
    next_attempt_at: '2026-11-26T09:14:02.518Z',
    created_at: '2026-11-26T09:14:02.518Z',
    updated_at: '2026-11-26T09:14:02.518Z',
  },
};
const WEBHOOK_BODY = { url: WEBHOOK.url };

/** A response's examples by content type, for an answer served in more than one (the exports). */
export class ByMediaType {
  constructor(readonly examples: Readonly<Record<string, unknown>>) {}
}

const csvCell = (value: unknown): string => {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/**
 * An export of these list items as each format writes them: the CSV text; for NDJSON, described (as
 * OpenAPI 3.1 describes a sequential media type) as the array of its lines' items, those items.
 */
function exportOf(items: readonly { contract: Record<string, unknown>; signal: Record<string, unknown> }[]) {
  const value = (item: (typeof items)[number], column: string): unknown => {
    if (column === 'contract_id') return item.contract.id;
    if (column === 'signal_id') return item.signal.id;
    return column in item.signal && !(column in item.contract) ? item.signal[column] : item.contract[column];
  };
  const names = CSV_COLUMNS.map(([name]) => name);
  const records = [names, ...items.map((item) => names.map((name) => value(item, name)))];
  return new ByMediaType({
    'text/csv': records.map((record) => `${record.map(csvCell).join(',')}\r\n`).join(''),
    'application/x-ndjson': items,
  });
}

export interface OperationExamples {
  /** The request body, for an operation that takes one. */
  request?: unknown;
  /** Response bodies by status; error statuses without one get errorExample's. */
  responses: Record<string, unknown>;
}

const EXAMPLES: Record<string, OperationExamples> = {
  getMetrics: {
    responses: {
      200:
        '# HELP http_requests_total Requests answered, by method, route template and status.\n' +
        '# TYPE http_requests_total counter\n' +
        'http_requests_total{method="GET",route="/api/v1/events",status="200"} 1523\n',
    },
  },
  getHealth: {
    responses: {
      200: HEALTH,
      503: {
        ...HEALTH,
        ok: false,
        failing: ['webhooks'],
        webhooks: { ok: false, detail: 'the oldest due delivery has waited 94 s (limit 60 s)' },
      },
    },
  },
  getHealthLive: { responses: { 200: { ok: true } } },
  getOpenapiJson: {
    responses: { 200: { openapi: '3.1.0', info: { title: 'market-intel API', version: '1.0.0' } } },
  },
  getEvents: { responses: { 200: EVENTS } },
  getContracts: { responses: { 200: EVENTS } },
  getContractsId: { responses: { 200: CONTRACT_BUNDLE } },
  getContractsIdScore: { responses: { 200: { signal: SIGNAL } } },
  postContractsIdScore: { responses: { 200: { signal: RESCORED } } },
  getSignals: { responses: { 200: page([{ signal: SIGNAL, contract: CONTRACT }], 1) } },
  getEventsExport: { responses: { 200: exportOf([{ contract: CONTRACT, signal: SIGNAL }]) } },
  getSignalsExport: { responses: { 200: exportOf([{ signal: SIGNAL, contract: CONTRACT }]) } },
  getCompaniesTicker: {
    responses: { 200: { company: COMPANY, recent_contracts: [CONTRACT], history: HISTORY } },
  },
  getMarketCandlesTicker: {
    responses: {
      200: [
        {
          date: '2026-08-20',
          open: 586.669983,
          high: 591.679993,
          low: 569.539978,
          close: 571.47998,
          adj_close: 571.47998,
          volume: 1555000,
        },
        {
          date: '2026-08-21',
          open: 571.47998,
          high: 572.952087,
          low: 563.299988,
          close: 563.570007,
          adj_close: 563.570007,
          volume: 785078,
        },
      ],
    },
  },
  getBenchmarks: {
    responses: {
      200: [
        {
          date: '2026-08-20',
          open: 765.960022,
          high: 768.150024,
          low: 762.039978,
          close: 762.599976,
          adj_close: 762.599976,
          volume: 45520300,
        },
        {
          date: '2026-08-21',
          open: 766.049988,
          high: 767.849976,
          low: 764.169983,
          close: 765.719971,
          adj_close: 765.719971,
          volume: 38583716,
        },
      ],
    },
  },
  getRegimes: { responses: { 200: page([REGIME]) } },
  getPredictions: {
    responses: {
      200: {
        ...page([
          {
            contract_id: 'DOD_ANN_2019-03-01_0007_1',
            ticker: 'GD',
            made_at: '2019-03-01T22:00:00.000Z',
            day0: '2019-03-01',
            horizon_days: 5,
            benchmark: 'SPY',
            expected_abnormal_return: 0,
            interval: { level: 0.8, low: -0.02734, high: 0.035061 },
            model: { name: 'abnormal-return-5d', version: '1.0.0' },
            realized_abnormal_return: -0.011529,
          },
        ]),
        model: {
          name: 'abnormal-return-5d',
          version: '1.0.0',
          benchmark: 'SPY',
          horizon_days: 5,
          level: 0.8,
          fit_period: { from: '2014-08-01', to: '2016-12-31' },
          out_of_sample: {
            from: '2017-01-01',
            n: 175,
            coverage: 0.811429,
            mean_width: 0.061956,
            unconditional: { low: -0.0243, high: 0.0325, width: 0.0568, coverage: 0.788571 },
            realized_spread: 0.065233,
            skill_vs_zero: 0,
          },
        },
        note: "The centre is 0: no rule here predicts the direction of the move (docs/EVALUATION.md). The interval is the forecast: scaled by the ticker's recent volatility against the benchmark, its quantiles fixed on the fit period. Realized values are null until the horizon has passed.",
      },
    },
  },
  getUsage: {
    responses: {
      200: {
        key_id: '4da00ca1-8dce-430c-abe3-8bebf5638086',
        window: '1h',
        from: '2026-11-26T04:51:00.000Z',
        to: '2026-11-26T05:50:36.520Z',
        bucket: 'minute',
        totals: {
          requests: 11,
          errors: 0,
        },
        buckets: [
          {
            start: '2026-11-26T05:49:00.000Z',
            requests: 0,
            errors: 0,
          },
          {
            start: '2026-11-26T05:50:00.000Z',
            requests: 11,
            errors: 0,
          },
        ],
      },
    },
  },
  getAdminUsers: { responses: { 200: page([USER], 1) } },
  postAdminUsers: {
    request: { email: USER.email, plan: 'developer' },
    responses: { 201: { user: USER } },
  },
  patchAdminUsersId: {
    request: { plan: 'institutional' },
    responses: { 200: { user: { ...USER, plan: 'institutional' } } },
  },
  postAdminUsersIdKeys: {
    request: { name: KEY.name, scopes: KEY.scopes, mode: KEY.mode },
    responses: { 201: { key: KEY, secret: 'iv_live_HxOtg2lyMC3lFPw287MYKE7793SqKW2J2FxnJCwYapK' } },
  },
  getAdminUsersIdKeys: {
    responses: {
      200: page([
        { ...KEY, last_used_at: '2026-11-26T05:50:36.551Z' },
        {
          ...KEY,
          id: '0b6d1c7e-2f43-4d8a-9a51-7c3e8f2d4b60',
          name: 'old notebook',
          display_prefix: 'iv_live_Q8rN',
          created_at: '2026-11-26T05:50:36.548Z',
          revoked_at: '2026-11-26T05:50:36.560Z',
        },
      ]),
    },
  },
  deleteAdminKeysId: {
    responses: {
      200: {
        key: {
          id: 'f5b0780f-6f04-4e86-9962-33210a975cdd',
          user_id: 'd742f09a-c5fa-4756-95cc-dc6b35a92e8d',
          name: 'research notebook',
          mode: 'live',
          scopes: ['read'],
          display_prefix: 'iv_live_HxOt',
          created_at: '2026-11-26T05:50:36.543Z',
          last_used_at: null,
          revoked_at: '2026-11-26T05:50:36.562Z',
        },
      },
    },
  },
  postAdminIngest: {
    request: {
      awards: [
        {
          contract_award_unique_key: 'CONT_AWD_FA868224CB001_9700_-NONE-_-NONE-',
          award_id_piid: 'FA868224CB001',
          recipient_name: 'LOCKHEED MARTIN CORPORATION',
          recipient_parent_name: 'LOCKHEED MARTIN CORPORATION',
          awarding_agency_name: 'Department of Defense',
          awarding_sub_agency_name: 'Department of the Air Force',
          current_total_value_of_award: 2423365242,
          award_base_action_date: '2024-09-27',
          prime_award_base_transaction_description:
            'LONG RANGE ANTI-SHIP MISSILE/JOINT AIR-TO-SURFACE STANDOFF MISSILE LARGE LOT PROCUREMENT',
        },
      ],
    },
    responses: {
      200: {
        received: 1,
        inserted: 0,
        updated: 0,
        matched: 1,
        unmatched: 0,
        rejected: [],
        signals_created: 0,
      },
    },
  },
  getAdminUnmatchedRecipients: {
    responses: {
      200: {
        data: [
          {
            name_norm: 'MASSACHUSETTS INSTITUTE OF TECHNOLOGY',
            sample_name: 'MASSACHUSETTS INSTITUTE OF TECHNOLOGY',
            award_count: 16,
            total_value: 19254847435,
          },
          {
            name_norm: 'CALIFORNIA INSTITUTE OF TECHNOLOGY',
            sample_name: 'CALIFORNIA INSTITUTE OF TECHNOLOGY',
            award_count: 14,
            total_value: 17257351395,
          },
        ],
        pagination: {
          limit: 2,
          offset: 0,
          count: 2,
          next_cursor: null,
        },
      },
    },
  },
  getWebhooks: { responses: { 200: WEBHOOKS } },
  postWebhooks: { request: WEBHOOK_BODY, responses: { 201: NEW_WEBHOOK } },
  deleteWebhooksId: { responses: { 200: DELETED } },
  postWebhooksIdEnable: { responses: { 200: ENABLED } },
  getWebhooksIdDeliveries: { responses: { 200: DELIVERIES } },
  getWebhooksDeliveriesIdAttempts: { responses: { 200: ATTEMPTS } },
  postWebhooksDeliveriesIdResend: { responses: { 202: RESEND } },
  postWebhooksIdTest: { responses: { 202: TESTED } },
  postWebhooksIdRotateSecret: { request: { overlap_seconds: 86_400 }, responses: { 200: ROTATED } },
  postAdminUsersIdWebhooks: { request: WEBHOOK_BODY, responses: { 201: NEW_WEBHOOK } },
  getAdminUsersIdWebhooks: { responses: { 200: WEBHOOKS } },
  deleteAdminWebhooksId: { responses: { 200: DELETED } },
  postAdminWebhooksIdEnable: { responses: { 200: ENABLED } },
  getAdminWebhooksIdDeliveries: { responses: { 200: DELIVERIES } },
  getAdminDeliveriesIdAttempts: { responses: { 200: ATTEMPTS } },
  postAdminDeliveriesIdResend: { responses: { 202: RESEND } },
};

export const operationExamples = (operationId: string): OperationExamples | undefined =>
  EXAMPLES[operationId];

const REQUEST_ID = '5f0c8a1e-3b7d-4c2a-9e61-0d4b2f8a7c35';

/** A service's broken rule as the error handler answers it (its kinds used here are error codes too). */
const answered = (error: ServiceError) =>
  new ApiError(error.kind === 'conflict' ? 'conflict' : 'not_found', error.message);

/** The 404 of a path, worded as the API words it for the resource the path names last. */
function notFound(path: string): ApiError {
  if (path.includes('/deliveries/')) return answered(webhookErrors.deliveryNotFound(DELIVERY.id));
  if (path.includes('/webhooks/')) return answered(webhookErrors.webhookNotFound(WEBHOOK.id));
  if (path.includes('/keys/')) return errors.keyNotFound(KEY.id);
  if (path.includes('/users/')) return errors.userNotFound(USER.id);
  if (path.includes('{ticker}')) return errors.unknownTicker('ZZZZ');
  return errors.contractNotFound('CONT_AWD_UNKNOWN');
}

const ERRORS: Record<number, (path: string) => ApiError> = {
  400: () => errors.invalidParameter('limit', 'must be <= 200'),
  401: () => errors.missingKey(),
  403: () => errors.insufficientScope('write', ['read']),
  404: notFound,
  409: (path) => {
    if (path.endsWith('/resend')) return answered(webhookErrors.deliveryUnfinished(DELIVERY.id, 'pending'));
    if (path.endsWith('/test')) return answered(webhookErrors.suspendedWebhookTested(WEBHOOK.id));
    if (path.endsWith('/rotate-secret')) return answered(webhookErrors.deletedWebhookEnabled(WEBHOOK.id));
    return errors.idempotencyInProgress();
  },
  413: () => errors.payloadTooLarge(),
  422: () => errors.idempotencyKeyReused(),
  415: () => errors.unsupportedMediaType('text/plain'),
  429: () => errors.rateLimited(12),
  503: () => errors.exportsBusy(4),
};

/** The error envelope a status of `path` answers with; undefined for a status without one here. */
export function errorExample(status: number, path: string) {
  return ERRORS[status]?.(path).toEnvelope(REQUEST_ID);
}

const { rationale: _rescoredRationale, ...RESCORED_WITHOUT_RATIONALE } = RESCORED;

/** A delivery as the worker sends it: its ids, both schemes' signature headers and the body. */
function signedExample(stored: Record<string, unknown>, deliveryId: string, unixSec: number) {
  const body = deliveryBody(stored, deliveryId);
  const secrets = [NEW_WEBHOOK.secret];
  const headers = signedHeaders(
    { event: String(stored.event), deliveryId, eventId: String(stored.id), secrets, body },
    unixSec,
  );
  return { delivery: deliveryId, headers, payload: JSON.parse(body) as Record<string, unknown> };
}

/**
 * The two events' deliveries. Verifiable: the example webhook's secret over the bytes the worker sends
 * for these deliveries, in both schemes.
 */
export function webhookExamples() {
  return {
    'signal.created': signedExample(
      {
        id: '0e9d4b7a-63c1-4f2e-8a5d-b17c9e20f3a6',
        event: 'signal.created',
        data: { signal: RESCORED_WITHOUT_RATIONALE, contract: CONTRACT },
        ts: 1795672236629,
      },
      DELIVERY.id,
      1795672237,
    ),
    'webhook.test': signedExample(
      {
        id: '5a1c8e3f-94b2-4d7a-b6e0-2f8d3c9a1e75',
        event: 'webhook.test',
        data: { webhook_id: WEBHOOK.id },
        ts: 1795684442518,
        test: true,
      },
      TESTED.delivery.id,
      1795684443,
    ),
  };
}
