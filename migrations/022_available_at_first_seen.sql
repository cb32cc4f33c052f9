-- An award nothing announced is available when it was first seen, exactly. Imports used to leave
-- available_at to its column default (the database's clock at the transaction's start) while writing
-- first_seen_at from the importing process's clock, a few milliseconds apart (store/writes.ts now
-- writes both from one value). Rows an announcement moved (announced_at set) keep their value.
UPDATE contracts SET available_at = first_seen_at
 WHERE announced_at IS NULL AND available_at IS DISTINCT FROM first_seen_at;
