import type { Queryable } from '../store/db.ts';

/** No company stored: the demo data (or any import) has never run. */
export async function isEmpty(db: Queryable): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM companies LIMIT 1');
  return rows.length === 0;
}
