/**
 * List indexes that a large import builds once, after its rows are in, instead of entry by entry
 * (PostgreSQL's own advice for populating a database: "remove indexes"). Inserting into a b-tree
 * costs about as much per entry as copying the row into the heap, five times over for contracts;
 * building one from a sort costs a fraction of that.
 *
 * Only plain (non-unique) b-tree indexes are deferred: primary keys stay, because imports upsert
 * through them. Each deferred index's definition is recorded in `deferred_indexes` in the transaction
 * that drops it, so a crash mid-import loses nothing: `migrate` (run by every start) builds whatever
 * is recorded (a start while another process imports builds them early: that import is only slower).
 * Meanwhile reads stay correct; the list queries scan instead of walking an index.
 */
import type { Db, Queryable } from './db.ts';

/** Serializes deferrals, so a second import sees the first one's record and leaves the indexes alone. */
const DEFER_LOCK = 7_426_014;

export type DeferrableTable = 'contracts' | 'signals';

/**
 * Drops the plain b-tree indexes of `tables`, recording their definitions, and returns their names.
 * Returns none when another import has already deferred indexes, or when a reader keeps the tables
 * locked for more than a second (the import then writes through the indexes, as a small one does).
 */
export async function deferIndexes(db: Db, tables: readonly DeferrableTable[]): Promise<string[]> {
  try {
    return await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL lock_timeout = '1s'`);
      await tx.query('SELECT pg_advisory_xact_lock($1)', [DEFER_LOCK]);
      const pending = await tx.query('SELECT 1 FROM deferred_indexes LIMIT 1');
      if (pending.length > 0) return [];
      const indexes = await tx.query<{ name: string; table: string; definition: string }>(
        `SELECT c.relname AS name, t.relname AS "table", pg_get_indexdef(i.indexrelid) AS definition
         FROM pg_index i
           JOIN pg_class c ON c.oid = i.indexrelid
           JOIN pg_class t ON t.oid = i.indrelid
           JOIN pg_am am ON am.oid = c.relam
         WHERE t.relname = ANY($1::text[]) AND t.relnamespace = current_schema()::regnamespace
           AND NOT i.indisunique AND am.amname = 'btree'
         ORDER BY c.relname`,
        [tables],
      );
      for (const index of indexes) {
        await tx.query('INSERT INTO deferred_indexes (name, table_name, definition) VALUES ($1, $2, $3)', [
          index.name,
          index.table,
          index.definition,
        ]);
        await tx.query(`DROP INDEX ${quoteIdent(index.name)}`);
      }
      return indexes.map((i) => i.name);
    });
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return [];
    throw error;
  }
}

const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Builds every recorded index of `tables` (all tables when omitted) that is still missing and
 * clears its record; returns the names built. Each index is built in its own transaction, so on
 * PostgreSQL they are built side by side; a concurrent caller waits on the record's row lock and
 * then finds it gone.
 */
export async function restoreIndexes(db: Db, tables?: readonly DeferrableTable[]): Promise<string[]> {
  const recorded = await db.query<{ name: string; definition: string }>(
    `SELECT name, definition FROM deferred_indexes WHERE $1::text[] IS NULL OR table_name = ANY($1::text[])
     ORDER BY name`,
    [tables ?? null],
  );
  const built = await Promise.all(
    recorded.map((index) =>
      db.transaction(async (tx) => {
        const claimed = await tx.query('DELETE FROM deferred_indexes WHERE name = $1 RETURNING name', [
          index.name,
        ]);
        if (claimed.length === 0) return null;
        const [present] = await tx.query<{ present: boolean }>(
          'SELECT to_regclass($1) IS NOT NULL AS present',
          [quoteIdent(index.name)],
        );
        if (present?.present) return null;
        await tx.query(index.definition);
        return index.name;
      }),
    ),
  );
  return built.filter((name): name is string => name !== null);
}

/** Whether any index is recorded as deferred (an import is under way, or one stopped mid-way). */
export async function hasDeferredIndexes(db: Queryable): Promise<boolean> {
  return (await db.query('SELECT 1 FROM deferred_indexes LIMIT 1')).length > 0;
}

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
