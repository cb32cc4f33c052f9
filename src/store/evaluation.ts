/** Reads what the event study needs from the store: one engine version's signals and the candles. */
import type { Queryable } from './db.ts';
import { candleSeries } from './market.ts';
import { PRICE_TICKER_SQL } from './rows.ts';

export interface PricePoint {
  date: string; // YYYY-MM-DD, ascending
  adjClose: number;
}

export interface ScoredEvent {
  contractId: string;
  ticker: string;
  awardDate: string;
  score: number;
}

export async function signalVersions(
  db: Queryable,
  engine: string,
): Promise<{ version: string; signals: number }[]> {
  return db.query<{ version: string; signals: number }>(
    `SELECT engine_version AS version, count(*)::int AS signals FROM signals WHERE engine_name = $1
     GROUP BY engine_version ORDER BY engine_version`,
    [engine],
  );
}

/** Every contract scored by `engine` at `version`, oldest award first. */
export async function scoredEvents(db: Queryable, engine: string, version: string): Promise<ScoredEvent[]> {
  return db.query<ScoredEvent>(
    `SELECT s.contract_id AS "contractId", ${PRICE_TICKER_SQL} AS ticker, c.award_date AS "awardDate", s.signal_score AS score
     FROM signals s JOIN contracts c ON c.id = s.contract_id
     WHERE s.engine_name = $1 AND s.engine_version = $2 AND c.ticker IS NOT NULL
     ORDER BY c.award_date, s.contract_id`,
    [engine, version],
  );
}

/** Adjusted-close series of each ticker (empty when it has no candles). */
export async function priceSeries(
  db: Queryable,
  tickers: Iterable<string>,
): Promise<Map<string, PricePoint[]>> {
  const out = new Map<string, PricePoint[]>();
  for (const ticker of new Set(tickers)) {
    const candles = await candleSeries(db, ticker, '1900-01-01', '2999-12-31');
    out.set(
      ticker,
      candles.map((c) => ({ date: c.date, adjClose: c.adjClose })),
    );
  }
  return out;
}

/** An awardee event of a DoD announcement, resolved to a ticker. */
export interface AnnouncementEventRow {
  /** DOD_ANN_<date>_<paragraph>_<position>. */
  id: string;
  ticker: string;
  recipient: string;
  /** The "Contracts for" date of the page, YYYY-MM-DD. */
  date: string;
  /** When the page was published (17:00 New York time of `date`), ISO 8601. */
  announcedAt: string;
  kind: string;
  /** Whole dollars: the paragraph's face value, a multiple-award ceiling split evenly among its awardees (`ann-size-1`'s value). */
  value: number;
  /** The paragraph's money as read (`ann-dv-1` values it with domain/awarded-value.ts). */
  faceValue: number;
  obligatedAtAward: number | null;
  awardees: number;
}

/**
 * Every announcement event with a ticker announced on or before `to` (all of them when null), oldest
 * first. The history before a study period is read too: an event's score looks a year back.
 */
export async function announcementEvents(db: Queryable, to: string | null): Promise<AnnouncementEventRow[]> {
  return db.query<AnnouncementEventRow>(
    `SELECT c.id, ${PRICE_TICKER_SQL} AS ticker, c.recipient_name AS recipient, a.announced_on AS date, a.announced_at AS "announcedAt",
       a.kind, round(a.face_value::numeric / greatest(jsonb_array_length(a.awardees), 1))::float8 AS value,
       a.face_value::float8 AS "faceValue", a.obligated_at_award::float8 AS "obligatedAtAward",
       greatest(jsonb_array_length(a.awardees), 1) AS awardees
     FROM contracts c
       JOIN announcements a ON a.id = substring(c.id from '^(DOD_ANN_\\d{4}-\\d{2}-\\d{2}_\\d{4})')
     WHERE c.source = 'announcement' AND c.ticker IS NOT NULL AND ($1::date IS NULL OR a.announced_on <= $1::date)
     ORDER BY a.announced_on, c.id`,
    [to],
  );
}

/** The first and last dates of the stored announcement pages (null when there are none). */
export async function announcementCoverage(
  db: Queryable,
): Promise<{ first: string | null; last: string | null; paragraphs: number }> {
  const rows = await db.query<{ first: string | null; last: string | null; paragraphs: number }>(
    `SELECT min(announced_on) AS first, max(announced_on) AS last, count(*)::int AS paragraphs FROM announcements`,
  );
  return rows[0] ?? { first: null, last: null, paragraphs: 0 };
}

/** A stored event-study summary (migration 020): `summary` is JSON text, written and read whole. */
export interface StoredStudy {
  engine: string;
  version: string;
  computedAt: string;
  contracts: number;
  summary: string;
}

/** Replaces the version's stored summary. */
export async function saveEventStudy(db: Queryable, study: StoredStudy): Promise<void> {
  await db.query(
    `INSERT INTO event_studies (engine_name, engine_version, computed_at, contracts, summary)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (engine_name, engine_version) DO UPDATE
       SET computed_at = EXCLUDED.computed_at, contracts = EXCLUDED.contracts, summary = EXCLUDED.summary`,
    [study.engine, study.version, study.computedAt, study.contracts, study.summary],
  );
}

export async function storedEventStudy(
  db: Queryable,
  engine: string,
  version: string,
): Promise<StoredStudy | null> {
  const rows = await db.query<StoredStudy>(
    `SELECT engine_name AS engine, engine_version AS version, computed_at AS "computedAt", contracts, summary
     FROM event_studies WHERE engine_name = $1 AND engine_version = $2`,
    [engine, version],
  );
  return rows[0] ?? null;
}

/** Contracts with a ticker scored by the version now (what a fresh study would take). */
export async function scoredContracts(db: Queryable, engine: string, version: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM signals s JOIN contracts c ON c.id = s.contract_id
     WHERE s.engine_name = $1 AND s.engine_version = $2 AND c.ticker IS NOT NULL`,
    [engine, version],
  );
  return rows[0]?.n ?? 0;
}
