-- Core market data: companies, awards, signals, candles, regimes.

CREATE TABLE companies (
  ticker text PRIMARY KEY,
  name text NOT NULL,
  cik text,
  exchange text,
  sector text,
  industry text
);

CREATE TABLE company_aliases (
  alias_norm text NOT NULL,
  ticker text NOT NULL REFERENCES companies (ticker) ON DELETE CASCADE,
  source text NOT NULL,
  PRIMARY KEY (alias_norm, ticker)
);
CREATE INDEX company_aliases_ticker ON company_aliases (ticker);

-- Every ingested award is kept; only those resolved to a ticker are events.
CREATE TABLE contracts (
  id text PRIMARY KEY CHECK (id LIKE 'CONT\_AWD\_%'),
  ticker text,
  recipient_name text NOT NULL,
  recipient_uei text,
  parent_name text,
  award_date date NOT NULL,
  contract_value bigint NOT NULL,
  awarding_agency text NOT NULL,
  awarding_sub_agency text,
  description text,
  naics text,
  psc text,
  nlp_classification text NOT NULL,
  match_confidence double precision NOT NULL,
  match_method text NOT NULL,
  source_modified_at timestamptz,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The events list sorts by (award_date desc, id desc); each filter has an index in that order.
CREATE INDEX contracts_events ON contracts (award_date DESC, id DESC) WHERE ticker IS NOT NULL;
CREATE INDEX contracts_by_ticker ON contracts (ticker, award_date DESC, id DESC) WHERE ticker IS NOT NULL;
-- Agency filters compare case-insensitively.
CREATE INDEX contracts_by_agency ON contracts (lower(awarding_agency), award_date DESC, id DESC) WHERE ticker IS NOT NULL;
CREATE INDEX contracts_by_class ON contracts (nlp_classification, award_date DESC, id DESC) WHERE ticker IS NOT NULL;

CREATE TABLE signals (
  id uuid PRIMARY KEY,
  contract_id text NOT NULL REFERENCES contracts (id) ON DELETE CASCADE,
  -- Copied from the contract so the signals list can filter by ticker in index order.
  ticker text NOT NULL,
  engine_name text NOT NULL,
  engine_version text NOT NULL,
  engine_tier text NOT NULL,
  signal_score integer NOT NULL CHECK (signal_score BETWEEN 0 AND 100),
  importance_score integer NOT NULL CHECK (importance_score BETWEEN 0 AND 100),
  confidence_score integer NOT NULL CHECK (confidence_score BETWEEN 0 AND 100),
  risk_score integer NOT NULL CHECK (risk_score BETWEEN 0 AND 100),
  rationale jsonb NOT NULL,
  computed_at timestamptz NOT NULL,
  UNIQUE (contract_id, engine_name, engine_version)
);
CREATE INDEX signals_latest ON signals (contract_id, engine_name, computed_at DESC);
-- The signals list shows one engine version, ranked by (signal_score desc, computed_at desc, id).
CREATE INDEX signals_ranked ON signals (engine_name, engine_version, signal_score DESC, computed_at DESC, id);
CREATE INDEX signals_by_ticker ON signals (engine_name, engine_version, ticker, signal_score DESC, computed_at DESC, id);
CREATE INDEX signals_by_time ON signals (engine_name, engine_version, computed_at);

CREATE TABLE candles (
  ticker text NOT NULL,
  date date NOT NULL,
  open double precision NOT NULL,
  high double precision NOT NULL,
  low double precision NOT NULL,
  close double precision NOT NULL,
  adj_close double precision NOT NULL,
  volume bigint NOT NULL,
  PRIMARY KEY (ticker, date)
);

CREATE TABLE regimes (
  contract_id text PRIMARY KEY REFERENCES contracts (id) ON DELETE CASCADE,
  ticker text NOT NULL,
  as_of date NOT NULL,
  benchmark text NOT NULL,
  dominant text NOT NULL,
  scores jsonb NOT NULL,
  features jsonb NOT NULL,
  engine_version text NOT NULL,
  computed_at timestamptz NOT NULL DEFAULT now()
);
-- The regimes list sorts by (as_of desc, contract_id desc).
CREATE INDEX regimes_recent ON regimes (as_of DESC, contract_id DESC);
CREATE INDEX regimes_by_dominant ON regimes (dominant, as_of DESC, contract_id DESC);

CREATE TABLE unmatched_recipients (
  name_norm text PRIMARY KEY,
  sample_name text NOT NULL,
  award_count integer NOT NULL,
  total_value bigint NOT NULL
);
