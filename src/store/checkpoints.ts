import type { Queryable } from './db.ts';

/** SQL of `ingest_checkpoints`: where each USASpending run (one query, one server) got to. */

export interface Checkpoint {
  lastPage: number;
  awards: number;
  finished: boolean;
  endDate: string;
  updatedAt: string;
}

export async function readCheckpoint(db: Queryable, key: string): Promise<Checkpoint | null> {
  const rows = await db.query<Checkpoint>(
    `SELECT last_page AS "lastPage", awards, finished, end_date AS "endDate", updated_at AS "updatedAt"
     FROM ingest_checkpoints WHERE source_key = $1`,
    [key],
  );
  return rows[0] ?? null;
}

export async function saveCheckpoint(
  db: Queryable,
  run: { key: string; baseUrl: string; dateType: string; from: string; to: string },
  state: { lastPage: number; awards: number; finished: boolean },
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO ingest_checkpoints (source_key, base_url, date_type, start_date, end_date, last_page, awards, finished, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (source_key) DO UPDATE SET last_page = EXCLUDED.last_page, awards = EXCLUDED.awards,
       finished = EXCLUDED.finished, updated_at = EXCLUDED.updated_at`,
    [
      run.key,
      run.baseUrl,
      run.dateType,
      run.from,
      run.to,
      state.lastPage,
      state.awards,
      state.finished,
      now.toISOString(),
    ],
  );
}

/** The end of the last finished scheduled period, where the next tick starts. */
export async function lastFinishedEnd(
  db: Queryable,
  baseUrl: string,
  dateType: string,
): Promise<string | null> {
  const rows = await db.query<{ end: string }>(
    `SELECT end_date AS "end" FROM ingest_checkpoints WHERE base_url = $1 AND date_type = $2 AND finished
     ORDER BY end_date DESC LIMIT 1`,
    [baseUrl, dateType],
  );
  return rows[0]?.end ?? null;
}
