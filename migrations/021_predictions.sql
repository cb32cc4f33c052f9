-- The prediction engine (src/domain/prediction.ts): one row per announcement event and model version,
-- made at the event's available_at from closes at or before it, written once and never updated (a new
-- model version adds rows beside the old ones). The realized value is not stored: it is read from the
-- candles when the horizon has passed, so it is always the served closes' own.
CREATE TABLE predictions (
  contract_id text NOT NULL,
  model_name text NOT NULL,
  model_version text NOT NULL,
  ticker text NOT NULL,
  made_at timestamptz NOT NULL,
  day0 date NOT NULL,
  horizon_days integer NOT NULL CHECK (horizon_days > 0),
  benchmark text NOT NULL,
  expected float8 NOT NULL,
  level float8 NOT NULL CHECK (level > 0 AND level < 1),
  low float8 NOT NULL,
  high float8 NOT NULL CHECK (high >= low),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contract_id, model_name, model_version)
);
-- The list: one model version, newest first, keyset (made_at, contract_id).
CREATE INDEX predictions_list ON predictions (model_name, model_version, made_at DESC, contract_id DESC);
CREATE INDEX predictions_ticker ON predictions (ticker, made_at DESC, contract_id DESC);
