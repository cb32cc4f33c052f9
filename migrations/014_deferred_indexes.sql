-- A large import drops the list indexes of contracts and signals and builds them once at its end
-- (src/store/deferred-indexes.ts). Each dropped index's definition is recorded here in the same
-- transaction, so an import that stops mid-way leaves the record, and the next start builds them.
CREATE TABLE deferred_indexes (
  name text PRIMARY KEY,
  table_name text NOT NULL,
  definition text NOT NULL,
  deferred_at timestamptz NOT NULL DEFAULT now()
);
