import type { ContractDto, SignalDto } from '../http/schemas/resources.ts';
import type { Queryable } from './db.ts';
import { Where } from './events.ts';
import {
  CONTRACT_COLUMNS,
  type ContractRow,
  type SignalRow,
  signalColumns,
  toContract,
  toSignal,
} from './rows.ts';

export interface SignalFilter {
  engine: string;
  withRationale: boolean;
  engineVersion: string;
  minScore?: number;
  ticker?: string;
  since?: string;
  limit: number;
  offset: number;
}

/** The leading key of the signals list's indexes: must match migration 011's expression exactly. */
const ENGINE_HASH = (name: string, version: string) => `hashtext(${name} || '@' || ${version})`;

/** Signals of one engine version, best first. */
export async function listSignals(
  db: Queryable,
  filter: SignalFilter,
): Promise<{ signal: SignalDto; contract: ContractDto }[]> {
  const where = new Where();
  const engine = where.next(filter.engine);
  const version = where.next(filter.engineVersion);
  where.clauses.push(
    `s.engine_name = ${engine}`,
    `s.engine_version = ${version}`,
    // What the list's indexes lead with (migration 011).
    `${ENGINE_HASH('s.engine_name', 's.engine_version')} = ${ENGINE_HASH(`${engine}::text`, `${version}::text`)}`,
  );
  where
    .add((p) => `s.signal_score >= ${p}`, filter.minScore)
    .add((p) => `s.ticker = ${p}`, filter.ticker)
    .add((p) => `s.computed_at >= ${p}::timestamptz`, filter.since);
  const limit = where.next(filter.limit);
  const offset = where.next(filter.offset);
  const rows = await db.query<ContractRow & SignalRow>(
    `SELECT ${CONTRACT_COLUMNS}, ${signalColumns(filter.withRationale)}
     FROM (SELECT s.* FROM signals s ${where.sql()}
           ORDER BY s.signal_score DESC, s.computed_at DESC, s.id LIMIT ${limit} OFFSET ${offset}) s
     JOIN contracts c ON c.id = s.contract_id
     ORDER BY s.signal_score DESC, s.computed_at DESC, s.id`,
    where.params,
  );
  return rows.flatMap((row) => {
    const signal = toSignal(row);
    return signal ? [{ signal, contract: toContract(row) }] : [];
  });
}

/** The most recent signal of an engine (any version) on a contract. */
export async function latestSignal(
  db: Queryable,
  contractId: string,
  engine: string,
): Promise<SignalDto | null> {
  const rows = await db.query<SignalRow>(
    `SELECT ${signalColumns(true)} FROM signals s WHERE s.contract_id = $1 AND s.engine_name = $2
     ORDER BY s.computed_at DESC LIMIT 1`,
    [contractId, engine],
  );
  const row = rows[0];
  return row ? toSignal(row) : null;
}
