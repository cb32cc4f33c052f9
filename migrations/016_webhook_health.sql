-- Per-endpoint health, so one receiver's trouble stays its own (src/webhooks/worker.ts):
-- failure_streak counts the attempts that failed in a row, across deliveries; failing_since is when
-- the streak began. From the third failure in a row the endpoint is backed off until retry_at, and
-- its waiting deliveries with it. An endpoint failing without a break for WEBHOOK_SUSPEND_AFTER is
-- suspended (suspended_at): nothing is sent to it until its owner re-enables it.
ALTER TABLE webhooks
  ADD COLUMN failure_streak integer NOT NULL DEFAULT 0,
  ADD COLUMN failing_since timestamptz,
  ADD COLUMN retry_at timestamptz,
  ADD COLUMN suspended_at timestamptz;

-- The claim counts each endpoint's attempts in flight: the delivering rows, by webhook.
CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (webhook_id) WHERE status = 'delivering';
