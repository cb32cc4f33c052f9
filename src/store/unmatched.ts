/** The curation list of recipients no ticker was found for. */
import type { Queryable } from './db.ts';
import { KEYSETS, keysetRows, type PageRequest, type RowPage } from './keyset.ts';
import { Where } from './where.ts';

export interface UnmatchedRecipient {
  name_norm: string;
  sample_name: string;
  award_count: number;
  total_value: number;
}

/**
 * Largest total value first. A later ingest raises a name's total, moving it up the list: a page read
 * after that, by offset or from a position, may repeat or miss a name that moved.
 */
export async function listUnmatched(db: Queryable, page: PageRequest): Promise<RowPage<UnmatchedRecipient>> {
  const columns = 'u.name_norm, u.sample_name, u.award_count, u.total_value';
  const from = 'unmatched_recipients u';
  return keysetRows(db, KEYSETS.unmatched, { columns, from, where: new Where() }, page);
}

/** Adds newly stored awards' counts and values to their names' rows. */
export async function addUnmatched(tx: Queryable, rows: readonly UnmatchedRecipient[]): Promise<void> {
  if (rows.length === 0) return;
  // In key order, so concurrent batches updating the same names wait for each other instead of deadlocking.
  const sorted = [...rows].sort((a, b) =>
    a.name_norm < b.name_norm ? -1 : a.name_norm > b.name_norm ? 1 : 0,
  );
  // Each award is at most MAX_AMOUNT, but a name's running total is not bounded: it saturates at
  // bigint's range (the list only ranks by it) instead of failing the batch on overflow.
  await tx.query(
    `INSERT INTO unmatched_recipients (name_norm, sample_name, award_count, total_value)
     SELECT * FROM json_to_recordset($1::json) AS t(name_norm text, sample_name text, award_count int, total_value int8)
     ON CONFLICT (name_norm) DO UPDATE SET award_count = unmatched_recipients.award_count + EXCLUDED.award_count,
       total_value = LEAST(GREATEST(unmatched_recipients.total_value::numeric + EXCLUDED.total_value,
         -9223372036854775808), 9223372036854775807)::int8`,
    [JSON.stringify(sorted)],
  );
}
