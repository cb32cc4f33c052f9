// Generated from openapi.json by scripts/generate-sdk-types.ts (`npm run sdk:generate`). Do not edit.
// Document: market-intel API 1.0.0

export interface ApiKey {
  /** @format uuid */
  id: string;
  /** @format uuid */
  user_id: string;
  name: string;
  mode: KeyMode;
  scopes: Scope[];
  /** First 12 characters of the key, for recognising it. */
  display_prefix: string;
  /** @format date-time */
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface Attempt {
  /** @format uuid */
  id: string;
  /** @format uuid */
  delivery_id: string;
  series: number;
  attempt_no: number;
  /** @format date-time */
  started_at: string;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
}

export interface AttemptList {
  data: Attempt[];
  pagination: Pagination;
}

export interface Candle {
  /** @format date */
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  adj_close: number;
  volume: number;
}

export type CandleList = Candle[];

export type Classification = "aircraft" | "shipbuilding" | "missiles_munitions" | "space" | "ground_vehicles" | "electronics_comms" | "it_services" | "cybersecurity" | "research_development" | "construction_facilities" | "logistics_supply" | "healthcare" | "professional_services" | "other";

export interface Company {
  ticker: string;
  name: string;
  cik: string | null;
  exchange: string | null;
  sector: string | null;
  industry: string | null;
  aliases: string[];
  contract_count: number;
  total_contract_value: number;
}

/** Point-in-time corporate history from the curated identity data. */
export interface CompanyHistory {
  entity_id: string;
  name: string;
  cik: string | null;
  /** Listing eras of the registrant: a rename keeps the registrant and starts a new era. */
  listings: Array<{
    ticker: string;
    exchange: string;
    from: string | null;
    to: string | null;
    series_ticker: string | null;
  }>;
  /** Predecessors and acquisitions: what became part of it, with dates, oldest first. */
  acquisitions: Array<{
    entity_id: string;
    name: string;
    /** subsidiary, acquired, merged, spun_off, taken_private or joint_venture. */
    relation: string;
    from: string | null;
    to: string | null;
    share: number | null;
    /** Public source of the event. */
    source: string;
  }>;
  /** Who owned it, oldest first: its successor when it was acquired, merged or taken private. */
  owners: Array<{
    entity_id: string;
    name: string;
    /** subsidiary, acquired, merged, spun_off, taken_private or joint_venture. */
    relation: string;
    from: string | null;
    to: string | null;
    share: number | null;
    /** Public source of the event. */
    source: string;
  }>;
}

export interface CompanyResponse {
  company: Company;
  recent_contracts: Contract[];
  history: CompanyHistory | null;
}

/** A contract award credited to the listed company that owned its recipient on the date: lists, exports, company pages and webhooks serve only these, so `ticker` is never null here. */
export interface Contract {
  /** USASpending generated award id (prefix CONT_AWD_), or for an awardee of a DoD contract announcement DOD_ANN_<date>_<paragraph>_<position>. */
  id: string;
  /** Ticker of the company that owned the recipient on the award (or announcement) date, as it traded then: a 2010 award to Sikorsky is UTX (United Technologies), a 2017 award to Rockwell Collins is COL. */
  ticker: string;
  recipient_name: string;
  /** @format date */
  award_date: string;
  /** Current total value of the award in whole US dollars. */
  contract_value: number;
  awarding_agency: string;
  awarding_sub_agency: string | null;
  description: string | null;
  naics: string | null;
  psc: string | null;
  nlp_classification: Classification;
  match_confidence: number;
  /** exact_alias: the recipient name is a known alias of the company; parent_alias: its parent company name is; fuzzy: the closest company name above the similarity threshold. For a contract whose owner had no ticker, how its entity was identified. */
  match_method: MatchMethod;
  /** usaspending: an award record; announcement: an awardee of a DoD daily contract announcement. */
  source: ContractSource;
  announced_at: string | null;
  /**
   * When the event reached this service.
   * @format date-time
   */
  first_seen_at: string;
  /**
   * When the public could first know it: announced_at when announced, else first_seen_at.
   * @format date-time
   */
  available_at: string;
  linked_id: string | null;
  link_method: LinkMethod | null;
  entity: ResolvedEntity | null;
  owner_name: string | null;
  series_ticker: string | null;
  resolution: Resolution;
  source_url: string | null;
}

export interface ContractBundle {
  contract: ContractDetail;
  signal: Signal | null;
  weekly_prices: WeeklyPrice[];
  /** The market regime at the award date (as /api/v1/regimes serves it); null when none could be computed, and for a plan below the intelligence tier. */
  regime: Regime | null;
  decay: Decay | null;
}

/** A contract with its point-in-time resolution; unlike the lists’ `Contract`, its ticker may be null. */
export interface ContractDetail {
  /** USASpending generated award id (prefix CONT_AWD_), or for an awardee of a DoD contract announcement DOD_ANN_<date>_<paragraph>_<position>. */
  id: string;
  /** Ticker of the company that owned the recipient on the award (or announcement) date, as it traded then: a 2010 award to Sikorsky is UTX (United Technologies), a 2017 award to Rockwell Collins is COL. null when the owner on the date had no listed stock; see resolution.no_ticker_reason (such a contract is served only here, never in a list or export). */
  ticker: string | null;
  recipient_name: string;
  /** @format date */
  award_date: string;
  /** Current total value of the award in whole US dollars. */
  contract_value: number;
  awarding_agency: string;
  awarding_sub_agency: string | null;
  description: string | null;
  naics: string | null;
  psc: string | null;
  nlp_classification: Classification;
  match_confidence: number;
  /** exact_alias: the recipient name is a known alias of the company; parent_alias: its parent company name is; fuzzy: the closest company name above the similarity threshold. For a contract whose owner had no ticker, how its entity was identified. */
  match_method: MatchMethod;
  /** usaspending: an award record; announcement: an awardee of a DoD daily contract announcement. */
  source: ContractSource;
  announced_at: string | null;
  /**
   * When the event reached this service.
   * @format date-time
   */
  first_seen_at: string;
  /**
   * When the public could first know it: announced_at when announced, else first_seen_at.
   * @format date-time
   */
  available_at: string;
  linked_id: string | null;
  link_method: LinkMethod | null;
  entity: ResolvedEntity | null;
  owner_name: string | null;
  series_ticker: string | null;
  resolution: Resolution;
  source_url: string | null;
}

export type ContractSource = "usaspending" | "announcement";

export interface Decay {
  model: "exponential";
  half_life_days: number;
  age_days: number;
  strength: number;
  effective_score: number;
}

export interface Delivery {
  /**
   * Sent as X-Service-Delivery, the same on every attempt.
   * @format uuid
   */
  id: string;
  /** @format uuid */
  webhook_id: string;
  event: WebhookEvent;
  status: DeliveryStatus;
  /** Attempts made in the current series (at most 6). */
  attempts: number;
  /** Attempt series: 1, plus one per resend. */
  series: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  /** @format date-time */
  created_at: string;
  /** @format date-time */
  updated_at: string;
}

export interface DeliveryList {
  data: Delivery[];
  pagination: Pagination;
}

export interface DeliveryResponse {
  delivery: Delivery;
}

export type DeliveryStatus = "pending" | "delivering" | "succeeded" | "failed";

export type EngineName = "materiality" | "regime-aware" | "announcement-size" | "announcement-dv";

/** Error envelope */
export interface Error {
  error: {
    status: number;
    message: string;
    /** Stable snake_case error code; `status` is always the one this code maps to. */
    code: "invalid_parameter" | "invalid_body" | "unauthorized" | "insufficient_scope" | "tier_required" | "forbidden" | "bad_request" | "not_found" | "method_not_allowed" | "request_timeout" | "conflict" | "idempotency_in_progress" | "payload_too_large" | "uri_too_long" | "unsupported_media_type" | "idempotency_key_reused" | "rate_limited" | "headers_too_large" | "internal" | "unavailable";
    /** On `invalid_parameter` and `invalid_body`: the query, path or header parameter, or the body field (a dotted path such as `events.0`), at fault. Absent when no single one is (a body that is not JSON). */
    param?: string;
    request_id?: string;
  };
}

export interface EventItem {
  contract: Contract;
  signal: Signal | null;
}

export interface EventList {
  data: EventItem[];
  pagination: Pagination;
}

export interface Health {
  ok: boolean;
  /** The components that are not ok; empty when ok. */
  failing: Array<"db" | "limiter" | "webhooks" | "ingest">;
  db: {
    ok: boolean;
    /** What is wrong, when not ok. */
    detail?: string;
  };
  limiter: {
    ok: boolean;
    /** Where rate limits are decided: this process (memory), the cluster primary, or Redis. */
    store: "memory" | "cluster primary" | "redis";
    /** What is wrong, when not ok. */
    detail?: string;
  };
  webhooks: {
    ok: boolean;
    /** What is wrong, when not ok. */
    detail?: string;
  };
  ingest: {
    ok: boolean;
    /** Whether INGEST_SCHEDULE runs an ingest on a timer. */
    scheduled: boolean;
    /** When the scheduled ingest last saved progress (a page fetched); null before its first. */
    last_progress_at: string | null;
    /** What is wrong, when not ok. */
    detail?: string;
  };
  /** The live DoD announcement poll (reported, never a 503). */
  announcements: {
    /** False when ANNOUNCEMENTS_LIVE is on and the release of the last business day that has passed was not seen. Not counted in `ok` or `failing`. */
    ok: boolean;
    /** Whether ANNOUNCEMENTS_LIVE polls the DoD feed. */
    live: boolean;
    /** The newest release date the feed listed. */
    last_page_date: string | null;
    /** Its article. */
    last_page_url: string | null;
    last_poll_at: string | null;
    last_success_at: string | null;
    /** The last failure (kept after later successes; compare last_error_at and last_success_at). */
    last_error: string | null;
    last_error_at: string | null;
    /** When the site last refused the poll with 403 (see docs/OPERATIONS.md). */
    last_refused_at: string | null;
    next_run_at: string | null;
    /** What is wrong, when not ok. */
    detail?: string;
  };
  engines: Array<{
    name: EngineName;
    version: string;
    tier: Tier;
    evidence: {
      /** In words: "Evidence: …" or "No evidence: …". */
      verdict: string;
      /** The real dates beat ≥ 95 % of the placebos and the date-clustered t is ≥ 2.5. */
      evidence: boolean;
      benchmark: string;
      horizon_days: number;
      top_minus_bottom: number | null;
      t: number | null;
      contracts: number;
      dates: number;
      placebo_percentile: number | null;
      within_company: {
        top_minus_bottom: number | null;
        t: number | null;
      };
      /** @format date-time */
      computed_at: string;
      /** The dashboard's Evidence page of the engine: the whole study. */
      page: string;
    } | null;
  }>;
  /** @format date-time */
  now: string;
}

export interface IngestCounts {
  /** Records in the request. */
  received: number;
  /** New contracts stored. */
  inserted: number;
  /** Stored contracts whose source data changed. */
  updated: number;
  /** Accepted records resolved to a ticker. */
  matched: number;
  /** Accepted records without a ticker (tallied for curation). */
  unmatched: number;
  rejected: Array<{
    index: number;
    message: string;
  }>;
  /** Signal rows created (recomputes update rows in place). */
  signals_created: number;
}

export interface KeyList {
  data: ApiKey[];
  pagination: Pagination;
}

export type KeyMode = "live" | "test";

export interface KeyResponse {
  key: ApiKey;
}

export type LinkMethod = "contract_number_and_ticker" | "contract_number";

export interface Liveness {
  ok: true;
}

export type MatchMethod = "exact_alias" | "parent_alias" | "fuzzy";

export interface NewKeyResponse {
  key: ApiKey;
  /** The raw key. Shown once: only its sha256 hash is stored. */
  secret: string;
}

export interface NewWebhookResponse {
  webhook: Webhook;
  /** The signing secret, `whsec_` and base64: shown once. Pass it as is to our SDK, to Stripe’s verifier and to the Standard Webhooks ones. Rotate it with POST /api/v1/webhooks/{id}/rotate-secret. */
  secret: string;
}

export type NoTickerReason = "private" | "foreign" | "not_yet_public" | "delisted" | "joint_venture" | "owner_unknown";

export interface Pagination {
  limit: number;
  offset: number;
  /** Number of items in this page. */
  count: number;
  /** Pass as `cursor` (with the same filters) for the next page; null when none follows. */
  next_cursor: string | null;
}

export type Plan = "free" | "pulse" | "intelligence" | "developer" | "institutional";

export interface Prediction {
  /** The announcement event predicted. */
  contract_id: string;
  ticker: string;
  /**
   * When it was made: the event's available_at. Only closes at or before it were read.
   * @format date-time
   */
  made_at: string;
  /**
   * The last trading day whose 16:00 New York close is at or before made_at.
   * @format date
   */
  day0: string;
  /** Trading days after day0 (the benchmark calendar). */
  horizon_days: number;
  /** A ticker served by /api/v1/market/candles. */
  benchmark: string;
  /** The centre: adjusted-close return of the ticker from day0 to day0 + horizon minus the benchmark's, as a fraction. */
  expected_abnormal_return: number;
  interval: {
    /** Stated coverage. */
    level: number;
    /** Lower bound of the abnormal return. */
    low: number;
    /** Upper bound of the abnormal return. */
    high: number;
  };
  model: {
    name: string;
    version: string;
  };
  realized_abnormal_return: number | null;
}

export interface PredictionModelBlock {
  name: string;
  version: string;
  benchmark: string;
  horizon_days: number;
  level: number;
  fit_period: {
    /** @format date */
    from: string;
    /** @format date */
    to: string;
  };
  /** Recomputed from the stored predictions and the served closes at each request. */
  out_of_sample: {
    /**
     * Predictions made on or after this date count.
     * @format date
     */
    from: string;
    /** Stored predictions made since `from` whose horizon has passed. */
    n: number;
    coverage: number | null;
    mean_width: number | null;
    unconditional: {
      low: number;
      high: number;
      width: number;
      coverage: number | null;
    };
    realized_spread: number | null;
    skill_vs_zero: number | null;
  };
}

export interface Predictions {
  data: Prediction[];
  pagination: Pagination;
  model: PredictionModelBlock;
  note: string;
}

export interface RationaleItem {
  rule: RationaleRule;
  weight: number;
  value: number;
  contribution: number;
  detail: string;
}

/** The engine rule a rationale row accounts for; one engine's rows name some of them. */
export type RationaleRule = "award_size" | "relative_to_median" | "share_of_trailing" | "agency" | "classification" | "match_confidence" | "regime_unavailable" | "regime_risk_on" | "regime_risk_off" | "regime_high_volatility" | "sector_relative_strength" | "page_over_trailing_year" | "page_awarded_over_dollar_volume";

export interface Regime {
  contract_id: string;
  ticker: string;
  /**
   * Last candle date used; never after the award date.
   * @format date
   */
  as_of: string;
  /** The market the regime is read from. */
  benchmark: "SPY";
  dominant: RegimeName;
  scores: {
    risk_on: number;
    risk_off: number;
    high_volatility: number;
    range_bound: number;
  };
  features: Record<string, number>;
  engine_version: string;
}

export interface RegimeList {
  data: Regime[];
  pagination: Pagination;
}

export type RegimeName = "risk_on" | "risk_off" | "high_volatility" | "range_bound";

/** How the point-in-time resolution was dated, and why there is no ticker when there is none. */
export interface Resolution {
  /**
   * The date the owner was taken on.
   * @format date
   */
  as_of: string;
  /** award_date: the award’s own date; announcement_date: the DoD announcement’s. */
  basis: "award_date" | "announcement_date";
  resolver_version: string | null;
  /** Why `ticker` is null, else null. private: the owner on the date was privately held (employee- or sponsor-owned); foreign: a foreign parent with no US listing in the data; not_yet_public: the owner listed only later (SAIC before its 2006 IPO, Booz Allen before 2010); delisted: the owner’s listed years had ended; joint_venture: two or more parents, none controlling (see `venture_parents`); owner_unknown: the data names the entity but not who owned it then. */
  no_ticker_reason: NoTickerReason | null;
  /** A joint venture’s parents on the date, each with its share and ticker then; empty unless `no_ticker_reason` is joint_venture. */
  venture_parents: VentureParent[];
}

/** The entity the recipient name identifies (a company or one of its units); null when only the undated resolver knows it. */
export interface ResolvedEntity {
  /** Identity id (data/identity/entities.csv). */
  id: string;
  name: string;
}

export type Scope = "read" | "write" | "admin";

export interface ScoreResponse {
  signal: Signal;
}

export interface Signal {
  /** @format uuid */
  id: string;
  contract_id: string;
  engine_name: EngineName;
  engine_version: string;
  /** The lowest plan tier that sees this engine. */
  engine_tier: Tier;
  signal_score: number;
  importance_score: number;
  confidence_score: number;
  risk_score: number;
  /** @format date-time */
  computed_at: string;
  /** Per-rule rationale; only for a plan reaching the intelligence tier, absent below it. */
  rationale?: RationaleItem[];
}

export interface SignalCreatedEvent {
  /**
   * The event id, as in `webhook-id` but covered by the signatures: the same on every attempt and resend of this delivery, and for one new signal the same at each of your webhooks it is sent to.
   * @format uuid
   */
  id: string;
  event: "signal.created";
  /**
   * The delivery id, as in X-Service-Delivery but covered by the signature: the same on every attempt and resend of this delivery. De-duplicate on this one (and refuse a request whose header differs).
   * @format uuid
   */
  delivery_id: string;
  /** The new signal (never with `rationale`, whatever the tier), its contract and, on the intelligence tier, its prediction. */
  data: {
    signal: Signal;
    contract: Contract;
    /** The event's stored prediction (GET /api/v1/predictions), when it has one and the receiver's plan reaches the intelligence tier. */
    prediction?: Prediction;
  };
  /** When the delivery was written, in milliseconds since the epoch. */
  ts: number;
}

export interface SignalItem {
  signal: Signal;
  contract: Contract;
}

export interface SignalList {
  data: SignalItem[];
  pagination: Pagination;
}

export type Tier = "free" | "developer" | "intelligence";

export interface UnmatchedList {
  data: Array<{
    /** Normalized recipient name, the tally key. */
    name_norm: string;
    sample_name: string;
    award_count: number;
    /** Whole US dollars. */
    total_value: number;
  }>;
  pagination: Pagination;
}

export interface Usage {
  /** @format uuid */
  key_id: string;
  window: UsageWindow;
  /** @format date-time */
  from: string;
  /** @format date-time */
  to: string;
  bucket: "minute" | "hour" | "day";
  totals: {
    requests: number;
    errors: number;
  };
  buckets: Array<{
    /** @format date-time */
    start: string;
    requests: number;
    errors: number;
  }>;
}

/** 1h: minute buckets; 24h (default): hourly; 7d and 30d: daily. */
export type UsageWindow = "1h" | "24h" | "7d" | "30d";

export interface User {
  /** @format uuid */
  id: string;
  email: string;
  plan: Plan;
  is_admin: boolean;
  /** @format date-time */
  created_at: string;
}

export interface UserList {
  data: User[];
  pagination: Pagination;
}

export interface UserResponse {
  user: User;
}

/** One parent of a joint venture on the date. */
export interface VentureParent {
  /** Identity id (data/identity/entities.csv). */
  entity_id: string;
  name: string;
  /** Its share; null when not known. */
  share: number | null;
  /** The ticker its owner traded under on the date; null when it had none. */
  ticker: string | null;
}

export interface Webhook {
  /** @format uuid */
  id: string;
  /** @format uuid */
  user_id: string;
  /** HTTPS target receiving `signal.created` POSTs. */
  url: string;
  /** `active`; `failing` (its last attempt failed: one attempt at a time, backed off from the third failure in a row); `suspended` (failed without a break for the suspension period: nothing is sent until it is re-enabled); `deleted`. */
  status: "active" | "failing" | "suspended" | "deleted";
  /** @format date-time */
  created_at: string;
  disabled_at: string | null;
  /** Attempts that failed in a row, across deliveries; 0 after a success. */
  failure_streak: number;
  failing_since: string | null;
  retry_at: string | null;
  suspended_at: string | null;
  previous_secret_expires_at: string | null;
}

export type WebhookEvent = "signal.created" | "webhook.test";

export interface WebhookList {
  data: Webhook[];
  pagination: Pagination;
}

export interface WebhookResponse {
  webhook: Webhook;
}

export interface WebhookTestEvent {
  /**
   * The event id, as in `webhook-id` but covered by the signatures: the same on every attempt and resend of this delivery, and for one new signal the same at each of your webhooks it is sent to.
   * @format uuid
   */
  id: string;
  event: "webhook.test";
  /**
   * The delivery id, as in X-Service-Delivery but covered by the signature: the same on every attempt and resend of this delivery. De-duplicate on this one (and refuse a request whose header differs).
   * @format uuid
   */
  delivery_id: string;
  /** Names the webhook tested; no signal. */
  data: {
    /**
     * The webhook the test was sent to.
     * @format uuid
     */
    webhook_id: string;
  };
  /** When the test was requested, in milliseconds since the epoch. */
  ts: number;
  /** Always true: a test event, not a market event. */
  test: true;
}

export interface WeeklyPrice {
  /** @format date */
  week_start: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** GET /metrics: Prometheus metrics for operators (admin key: `x-api-key` or `Authorization: Bearer`) */
export type GetMetricsResponse = string;

/** GET /api/v1/health: Service health (readiness) */
export type GetHealthResponse = Health;

/** GET /api/v1/health/live: Liveness */
export type GetHealthLiveResponse = Liveness;

/** GET /api/v1/openapi.json: OpenAPI 3.1 description of this API */
export type GetOpenapiJsonResponse = unknown;

/** Query of GET /api/v1/events: Contract events, newest award first, each with its latest signal */
export interface GetEventsQuery {
  /** Engine name; defaults to the registry default engine (materiality). */
  engine?: "materiality" | "regime-aware" | "announcement-size" | "announcement-dv";
  /** Stock ticker (case-insensitive). */
  ticker?: string;
  /** Awarding agency, exact name, case-insensitive. */
  agency?: string;
  /** nlp_classification label. */
  classification?: "aircraft" | "shipbuilding" | "missiles_munitions" | "space" | "ground_vehicles" | "electronics_comms" | "it_services" | "cybersecurity" | "research_development" | "construction_facilities" | "logistics_supply" | "healthcare" | "professional_services" | "other";
  /**
   * Award date on or after.
   * @format date
   */
  from?: string;
  /**
   * Award date on or before.
   * @format date
   */
  to?: string;
  /** Only events of this source. */
  source?: "usaspending" | "announcement";
  /**
   * available_at on or after (ISO 8601): what was public by then.
   * @format date-time
   */
  available_from?: string;
  /**
   * available_at on or before (ISO 8601).
   * @format date-time
   */
  available_to?: string;
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/events: Contract events, newest award first, each with its latest signal */
export type GetEventsResponse = EventList;

/** Query of GET /api/v1/events/export: Every event of a filter as one CSV or NDJSON download, streamed */
export interface GetEventsExportQuery {
  /** Engine name; defaults to the registry default engine (materiality). */
  engine?: "materiality" | "regime-aware" | "announcement-size" | "announcement-dv";
  /** Stock ticker (case-insensitive). */
  ticker?: string;
  /** Awarding agency, exact name, case-insensitive. */
  agency?: string;
  /** nlp_classification label. */
  classification?: "aircraft" | "shipbuilding" | "missiles_munitions" | "space" | "ground_vehicles" | "electronics_comms" | "it_services" | "cybersecurity" | "research_development" | "construction_facilities" | "logistics_supply" | "healthcare" | "professional_services" | "other";
  /**
   * Award date on or after.
   * @format date
   */
  from?: string;
  /**
   * Award date on or before.
   * @format date
   */
  to?: string;
  /** Only events of this source. */
  source?: "usaspending" | "announcement";
  /**
   * available_at on or after (ISO 8601): what was public by then.
   * @format date-time
   */
  available_from?: string;
  /**
   * available_at on or before (ISO 8601).
   * @format date-time
   */
  available_to?: string;
  /** csv (the default) or ndjson; when absent, the Accept header decides. */
  format?: "csv" | "ndjson";
  /** At most this many rows (1-10000000); default: every row of the filter. */
  limit?: number;
}

/** GET /api/v1/events/export: Every event of a filter as one CSV or NDJSON download, streamed */
export type GetEventsExportResponse = string;

/** Query of GET /api/v1/contracts: Alias of /api/v1/events, kept for backward compatibility */
export interface GetContractsQuery {
  /** Engine name; defaults to the registry default engine (materiality). */
  engine?: "materiality" | "regime-aware" | "announcement-size" | "announcement-dv";
  /** Stock ticker (case-insensitive). */
  ticker?: string;
  /** Awarding agency, exact name, case-insensitive. */
  agency?: string;
  /** nlp_classification label. */
  classification?: "aircraft" | "shipbuilding" | "missiles_munitions" | "space" | "ground_vehicles" | "electronics_comms" | "it_services" | "cybersecurity" | "research_development" | "construction_facilities" | "logistics_supply" | "healthcare" | "professional_services" | "other";
  /**
   * Award date on or after.
   * @format date
   */
  from?: string;
  /**
   * Award date on or before.
   * @format date
   */
  to?: string;
  /** Only events of this source. */
  source?: "usaspending" | "announcement";
  /**
   * available_at on or after (ISO 8601): what was public by then.
   * @format date-time
   */
  available_from?: string;
  /**
   * available_at on or before (ISO 8601).
   * @format date-time
   */
  available_to?: string;
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/contracts: Alias of /api/v1/events, kept for backward compatibility */
export type GetContractsResponse = EventList;

/** GET /api/v1/contracts/{id}: One contract with its latest default-engine signal, weekly prices, regime and decay */
export type GetContractsIdResponse = ContractBundle;

/** Query of GET /api/v1/contracts/{id}/score: The contract's most recent signal under an engine */
export interface GetContractsIdScoreQuery {
  /** Engine name; defaults to the registry default engine (materiality). */
  engine?: "materiality" | "regime-aware" | "announcement-size" | "announcement-dv";
}

/** GET /api/v1/contracts/{id}/score: The contract's most recent signal under an engine */
export type GetContractsIdScoreResponse = ScoreResponse;

/** Query of POST /api/v1/contracts/{id}/score: Compute or recompute the score; idempotent per (contract, engine, engine version) */
export interface PostContractsIdScoreQuery {
  /** Engine name; defaults to the registry default engine (materiality). */
  engine?: "materiality" | "regime-aware" | "announcement-size" | "announcement-dv";
}

/** POST /api/v1/contracts/{id}/score: Compute or recompute the score; idempotent per (contract, engine, engine version) */
export type PostContractsIdScoreResponse = ScoreResponse;

/** Query of GET /api/v1/signals: Signals of an engine's current version ranked by signal_score, each with its contract */
export interface GetSignalsQuery {
  /** Engine name; defaults to the registry default engine (materiality). */
  engine?: "materiality" | "regime-aware" | "announcement-size" | "announcement-dv";
  /** Minimum signal_score. */
  min_score?: number;
  /** Stock ticker (case-insensitive). */
  ticker?: string;
  /**
   * Lower bound on computed_at (ISO 8601).
   * @format date-time
   */
  since?: string;
  /**
   * The contract's available_at on or after (ISO 8601): when its news was public.
   * @format date-time
   */
  available_from?: string;
  /**
   * The contract's available_at on or before (ISO 8601).
   * @format date-time
   */
  available_to?: string;
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/signals: Signals of an engine's current version ranked by signal_score, each with its contract */
export type GetSignalsResponse = SignalList;

/** Query of GET /api/v1/signals/export: Every signal of an engine's current version matching a filter, as one CSV or NDJSON download */
export interface GetSignalsExportQuery {
  /** Engine name; defaults to the registry default engine (materiality). */
  engine?: "materiality" | "regime-aware" | "announcement-size" | "announcement-dv";
  /** Minimum signal_score. */
  min_score?: number;
  /** Stock ticker (case-insensitive). */
  ticker?: string;
  /**
   * Lower bound on computed_at (ISO 8601).
   * @format date-time
   */
  since?: string;
  /**
   * The contract's available_at on or after (ISO 8601): when its news was public.
   * @format date-time
   */
  available_from?: string;
  /**
   * The contract's available_at on or before (ISO 8601).
   * @format date-time
   */
  available_to?: string;
  /** csv (the default) or ndjson; when absent, the Accept header decides. */
  format?: "csv" | "ndjson";
  /** At most this many rows (1-10000000); default: every row of the filter. */
  limit?: number;
}

/** GET /api/v1/signals/export: Every signal of an engine's current version matching a filter, as one CSV or NDJSON download */
export type GetSignalsExportResponse = string;

/** GET /api/v1/companies/{ticker}: Company record with its 20 most recent contracts and its corporate history */
export type GetCompaniesTickerResponse = CompanyResponse;

/** Query of GET /api/v1/market/candles/{ticker}: Daily OHLCV candles, ascending by date */
export interface GetMarketCandlesTickerQuery {
  /**
   * First date (inclusive).
   * @format date
   */
  from?: string;
  /**
   * Last date (inclusive).
   * @format date
   */
  to?: string;
  /** Page size, 1-5000 (default 500). */
  limit?: number;
}

/** GET /api/v1/market/candles/{ticker}: Daily OHLCV candles, ascending by date */
export type GetMarketCandlesTickerResponse = CandleList;

/** Query of GET /api/v1/benchmarks: Daily OHLCV of a benchmark (SPY, XLI or ITA) */
export interface GetBenchmarksQuery {
  /** The benchmark: SPY, XLI or ITA, in any case (`spy` is read as `SPY`). */
  ticker: ("SPY" | "XLI" | "ITA") | string;
  /**
   * First date (inclusive).
   * @format date
   */
  from?: string;
  /**
   * Last date (inclusive).
   * @format date
   */
  to?: string;
  /** Page size, 1-5000 (default 5000). */
  limit?: number;
}

/** GET /api/v1/benchmarks: Daily OHLCV of a benchmark (SPY, XLI or ITA) */
export type GetBenchmarksResponse = CandleList;

/** Query of GET /api/v1/regimes: Market regime at each contract award date (no look-ahead), newest first */
export interface GetRegimesQuery {
  /** One contract. */
  contract_id?: string;
  /** Dominant regime. */
  dominant?: "risk_on" | "risk_off" | "high_volatility" | "range_bound";
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/regimes: Market regime at each contract award date (no look-ahead), newest first */
export type GetRegimesResponse = RegimeList;

/** Query of GET /api/v1/predictions: Stored point-in-time predictions of announcement events, newest first, with their outcomes */
export interface GetPredictionsQuery {
  /** Stock ticker (case-insensitive). */
  ticker?: string;
  /** One event. */
  contract_id?: string;
  /**
   * made_at on or after this date (UTC).
   * @format date
   */
  from?: string;
  /**
   * made_at on or before this date (UTC).
   * @format date
   */
  to?: string;
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/predictions: Stored point-in-time predictions of announcement events, newest first, with their outcomes */
export type GetPredictionsResponse = Predictions;

/** Query of GET /api/v1/usage: Requests and errors (status >= 400) of the calling key over a window */
export interface GetUsageQuery {
  /** 1h: minute buckets; 24h (default): hourly; 7d and 30d: daily. */
  window?: "1h" | "24h" | "7d" | "30d";
}

/** GET /api/v1/usage: Requests and errors (status >= 400) of the calling key over a window */
export type GetUsageResponse = Usage;

/** Query of GET /api/v1/admin/users: Users, newest first; search by email part and plan */
export interface GetAdminUsersQuery {
  /** Part of the email, case-insensitive; `%` and `_` match themselves. */
  q?: string;
  /** Only users on this plan. */
  plan?: "free" | "pulse" | "intelligence" | "developer" | "institutional";
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/admin/users: Users, newest first; search by email part and plan */
export type GetAdminUsersResponse = UserList;

/** Body of POST /api/v1/admin/users: Create a user */
export interface PostAdminUsersBody {
  /** @format email */
  email: string;
  /** Default free. */
  plan?: "free" | "pulse" | "intelligence" | "developer" | "institutional";
  password?: string;
  admin?: boolean;
}

/** POST /api/v1/admin/users: Create a user */
export type PostAdminUsersResponse = UserResponse;

/** Body of PATCH /api/v1/admin/users/{id}: Change a user's plan */
export interface PatchAdminUsersIdBody {
  plan: "free" | "pulse" | "intelligence" | "developer" | "institutional";
}

/** PATCH /api/v1/admin/users/{id}: Change a user's plan */
export type PatchAdminUsersIdResponse = UserResponse;

/** Query of GET /api/v1/admin/users/{id}/keys: A user's API keys, revoked ones included, oldest first; never their secrets */
export interface GetAdminUsersIdKeysQuery {
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/admin/users/{id}/keys: A user's API keys, revoked ones included, oldest first; never their secrets */
export type GetAdminUsersIdKeysResponse = KeyList;

/** Body of POST /api/v1/admin/users/{id}/keys: Create an API key for a user; the raw key is in `secret`, once */
export interface PostAdminUsersIdKeysBody {
  name: string;
  scopes: Array<"read" | "write" | "admin">;
  mode: "live" | "test";
}

/** POST /api/v1/admin/users/{id}/keys: Create an API key for a user; the raw key is in `secret`, once */
export type PostAdminUsersIdKeysResponse = NewKeyResponse;

/** DELETE /api/v1/admin/keys/{id}: Revoke a key; requests with it get 401 at once */
export type DeleteAdminKeysIdResponse = KeyResponse;

/** Body of POST /api/v1/admin/ingest: Ingest up to 10000 award records through the pipeline */
export interface PostAdminIngestBody {
  awards: unknown[];
}

/** POST /api/v1/admin/ingest: Ingest up to 10000 award records through the pipeline */
export type PostAdminIngestResponse = IngestCounts;

/** Query of GET /api/v1/admin/unmatched-recipients: Recipients no ticker was found for, largest total value first (for alias curation) */
export interface GetAdminUnmatchedRecipientsQuery {
  /** Page size, 1-1000 (default 100). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/admin/unmatched-recipients: Recipients no ticker was found for, largest total value first (for alias curation) */
export type GetAdminUnmatchedRecipientsResponse = UnmatchedList;

/** Query of GET /api/v1/webhooks: List your webhooks */
export interface GetWebhooksQuery {
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/webhooks: List your webhooks */
export type GetWebhooksResponse = WebhookList;

/** Body of POST /api/v1/webhooks: Register a webhook; the signing secret is in `secret`, once */
export interface PostWebhooksBody {
  /** HTTPS URL; private, loopback and other non-public addresses are refused. */
  url: string;
}

/** POST /api/v1/webhooks: Register a webhook; the signing secret is in `secret`, once */
export type PostWebhooksResponse = NewWebhookResponse;

/** DELETE /api/v1/webhooks/{id}: Delete a webhook (its deliveries stay listed) */
export type DeleteWebhooksIdResponse = WebhookResponse;

/** POST /api/v1/webhooks/{id}/enable: Re-enable a suspended or backed-off webhook: its failure streak is cleared and its waiting deliveries are due now */
export type PostWebhooksIdEnableResponse = WebhookResponse;

/** POST /api/v1/webhooks/{id}/test: Send a `webhook.test` event (marked `test: true`): signed and delivered like any event; returns its delivery */
export type PostWebhooksIdTestResponse = DeliveryResponse;

/** Body of POST /api/v1/webhooks/{id}/rotate-secret: Rotate the signing secret: the new one is in `secret`, once; the old one still signs during the overlap window */
export interface PostWebhooksIdRotateSecretBody {
  /** How long deliveries are still signed with the replaced secret as well (default WEBHOOK_SECRET_OVERLAP, 24 h); 0 drops it at once. */
  overlap_seconds?: number;
}

/** POST /api/v1/webhooks/{id}/rotate-secret: Rotate the signing secret: the new one is in `secret`, once; the old one still signs during the overlap window */
export type PostWebhooksIdRotateSecretResponse = NewWebhookResponse;

/** Query of GET /api/v1/webhooks/{id}/deliveries: A webhook's deliveries, newest first */
export interface GetWebhooksIdDeliveriesQuery {
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
  /** Only deliveries in this state. */
  status?: "pending" | "delivering" | "succeeded" | "failed";
}

/** GET /api/v1/webhooks/{id}/deliveries: A webhook's deliveries, newest first */
export type GetWebhooksIdDeliveriesResponse = DeliveryList;

/** Query of GET /api/v1/webhooks/deliveries/{id}/attempts: A delivery's attempts, every series, in order */
export interface GetWebhooksDeliveriesIdAttemptsQuery {
  /** Page size, 1-1000 (default 1000). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/webhooks/deliveries/{id}/attempts: A delivery's attempts, every series, in order */
export type GetWebhooksDeliveriesIdAttemptsResponse = AttemptList;

/** POST /api/v1/webhooks/deliveries/{id}/resend: Resend a delivery: a new attempt series with the same delivery id, due now */
export type PostWebhooksDeliveriesIdResendResponse = DeliveryResponse;

/** Query of GET /api/v1/admin/users/{id}/webhooks: A user's active webhooks */
export interface GetAdminUsersIdWebhooksQuery {
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/admin/users/{id}/webhooks: A user's active webhooks */
export type GetAdminUsersIdWebhooksResponse = WebhookList;

/** Body of POST /api/v1/admin/users/{id}/webhooks: Register a webhook for a user; the signing secret is in `secret`, once */
export interface PostAdminUsersIdWebhooksBody {
  /** HTTPS URL; private, loopback and other non-public addresses are refused. */
  url: string;
}

/** POST /api/v1/admin/users/{id}/webhooks: Register a webhook for a user; the signing secret is in `secret`, once */
export type PostAdminUsersIdWebhooksResponse = NewWebhookResponse;

/** DELETE /api/v1/admin/webhooks/{id}: Delete a webhook (its deliveries stay listed) */
export type DeleteAdminWebhooksIdResponse = WebhookResponse;

/** POST /api/v1/admin/webhooks/{id}/enable: Re-enable a suspended or backed-off webhook: its failure streak is cleared and its waiting deliveries are due now */
export type PostAdminWebhooksIdEnableResponse = WebhookResponse;

/** Query of GET /api/v1/admin/webhooks/{id}/deliveries: A webhook's deliveries, newest first */
export interface GetAdminWebhooksIdDeliveriesQuery {
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
  /** Only deliveries in this state. */
  status?: "pending" | "delivering" | "succeeded" | "failed";
}

/** GET /api/v1/admin/webhooks/{id}/deliveries: A webhook's deliveries, newest first */
export type GetAdminWebhooksIdDeliveriesResponse = DeliveryList;

/** Query of GET /api/v1/admin/deliveries/{id}/attempts: A delivery's attempts, every series, in order */
export interface GetAdminDeliveriesIdAttemptsQuery {
  /** Page size, 1-1000 (default 1000). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`. */
  cursor?: string;
}

/** GET /api/v1/admin/deliveries/{id}/attempts: A delivery's attempts, every series, in order */
export type GetAdminDeliveriesIdAttemptsResponse = AttemptList;

/** POST /api/v1/admin/deliveries/{id}/resend: Resend a delivery: a new attempt series with the same delivery id, due now */
export type PostAdminDeliveriesIdResendResponse = DeliveryResponse;

/** Every operation by its operationId: what the client sends and gets back. */
export interface Operations {
  getMetrics: {
    method: 'GET';
    path: "/metrics";
    args: [];
    query: never;
    body: never;
    response: GetMetricsResponse;
  };
  getHealth: {
    method: 'GET';
    path: "/api/v1/health";
    args: [];
    query: never;
    body: never;
    response: GetHealthResponse;
  };
  getHealthLive: {
    method: 'GET';
    path: "/api/v1/health/live";
    args: [];
    query: never;
    body: never;
    response: GetHealthLiveResponse;
  };
  getOpenapiJson: {
    method: 'GET';
    path: "/api/v1/openapi.json";
    args: [];
    query: never;
    body: never;
    response: GetOpenapiJsonResponse;
  };
  getEvents: {
    method: 'GET';
    path: "/api/v1/events";
    args: [query?: GetEventsQuery];
    query: GetEventsQuery;
    body: never;
    response: GetEventsResponse;
  };
  getEventsExport: {
    method: 'GET';
    path: "/api/v1/events/export";
    args: [query?: GetEventsExportQuery];
    query: GetEventsExportQuery;
    body: never;
    response: GetEventsExportResponse;
  };
  getContracts: {
    method: 'GET';
    path: "/api/v1/contracts";
    args: [query?: GetContractsQuery];
    query: GetContractsQuery;
    body: never;
    response: GetContractsResponse;
  };
  getContractsId: {
    method: 'GET';
    path: "/api/v1/contracts/{id}";
    args: [id: string];
    query: never;
    body: never;
    response: GetContractsIdResponse;
  };
  getContractsIdScore: {
    method: 'GET';
    path: "/api/v1/contracts/{id}/score";
    args: [id: string, query?: GetContractsIdScoreQuery];
    query: GetContractsIdScoreQuery;
    body: never;
    response: GetContractsIdScoreResponse;
  };
  postContractsIdScore: {
    method: 'POST';
    path: "/api/v1/contracts/{id}/score";
    args: [id: string, query?: PostContractsIdScoreQuery];
    query: PostContractsIdScoreQuery;
    body: never;
    response: PostContractsIdScoreResponse;
  };
  getSignals: {
    method: 'GET';
    path: "/api/v1/signals";
    args: [query?: GetSignalsQuery];
    query: GetSignalsQuery;
    body: never;
    response: GetSignalsResponse;
  };
  getSignalsExport: {
    method: 'GET';
    path: "/api/v1/signals/export";
    args: [query?: GetSignalsExportQuery];
    query: GetSignalsExportQuery;
    body: never;
    response: GetSignalsExportResponse;
  };
  getCompaniesTicker: {
    method: 'GET';
    path: "/api/v1/companies/{ticker}";
    args: [ticker: string];
    query: never;
    body: never;
    response: GetCompaniesTickerResponse;
  };
  getMarketCandlesTicker: {
    method: 'GET';
    path: "/api/v1/market/candles/{ticker}";
    args: [ticker: string, query?: GetMarketCandlesTickerQuery];
    query: GetMarketCandlesTickerQuery;
    body: never;
    response: GetMarketCandlesTickerResponse;
  };
  getBenchmarks: {
    method: 'GET';
    path: "/api/v1/benchmarks";
    args: [query: GetBenchmarksQuery];
    query: GetBenchmarksQuery;
    body: never;
    response: GetBenchmarksResponse;
  };
  getRegimes: {
    method: 'GET';
    path: "/api/v1/regimes";
    args: [query?: GetRegimesQuery];
    query: GetRegimesQuery;
    body: never;
    response: GetRegimesResponse;
  };
  getPredictions: {
    method: 'GET';
    path: "/api/v1/predictions";
    args: [query?: GetPredictionsQuery];
    query: GetPredictionsQuery;
    body: never;
    response: GetPredictionsResponse;
  };
  getUsage: {
    method: 'GET';
    path: "/api/v1/usage";
    args: [query?: GetUsageQuery];
    query: GetUsageQuery;
    body: never;
    response: GetUsageResponse;
  };
  getAdminUsers: {
    method: 'GET';
    path: "/api/v1/admin/users";
    args: [query?: GetAdminUsersQuery];
    query: GetAdminUsersQuery;
    body: never;
    response: GetAdminUsersResponse;
  };
  postAdminUsers: {
    method: 'POST';
    path: "/api/v1/admin/users";
    args: [body: PostAdminUsersBody];
    query: never;
    body: PostAdminUsersBody;
    response: PostAdminUsersResponse;
  };
  patchAdminUsersId: {
    method: 'PATCH';
    path: "/api/v1/admin/users/{id}";
    args: [id: string, body: PatchAdminUsersIdBody];
    query: never;
    body: PatchAdminUsersIdBody;
    response: PatchAdminUsersIdResponse;
  };
  getAdminUsersIdKeys: {
    method: 'GET';
    path: "/api/v1/admin/users/{id}/keys";
    args: [id: string, query?: GetAdminUsersIdKeysQuery];
    query: GetAdminUsersIdKeysQuery;
    body: never;
    response: GetAdminUsersIdKeysResponse;
  };
  postAdminUsersIdKeys: {
    method: 'POST';
    path: "/api/v1/admin/users/{id}/keys";
    args: [id: string, body: PostAdminUsersIdKeysBody];
    query: never;
    body: PostAdminUsersIdKeysBody;
    response: PostAdminUsersIdKeysResponse;
  };
  deleteAdminKeysId: {
    method: 'DELETE';
    path: "/api/v1/admin/keys/{id}";
    args: [id: string];
    query: never;
    body: never;
    response: DeleteAdminKeysIdResponse;
  };
  postAdminIngest: {
    method: 'POST';
    path: "/api/v1/admin/ingest";
    args: [body: PostAdminIngestBody];
    query: never;
    body: PostAdminIngestBody;
    response: PostAdminIngestResponse;
  };
  getAdminUnmatchedRecipients: {
    method: 'GET';
    path: "/api/v1/admin/unmatched-recipients";
    args: [query?: GetAdminUnmatchedRecipientsQuery];
    query: GetAdminUnmatchedRecipientsQuery;
    body: never;
    response: GetAdminUnmatchedRecipientsResponse;
  };
  getWebhooks: {
    method: 'GET';
    path: "/api/v1/webhooks";
    args: [query?: GetWebhooksQuery];
    query: GetWebhooksQuery;
    body: never;
    response: GetWebhooksResponse;
  };
  postWebhooks: {
    method: 'POST';
    path: "/api/v1/webhooks";
    args: [body: PostWebhooksBody];
    query: never;
    body: PostWebhooksBody;
    response: PostWebhooksResponse;
  };
  deleteWebhooksId: {
    method: 'DELETE';
    path: "/api/v1/webhooks/{id}";
    args: [id: string];
    query: never;
    body: never;
    response: DeleteWebhooksIdResponse;
  };
  postWebhooksIdEnable: {
    method: 'POST';
    path: "/api/v1/webhooks/{id}/enable";
    args: [id: string];
    query: never;
    body: never;
    response: PostWebhooksIdEnableResponse;
  };
  postWebhooksIdTest: {
    method: 'POST';
    path: "/api/v1/webhooks/{id}/test";
    args: [id: string];
    query: never;
    body: never;
    response: PostWebhooksIdTestResponse;
  };
  postWebhooksIdRotateSecret: {
    method: 'POST';
    path: "/api/v1/webhooks/{id}/rotate-secret";
    args: [id: string, body?: PostWebhooksIdRotateSecretBody];
    query: never;
    body: PostWebhooksIdRotateSecretBody;
    response: PostWebhooksIdRotateSecretResponse;
  };
  getWebhooksIdDeliveries: {
    method: 'GET';
    path: "/api/v1/webhooks/{id}/deliveries";
    args: [id: string, query?: GetWebhooksIdDeliveriesQuery];
    query: GetWebhooksIdDeliveriesQuery;
    body: never;
    response: GetWebhooksIdDeliveriesResponse;
  };
  getWebhooksDeliveriesIdAttempts: {
    method: 'GET';
    path: "/api/v1/webhooks/deliveries/{id}/attempts";
    args: [id: string, query?: GetWebhooksDeliveriesIdAttemptsQuery];
    query: GetWebhooksDeliveriesIdAttemptsQuery;
    body: never;
    response: GetWebhooksDeliveriesIdAttemptsResponse;
  };
  postWebhooksDeliveriesIdResend: {
    method: 'POST';
    path: "/api/v1/webhooks/deliveries/{id}/resend";
    args: [id: string];
    query: never;
    body: never;
    response: PostWebhooksDeliveriesIdResendResponse;
  };
  getAdminUsersIdWebhooks: {
    method: 'GET';
    path: "/api/v1/admin/users/{id}/webhooks";
    args: [id: string, query?: GetAdminUsersIdWebhooksQuery];
    query: GetAdminUsersIdWebhooksQuery;
    body: never;
    response: GetAdminUsersIdWebhooksResponse;
  };
  postAdminUsersIdWebhooks: {
    method: 'POST';
    path: "/api/v1/admin/users/{id}/webhooks";
    args: [id: string, body: PostAdminUsersIdWebhooksBody];
    query: never;
    body: PostAdminUsersIdWebhooksBody;
    response: PostAdminUsersIdWebhooksResponse;
  };
  deleteAdminWebhooksId: {
    method: 'DELETE';
    path: "/api/v1/admin/webhooks/{id}";
    args: [id: string];
    query: never;
    body: never;
    response: DeleteAdminWebhooksIdResponse;
  };
  postAdminWebhooksIdEnable: {
    method: 'POST';
    path: "/api/v1/admin/webhooks/{id}/enable";
    args: [id: string];
    query: never;
    body: never;
    response: PostAdminWebhooksIdEnableResponse;
  };
  getAdminWebhooksIdDeliveries: {
    method: 'GET';
    path: "/api/v1/admin/webhooks/{id}/deliveries";
    args: [id: string, query?: GetAdminWebhooksIdDeliveriesQuery];
    query: GetAdminWebhooksIdDeliveriesQuery;
    body: never;
    response: GetAdminWebhooksIdDeliveriesResponse;
  };
  getAdminDeliveriesIdAttempts: {
    method: 'GET';
    path: "/api/v1/admin/deliveries/{id}/attempts";
    args: [id: string, query?: GetAdminDeliveriesIdAttemptsQuery];
    query: GetAdminDeliveriesIdAttemptsQuery;
    body: never;
    response: GetAdminDeliveriesIdAttemptsResponse;
  };
  postAdminDeliveriesIdResend: {
    method: 'POST';
    path: "/api/v1/admin/deliveries/{id}/resend";
    args: [id: string];
    query: never;
    body: never;
    response: PostAdminDeliveriesIdResendResponse;
  };
}

/** How one operation is sent; `paging` says how its next page is found, if it has pages. */
export interface OperationInfo {
  method: string;
  path: string;
  pathParams: readonly string[];
  query: readonly string[];
  body: 'none' | 'optional' | 'required';
  response: 'json' | 'text' | 'none';
  paging: 'pagination' | 'link' | null;
}

/** How to send each operation: the client builds its requests from this table. */
export const operations = {
  getMetrics: {
    method: 'GET',
    path: "/metrics",
    pathParams: [],
    query: [],
    body: 'none',
    response: 'text',
    paging: null,
  },
  getHealth: {
    method: 'GET',
    path: "/api/v1/health",
    pathParams: [],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getHealthLive: {
    method: 'GET',
    path: "/api/v1/health/live",
    pathParams: [],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getOpenapiJson: {
    method: 'GET',
    path: "/api/v1/openapi.json",
    pathParams: [],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getEvents: {
    method: 'GET',
    path: "/api/v1/events",
    pathParams: [],
    query: ["engine","ticker","agency","classification","from","to","source","available_from","available_to","limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  getEventsExport: {
    method: 'GET',
    path: "/api/v1/events/export",
    pathParams: [],
    query: ["engine","ticker","agency","classification","from","to","source","available_from","available_to","format","limit"],
    body: 'none',
    response: 'text',
    paging: null,
  },
  getContracts: {
    method: 'GET',
    path: "/api/v1/contracts",
    pathParams: [],
    query: ["engine","ticker","agency","classification","from","to","source","available_from","available_to","limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  getContractsId: {
    method: 'GET',
    path: "/api/v1/contracts/{id}",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getContractsIdScore: {
    method: 'GET',
    path: "/api/v1/contracts/{id}/score",
    pathParams: ["id"],
    query: ["engine"],
    body: 'none',
    response: 'json',
    paging: null,
  },
  postContractsIdScore: {
    method: 'POST',
    path: "/api/v1/contracts/{id}/score",
    pathParams: ["id"],
    query: ["engine"],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getSignals: {
    method: 'GET',
    path: "/api/v1/signals",
    pathParams: [],
    query: ["engine","min_score","ticker","since","available_from","available_to","limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  getSignalsExport: {
    method: 'GET',
    path: "/api/v1/signals/export",
    pathParams: [],
    query: ["engine","min_score","ticker","since","available_from","available_to","format","limit"],
    body: 'none',
    response: 'text',
    paging: null,
  },
  getCompaniesTicker: {
    method: 'GET',
    path: "/api/v1/companies/{ticker}",
    pathParams: ["ticker"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getMarketCandlesTicker: {
    method: 'GET',
    path: "/api/v1/market/candles/{ticker}",
    pathParams: ["ticker"],
    query: ["from","to","limit"],
    body: 'none',
    response: 'json',
    paging: 'link',
  },
  getBenchmarks: {
    method: 'GET',
    path: "/api/v1/benchmarks",
    pathParams: [],
    query: ["ticker","from","to","limit"],
    body: 'none',
    response: 'json',
    paging: 'link',
  },
  getRegimes: {
    method: 'GET',
    path: "/api/v1/regimes",
    pathParams: [],
    query: ["contract_id","dominant","limit","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  getPredictions: {
    method: 'GET',
    path: "/api/v1/predictions",
    pathParams: [],
    query: ["ticker","contract_id","from","to","limit","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  getUsage: {
    method: 'GET',
    path: "/api/v1/usage",
    pathParams: [],
    query: ["window"],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getAdminUsers: {
    method: 'GET',
    path: "/api/v1/admin/users",
    pathParams: [],
    query: ["q","plan","limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  postAdminUsers: {
    method: 'POST',
    path: "/api/v1/admin/users",
    pathParams: [],
    query: [],
    body: 'required',
    response: 'json',
    paging: null,
  },
  patchAdminUsersId: {
    method: 'PATCH',
    path: "/api/v1/admin/users/{id}",
    pathParams: ["id"],
    query: [],
    body: 'required',
    response: 'json',
    paging: null,
  },
  getAdminUsersIdKeys: {
    method: 'GET',
    path: "/api/v1/admin/users/{id}/keys",
    pathParams: ["id"],
    query: ["limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  postAdminUsersIdKeys: {
    method: 'POST',
    path: "/api/v1/admin/users/{id}/keys",
    pathParams: ["id"],
    query: [],
    body: 'required',
    response: 'json',
    paging: null,
  },
  deleteAdminKeysId: {
    method: 'DELETE',
    path: "/api/v1/admin/keys/{id}",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  postAdminIngest: {
    method: 'POST',
    path: "/api/v1/admin/ingest",
    pathParams: [],
    query: [],
    body: 'required',
    response: 'json',
    paging: null,
  },
  getAdminUnmatchedRecipients: {
    method: 'GET',
    path: "/api/v1/admin/unmatched-recipients",
    pathParams: [],
    query: ["limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  getWebhooks: {
    method: 'GET',
    path: "/api/v1/webhooks",
    pathParams: [],
    query: ["limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  postWebhooks: {
    method: 'POST',
    path: "/api/v1/webhooks",
    pathParams: [],
    query: [],
    body: 'required',
    response: 'json',
    paging: null,
  },
  deleteWebhooksId: {
    method: 'DELETE',
    path: "/api/v1/webhooks/{id}",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  postWebhooksIdEnable: {
    method: 'POST',
    path: "/api/v1/webhooks/{id}/enable",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  postWebhooksIdTest: {
    method: 'POST',
    path: "/api/v1/webhooks/{id}/test",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  postWebhooksIdRotateSecret: {
    method: 'POST',
    path: "/api/v1/webhooks/{id}/rotate-secret",
    pathParams: ["id"],
    query: [],
    body: 'optional',
    response: 'json',
    paging: null,
  },
  getWebhooksIdDeliveries: {
    method: 'GET',
    path: "/api/v1/webhooks/{id}/deliveries",
    pathParams: ["id"],
    query: ["limit","offset","cursor","status"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  getWebhooksDeliveriesIdAttempts: {
    method: 'GET',
    path: "/api/v1/webhooks/deliveries/{id}/attempts",
    pathParams: ["id"],
    query: ["limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  postWebhooksDeliveriesIdResend: {
    method: 'POST',
    path: "/api/v1/webhooks/deliveries/{id}/resend",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getAdminUsersIdWebhooks: {
    method: 'GET',
    path: "/api/v1/admin/users/{id}/webhooks",
    pathParams: ["id"],
    query: ["limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  postAdminUsersIdWebhooks: {
    method: 'POST',
    path: "/api/v1/admin/users/{id}/webhooks",
    pathParams: ["id"],
    query: [],
    body: 'required',
    response: 'json',
    paging: null,
  },
  deleteAdminWebhooksId: {
    method: 'DELETE',
    path: "/api/v1/admin/webhooks/{id}",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  postAdminWebhooksIdEnable: {
    method: 'POST',
    path: "/api/v1/admin/webhooks/{id}/enable",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
  getAdminWebhooksIdDeliveries: {
    method: 'GET',
    path: "/api/v1/admin/webhooks/{id}/deliveries",
    pathParams: ["id"],
    query: ["limit","offset","cursor","status"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  getAdminDeliveriesIdAttempts: {
    method: 'GET',
    path: "/api/v1/admin/deliveries/{id}/attempts",
    pathParams: ["id"],
    query: ["limit","offset","cursor"],
    body: 'none',
    response: 'json',
    paging: 'pagination',
  },
  postAdminDeliveriesIdResend: {
    method: 'POST',
    path: "/api/v1/admin/deliveries/{id}/resend",
    pathParams: ["id"],
    query: [],
    body: 'none',
    response: 'json',
    paging: null,
  },
} as const satisfies Record<string, OperationInfo>;

export type OperationId = keyof typeof operations;

/** Webhook payloads the document declares, by event name (empty when it declares none). */
export interface WebhookPayloads {
  "signal.created": SignalCreatedEvent;
  "webhook.test": WebhookTestEvent;
}
