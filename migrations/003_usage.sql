-- Per-key request and error counts per UTC minute, written in batches by UsageRecorder.
-- No foreign key to api_keys (002_accounts.sql), on purpose: usage stays readable after a key row
-- is deleted, and the batched upsert never has to check or lock key rows.
-- The primary key (key_id, minute) also serves the only read: one key over a time range.
CREATE TABLE usage_minutely (
  key_id uuid NOT NULL,
  minute timestamptz NOT NULL,
  requests integer NOT NULL,
  errors integer NOT NULL,
  PRIMARY KEY (key_id, minute)
);
