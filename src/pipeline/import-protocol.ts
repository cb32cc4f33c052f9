/**
 * Messages between a parallel file import (import-pool.ts) and its threads (import-worker.ts), and the
 * form a chunk of awards crosses between them in.
 */
import type { AwardRecord } from '../domain/types.ts';
import type { IngestCounts } from './ingest.ts';

/** What a thread needs to open its own pipeline: the database and the scoring threshold. */
export interface WorkerSetup {
  url: string;
  signalThreshold: number;
  /** Awards per write transaction (ingestAwards' batch size). */
  batchSize: number;
}

export type PoolRequest =
  | { type: 'store'; seq: number; awards: PackedAwards }
  | { type: 'write'; seq: number }
  | { type: 'score'; since: string; perTicker: { ticker: string; n: number }[] }
  | { type: 'close' };

/** A chunk written: its counts, and the stored ids among it that lack a signal (see `storedAmong`). */
export interface WrittenChunk {
  counts: Omit<IngestCounts, 'rejected'>;
  unscored: string[];
}

export type PoolReply =
  | { type: 'ready' }
  | { type: 'resolved'; seq: number }
  | ({ type: 'stored'; seq: number } & WrittenChunk)
  | { type: 'history-loaded' }
  | { type: 'scored'; contracts: number; created: number }
  | { type: 'error'; message: string; stack?: string; code?: string };

const TEXT_FIELDS = [
  'id',
  'piid',
  'recipientName',
  'recipientUei',
  'parentName',
  'parentUei',
  'awardingAgency',
  'awardingSubAgency',
  'awardDate',
  'description',
  'naics',
  'psc',
  'sourceModifiedAt',
] as const satisfies readonly (keyof AwardRecord)[];

/**
 * Awards a column at a time: structured cloning writes each object's property names with every
 * object, so an array of strings per field (and the values in one Float64Array) copies about half as
 * many strings as the records themselves.
 */
export interface PackedAwards {
  texts: (string | null)[][];
  values: Float64Array;
}

export function packAwards(awards: readonly AwardRecord[]): PackedAwards {
  const texts = TEXT_FIELDS.map(() => new Array<string | null>(awards.length));
  const values = new Float64Array(awards.length);
  for (let i = 0; i < awards.length; i++) {
    const award = awards[i] as AwardRecord;
    for (let f = 0; f < TEXT_FIELDS.length; f++)
      (texts[f] as (string | null)[])[i] = award[TEXT_FIELDS[f] as (typeof TEXT_FIELDS)[number]];
    values[i] = award.value;
  }
  return { texts, values };
}

export function unpackAwards({ texts, values }: PackedAwards): AwardRecord[] {
  const column = (name: (typeof TEXT_FIELDS)[number]) =>
    texts[TEXT_FIELDS.indexOf(name)] as (string | null)[];
  const [id, piid, recipientName, recipientUei, parentName, parentUei, awardingAgency, awardingSubAgency] = [
    column('id'),
    column('piid'),
    column('recipientName'),
    column('recipientUei'),
    column('parentName'),
    column('parentUei'),
    column('awardingAgency'),
    column('awardingSubAgency'),
  ];
  const [awardDate, description, naics, psc, sourceModifiedAt] = [
    column('awardDate'),
    column('description'),
    column('naics'),
    column('psc'),
    column('sourceModifiedAt'),
  ];
  const awards: AwardRecord[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    // Same property order as the source parsers build records in.
    awards[i] = {
      id: id[i] as string,
      piid: piid[i] ?? null,
      recipientName: recipientName[i] as string,
      recipientUei: recipientUei[i] ?? null,
      parentName: parentName[i] ?? null,
      parentUei: parentUei[i] ?? null,
      awardingAgency: awardingAgency[i] as string,
      awardingSubAgency: awardingSubAgency[i] ?? null,
      value: values[i] as number,
      awardDate: awardDate[i] as string,
      description: description[i] ?? null,
      naics: naics[i] ?? null,
      psc: psc[i] ?? null,
      sourceModifiedAt: sourceModifiedAt[i] ?? null,
    };
  }
  return awards;
}
