-- Point-in-time company identity (src/domain/identity.ts): entities, their listing eras, dated
-- ownership edges and the recipient names that identify them, loaded from data/identity/*.csv.
-- Spans are [valid_from, valid_to); NULL is open-ended.
CREATE TABLE identity_entities (
  id text PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('registrant', 'unit', 'joint_venture', 'foreign', 'private')),
  cik text
);

CREATE TABLE identity_listings (
  entity_id text NOT NULL REFERENCES identity_entities (id) ON DELETE CASCADE,
  ticker text NOT NULL,
  exchange text NOT NULL,
  valid_from date,
  valid_to date,
  series text,
  source text NOT NULL,
  CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_from < valid_to)
);
CREATE INDEX identity_listings_ticker ON identity_listings (ticker);
CREATE INDEX identity_listings_entity ON identity_listings (entity_id);

CREATE TABLE identity_edges (
  child text NOT NULL REFERENCES identity_entities (id) ON DELETE CASCADE,
  parent text NOT NULL REFERENCES identity_entities (id) ON DELETE CASCADE,
  relation text NOT NULL,
  valid_from date,
  valid_to date,
  share double precision CHECK (share IS NULL OR (share > 0 AND share <= 1)),
  source text NOT NULL,
  CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_from < valid_to)
);
CREATE INDEX identity_edges_child ON identity_edges (child);
CREATE INDEX identity_edges_parent ON identity_edges (parent);

CREATE TABLE identity_names (
  entity_id text NOT NULL REFERENCES identity_entities (id) ON DELETE CASCADE,
  name text NOT NULL,
  match text NOT NULL CHECK (match IN ('exact', 'prefix')),
  valid_from date,
  valid_to date
);

-- The resolver version the stored contracts were resolved with (one row): `market-intel reresolve`
-- re-resolves when the identity data or the logic changed.
CREATE TABLE resolver_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version text NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Each contract's resolution: the entity its recipient names, the owner on the date basis, the
-- series its prices come from, and why there is no ticker when there is none.
ALTER TABLE contracts
  ADD COLUMN entity_id text,
  ADD COLUMN entity_name text,
  ADD COLUMN owner_name text,
  ADD COLUMN series_ticker text,
  ADD COLUMN resolution_basis text,
  ADD COLUMN no_ticker_reason text,
  ADD COLUMN venture_parents text,
  ADD COLUMN resolver_version text;
