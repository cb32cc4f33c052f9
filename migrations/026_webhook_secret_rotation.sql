-- Secret rotation with an overlap window (src/webhooks/rotation.ts): the secret replaced by the last
-- rotation, sealed like `secret` (the same format and associated data), and until when deliveries are
-- signed with it too. After that instant only `secret` signs; the next rotation overwrites both.
ALTER TABLE webhooks
  ADD COLUMN previous_secret text,
  ADD COLUMN previous_secret_expires_at timestamptz;
