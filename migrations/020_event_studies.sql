-- The event study's summary per engine version (src/evaluation/evidence.ts), as the dashboard's
-- Evidence page shows it: written by `market-intel evaluate`, or by the first request for a version
-- that has none. Read back whole, never queried inside: compact JSON text.
CREATE TABLE event_studies (
  engine_name text NOT NULL,
  engine_version text NOT NULL,
  computed_at timestamptz NOT NULL,
  -- Contracts with a ticker scored by the version when the study ran.
  contracts integer NOT NULL CHECK (contracts >= 0),
  summary text NOT NULL,
  PRIMARY KEY (engine_name, engine_version)
);
