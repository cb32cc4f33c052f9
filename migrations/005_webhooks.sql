-- Webhooks and their durable outbox. A delivery row is written in the same transaction
-- as the signal it announces; workers claim due rows with FOR UPDATE SKIP LOCKED and a lease
-- (locked_until), so a worker that dies mid-send loses nothing: its lease expires and another attempt
-- follows. Every attempt is kept in webhook_attempts.

CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url text NOT NULL,
  -- 'gcm1:<iv>:<tag>:<ciphertext>' (AES-256-GCM under a key derived from SECRET_KEY) or 'plain:<secret>'.
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Deleting a webhook disables it: its deliveries and attempts stay listed.
  disabled_at timestamptz
);
CREATE INDEX webhooks_by_user ON webhooks (user_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  -- Attempts started in the current series; a resend starts series + 1 at attempt 0.
  attempts integer NOT NULL DEFAULT 0,
  series integer NOT NULL DEFAULT 1,
  -- Null once the delivery succeeded or failed.
  next_attempt_at timestamptz,
  -- The claim of the worker sending it; an expired claim makes the delivery due again.
  locked_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Claiming reads only unfinished rows in next_attempt_at order: a partial index stays small however
-- many deliveries have finished.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status IN ('pending', 'delivering');
-- A webhook's deliveries, newest first (the dashboard and the deliveries endpoints).
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  series integer NOT NULL,
  attempt_no integer NOT NULL,
  started_at timestamptz NOT NULL,
  -- Null while the attempt is in flight (or when its worker died; then error says so).
  duration_ms integer,
  status_code integer,
  error text,
  UNIQUE (delivery_id, series, attempt_no)
);
