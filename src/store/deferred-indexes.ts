/**
 * List indexes that a large import builds once, after its rows are in, instead of entry by entry.
 * Why: docs/EVALUATION.md#deferred-list-indexes
 *
 * Only plain (non-unique) b-tree indexes are deferred: primary keys stay, because imports upsert
 * through them. Each deferred index's definition is recorded in `deferred_indexes` in the transaction
 * that drops it, so a crash mid-import loses nothing: `migrate` (run by every start) builds whatever
 * is recorded and no running import owns. Meanwhile reads stay correct; the list queries scan instead
 * of walking an index.
 *
 * An import owns its deferral by holding a shared advisory lock for as long as it has indexes to build
 * (a transaction kept open on one pool connection: the lock, and nothing else, goes when the process
 * does).
 *
 * Deferring the contracts' indexes also defers their totals (migration 033): the summary's triggers are
 * turned off, recorded in the same transaction, and the summary is summed once when the contracts'
 * indexes are built (or by the next start, as the indexes are).
 */
import type { Db } from './db.ts';

/** Serializes deferrals, so a second import sees the first one's record and leaves the indexes alone. */
const DEFER_LOCK = 7_426_014;
/** Held (shared) by an import while it owns deferred indexes; `restoreAbandonedIndexes` tests it. */
const OWNER_LOCK = 7_426_015;

export type DeferrableTable = 'contracts' | 'signals';

export interface Deferral {
  /** The indexes dropped; empty when nothing was deferred. */
  names: string[];
  /** Ends the import's ownership of the records: call it once the indexes are built (or given up). */
  release: () => Promise<void>;
}

/**
 * Drops the plain b-tree indexes of `tables`, recording their definitions, and returns their names.
 * Returns none when another import has already deferred indexes, or when a reader keeps the tables
 * locked for more than a second (the import then writes through the indexes, as a small one does).
 * The ownership mark is taken before the drop, so no start in between can build the indexes early.
 */
export async function deferIndexes(db: Db, tables: readonly DeferrableTable[]): Promise<Deferral> {
  const release = await holdOwnership(db);
  try {
    const names = await dropAndRecord(db, tables);
    if (names.length === 0) await release();
    return { names, release };
  } catch (error) {
    await release();
    throw error;
  }
}

async function dropAndRecord(db: Db, tables: readonly DeferrableTable[]): Promise<string[]> {
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
      if (indexes.length > 0 && tables.includes('contracts'))
        await tx.query('SELECT defer_contract_totals()');
      return indexes.map((i) => i.name);
    });
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return [];
    throw error;
  }
}

const LOCK_NOT_AVAILABLE = '55P03';

/** Takes the shared ownership lock in a transaction that stays open until the returned function ends it. */
async function holdOwnership(db: Db): Promise<() => Promise<void>> {
  let end = (): void => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  let taken = (): void => {};
  const lockTaken = new Promise<void>((resolve) => {
    taken = resolve;
  });
  const holding = db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock_shared($1)', [OWNER_LOCK]);
    taken();
    await ended;
  });
  // A connection lost meanwhile has taken the lock with it; nothing is left to release.
  holding.catch(() => undefined);
  await Promise.race([lockTaken, holding]);
  return async () => {
    end();
    await holding.catch(() => undefined);
  };
}

/**
 * What `migrate` runs at every start: builds the recorded indexes of imports that stopped before
 * building them, and leaves alone those of an import still running in another process.
 */
export async function restoreAbandonedIndexes(db: Db): Promise<string[]> {
  const owned = await db.transaction(async (tx) => {
    const [row] = await tx.query<{ free: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS free', [
      OWNER_LOCK,
    ]);
    return row?.free !== true;
  });
  if (owned) return [];
  return restoreIndexes(db);
}

/**
 * Builds every recorded index of `tables` (all tables when omitted) that is still missing and
 * clears its record; returns the names built. Each index is built in its own transaction, so on
 * PostgreSQL they are built side by side; a concurrent caller waits on the record's row lock and
 * then finds it gone. With the contracts' indexes, deferred totals are summed again beside them
 * (named `contract_totals`, last, among those returned).
 */
export async function restoreIndexes(db: Db, tables?: readonly DeferrableTable[]): Promise<string[]> {
  const recorded = await db.query<{ name: string; definition: string }>(
    `SELECT name, definition FROM deferred_indexes WHERE $1::text[] IS NULL OR table_name = ANY($1::text[])
     ORDER BY name`,
    [tables ?? null],
  );
  const totals = tables === undefined || tables.includes('contracts') ? [restoreTotals(db)] : [];
  const built = await Promise.all([
    ...recorded.map((index) =>
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
    ...totals,
  ]);
  return built.filter((name): name is string => name !== null);
}

/** The contracts' totals summed again and their triggers turned back on, if a deferral is recorded. */
async function restoreTotals(db: Db): Promise<string | null> {
  const [row] = await db.query<{ restored: boolean }>('SELECT restore_contract_totals() AS restored');
  return row?.restored ? 'contract_totals' : null;
}

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
