import { readdir, readFile } from 'node:fs/promises';
import type { Db } from './db.ts';
import { restoreAbandonedIndexes } from './deferred-indexes.ts';

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url);
/** Serializes concurrent starts of several instances against one PostgreSQL. */
const MIGRATION_LOCK = 7_426_001;

/**
 * Applies every migration not yet recorded, in file-name order, each in its own transaction.
 * A transaction-scoped advisory lock serializes instances that start together on one PostgreSQL.
 * Then builds any list index a large import deferred and did not get to build (it stopped mid-way).
 */
export async function migrate(db: Db): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  const applied: string[] = [];
  for (const file of files) {
    const sql = await readFile(new URL(file, MIGRATIONS_DIR), 'utf8');
    const ran = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [file]);
      if (done.length > 0) return false;
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      return true;
    });
    if (ran) applied.push(file);
  }
  await restoreAbandonedIndexes(db);
  return applied;
}

/**
 * Migrations hold DDL: a statement ends at a semicolon that closes a line, unless the line is inside a
 * dollar-quoted body (`$$ … $$`, `$tag$ … $tag$`: a function's), whose own statements end the same way.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let openTag: string | null = null;
  for (const line of sql.split('\n')) {
    if (openTag === null && /^\s*--/.test(line)) continue;
    current.push(line);
    for (const [tag] of line.matchAll(/\$[A-Za-z_]*\$/g)) {
      if (openTag === null) openTag = tag;
      else if (tag === openTag) openTag = null;
    }
    if (openTag === null && /;\s*$/.test(line)) {
      statements.push(current.join('\n').replace(/;\s*$/, ''));
      current = [];
    }
  }
  statements.push(current.join('\n'));
  return statements.map((s) => s.trim()).filter(Boolean);
}
