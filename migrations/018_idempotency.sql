-- Idempotency-Key (src/http/idempotency.ts): the first answer to a keyed POST that carried the header,
-- kept for 24 hours per (API key, header value), so a retry is answered with it instead of running the
-- operation again. `fingerprint` is a sha256 of the request (method, route, path, query, body): the
-- same header value with another request is refused. While the first request runs, `status` is NULL
-- and `lock_token` names its holder; only the holder stores the answer or releases the row.
-- `body` is the answer's bytes sealed with SECRET_KEY (AES-256-GCM): a creation's secret is in it.
CREATE TABLE idempotency_keys (
  key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL CHECK (idempotency_key ~ '^[\x20-\x7e]{1,255}$'),
  fingerprint bytea NOT NULL,
  lock_token uuid,
  locked_at timestamptz NOT NULL,
  status smallint,
  headers jsonb,
  body bytea,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (key_id, idempotency_key),
  CHECK ((status IS NULL) = (lock_token IS NOT NULL))
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
