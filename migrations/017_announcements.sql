-- DoD contract announcements (src/sources/announcements.ts): one row per paragraph of a daily
-- "Contracts for <date>" page, with what the parser read from it. Each awardee of an announced award
-- becomes an event in `contracts` (id DOD_ANN_<date>_<paragraph>_<position>), scored like any award.
CREATE TABLE announcements (
  id text PRIMARY KEY CHECK (id LIKE 'DOD\_ANN\_%'),
  announced_on date NOT NULL,
  -- When the public could know it: 17:00 America/New_York of the announcement date.
  announced_at timestamptz NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  section text NOT NULL,
  paragraph_no integer NOT NULL,
  text text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('award', 'modification', 'option', 'order', 'other')),
  face_value bigint,
  obligated_at_award bigint,
  contract_numbers text[] NOT NULL DEFAULT '{}',
  modification_number text,
  contract_types text[] NOT NULL DEFAULT '{}',
  competed boolean,
  offers integer,
  contracting_activity text,
  multiple_award boolean NOT NULL DEFAULT false,
  awardees jsonb NOT NULL DEFAULT '[]',
  UNIQUE (announced_on, paragraph_no)
);

ALTER TABLE contracts DROP CONSTRAINT contracts_id_check;
ALTER TABLE contracts ADD CONSTRAINT contracts_id_check CHECK (id LIKE 'CONT\_AWD\_%' OR id LIKE 'DOD\_ANN\_%');

-- Point in time: when the public could know each event. An award that was announced keeps the
-- announcement's time; any other event, the time it reached the service.
ALTER TABLE contracts
  ADD COLUMN source text NOT NULL GENERATED ALWAYS AS (
    CASE WHEN id LIKE 'DOD\_ANN\_%' THEN 'announcement' ELSE 'usaspending' END) STORED,
  ADD COLUMN announced_at timestamptz,
  ADD COLUMN available_at timestamptz,
  -- The other side of an announcement ↔ award link, and how it was made.
  ADD COLUMN linked_id text,
  ADD COLUMN link_method text;
UPDATE contracts SET available_at = first_seen_at;
ALTER TABLE contracts ALTER COLUMN available_at SET NOT NULL, ALTER COLUMN available_at SET DEFAULT now();
CREATE INDEX contracts_available ON contracts (available_at DESC, id DESC) WHERE ticker IS NOT NULL;
-- The linker looks awards up by the PIID inside their id (CONT_AWD_<piid>_<agency>_…).
CREATE INDEX contracts_piid ON contracts ((split_part(id, '_', 3))) WHERE id LIKE 'CONT\_AWD\_%';

-- The contract numbers (PIIDs, without dashes) each announcement event names, for the linker. No
-- foreign key: like signals (migration 009), it must not stand in the way of bulk loads into contracts.
CREATE TABLE announcement_piids (
  event_id text NOT NULL,
  piid text NOT NULL,
  PRIMARY KEY (event_id, piid)
);
CREATE INDEX announcement_piids_piid ON announcement_piids (piid);
