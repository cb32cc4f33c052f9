-- A key's last use moves from its api_keys row to its usage rows: each (key, minute) row keeps the
-- latest use in that minute, written by the same upsert as the counts. The flush then rewrites no
-- key row (every 5 s, one per active key: a new row version, its index entries and the key
-- triggers' checks each time). api_keys.last_used_at stays as the last use recorded before this
-- migration; a key's last use is the later of the two (KEY_LAST_USED in src/store/accounts.ts).
ALTER TABLE usage_minutely ADD COLUMN last_used_at timestamptz;
