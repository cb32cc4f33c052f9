-- Accounts: users on plans, and their API keys. Raw keys are never stored.

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  password_hash text,
  plan text NOT NULL CHECK (plan IN ('free', 'pulse', 'intelligence', 'developer', 'institutional')),
  is_admin boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  scopes text[] NOT NULL,
  -- sha256 of the raw key, hex: the only form of the key the service keeps.
  hash text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at);
