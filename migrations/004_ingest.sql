-- Checkpoints of USASpending API runs: an interrupted run resumes at the page after the
-- last completed one instead of fetching everything again.

CREATE TABLE ingest_checkpoints (
  -- base URL + period (+ date type): one run of one query.
  source_key text PRIMARY KEY,
  base_url text NOT NULL,
  date_type text NOT NULL,
  start_date date NOT NULL,
  end_date date NOT NULL,
  -- Pages whose awards are stored; 0 before the first one.
  last_page integer NOT NULL DEFAULT 0,
  awards integer NOT NULL DEFAULT 0,
  finished boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The scheduler starts each tick where the last finished run of its base URL ended.
CREATE INDEX ingest_checkpoints_finished ON ingest_checkpoints (base_url, date_type, end_date DESC) WHERE finished;
-- The unmatched-recipients report lists the largest total value first.
CREATE INDEX unmatched_recipients_by_value ON unmatched_recipients (total_value DESC, name_norm);
