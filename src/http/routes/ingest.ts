import { Type } from 'typebox';
import { createPipelineContext, type PipelineContext } from '../../pipeline/context.ts';
import { ingestAwards } from '../../pipeline/ingest.ts';
import { BULK_COLUMNS, MAX_AMOUNT, MAX_YEAR, MIN_YEAR, normalizeBulkItems } from '../../sources/awards.ts';
import { listUnmatched } from '../../store/unmatched.ts';
import { access } from '../access.ts';
import { errorResponses, Limit, Offset, Pagination, Query } from '../schemas/common.ts';
import type { App, Services } from '../types.ts';

/** Awards per call: about 15 MB of typical records, one pipeline run of a few seconds. */
export const MAX_AWARDS_PER_CALL = 10_000;

/**
 * Values are checked by the pipeline, not by the schema, so one bad record is `rejected` with its index
 * instead of failing the whole call (normalizeBulkRecord lists the rules: types, lengths, amounts, dates).
 */
const COLUMN_NOTES: Record<(typeof BULK_COLUMNS)[number], string> = {
  contract_award_unique_key: 'Required. The award id, e.g. CONT_AWD_N0001924C0025_9700_-NONE-_-NONE-.',
  award_id_piid: 'The PIID.',
  recipient_name: 'Required. Resolved to a ticker.',
  recipient_uei: 'Recipient UEI.',
  recipient_parent_name: 'Parent company name; also tried by the resolver.',
  recipient_parent_uei: 'Parent UEI.',
  awarding_agency_name: 'Top-tier agency; derived from the award id when absent.',
  awarding_sub_agency_name: 'Sub-tier agency.',
  current_total_value_of_award: `US dollars, 0 to ${MAX_AMOUNT.toExponential()}, number or numeric string (e.g. "$1,234.50"); rounded to whole dollars.`,
  total_obligated_amount: `Used when current_total_value_of_award is absent or blank; may be negative, at most ${MAX_AMOUNT.toExponential()} either way.`,
  award_base_action_date: `Required. YYYY-MM-DD, YYYY-MM-DD hh:mm:ss or MM/DD/YYYY, in ${MIN_YEAR}–${MAX_YEAR}.`,
  prime_award_base_transaction_description: 'Award text, classified.',
  naics_code: 'NAICS code (or "CODE: NAME").',
  product_or_service_code: 'PSC code (or "CODE: NAME").',
  last_modified_date: 'Source modification time; the later record of a repeated id wins.',
};

const BulkRecord = Type.Object(
  Object.fromEntries(
    BULK_COLUMNS.map((name) => [name, Type.Optional(Type.Unknown({ description: COLUMN_NOTES[name] }))]),
  ),
  {
    additionalProperties: true,
    description:
      'An award in USASpending bulk-download column names; other columns are ignored. A record is ' +
      'rejected with its index when its id, recipient, date or value is missing or invalid, or when a ' +
      'column is not a string or number, is too long (ids 200, names and codes 500, description 10,000 ' +
      'characters) or holds NUL or a lone surrogate.',
  },
);

/**
 * Any item passes the schema: were items required to be objects, Ajv would answer 400 for the whole call
 * when one is not; the pipeline rejects that item with its index instead.
 */
const IngestItem = Type.Union([
  BulkRecord,
  Type.Unknown({ description: 'Anything that is not an object is rejected with its index.' }),
]);

const IngestBody = Type.Object(
  { awards: Type.Array(IngestItem, { maxItems: MAX_AWARDS_PER_CALL }) },
  { additionalProperties: false },
);

const IngestCounts = Type.Object({
  received: Type.Integer({ description: 'Records in the request.' }),
  inserted: Type.Integer({ description: 'New contracts stored.' }),
  updated: Type.Integer({ description: 'Stored contracts whose source data changed.' }),
  matched: Type.Integer({ description: 'Accepted records resolved to a ticker.' }),
  unmatched: Type.Integer({ description: 'Accepted records without a ticker (tallied for curation).' }),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), message: Type.String() })),
  signals_created: Type.Integer({ description: 'Signal rows created (recomputes update rows in place).' }),
});

const UnmatchedList = Type.Object({
  data: Type.Array(
    Type.Object({
      name_norm: Type.String({ description: 'Normalized recipient name, the tally key.' }),
      sample_name: Type.String(),
      award_count: Type.Integer(),
      total_value: Type.Integer({ description: 'Whole US dollars.' }),
    }),
  ),
  pagination: Pagination,
});

/**
 * Building the resolver and loading the benchmark series takes about 0.6 s on the demo data, so calls
 * within a minute share one context: a new alias or candle reaches the admin ingest within a minute.
 */
const CONTEXT_TTL_MS = 60_000;

function sharedContext(build: () => Promise<PipelineContext>): () => Promise<PipelineContext> {
  let cached: { at: number; ctx: Promise<PipelineContext> } | null = null;
  return () => {
    if (!cached || Date.now() - cached.at > CONTEXT_TTL_MS) {
      const entry = { at: Date.now(), ctx: build() };
      entry.ctx.catch(() => {
        if (cached === entry) cached = null;
      });
      cached = entry;
    }
    return cached.ctx;
  };
}

/** Admin ingest: awards through the pipeline in-process, and the curation list. */
export function registerIngest(app: App, { db, config, now }: Services): void {
  const context = sharedContext(() =>
    // An ingest runs long statements (bulk loads, index builds): not under the request deadline.
    createPipelineContext(db.withDeadline(0), { signalThreshold: config.signalThreshold, now }),
  );
  app.post(
    '/api/v1/admin/ingest',
    {
      config: access.admin,
      bodyLimit: 32 * 1024 * 1024,
      schema: {
        tags: ['admin'],
        summary: `Ingest up to ${MAX_AWARDS_PER_CALL} award records through the pipeline`,
        description:
          'Upserts by award id (a changed record updates its contract and rescoring updates its signal rows), ' +
          'resolves, classifies, places in the regime and scores with every engine. Bad records are skipped ' +
          'and listed in `rejected` with their index; a repeated id keeps the record modified last.',
        querystring: Query({}),
        body: IngestBody,
        response: { 200: IngestCounts, ...errorResponses(400, 413, 415) },
      },
    },
    async (request) => {
      const records = request.body.awards;
      const { awards, rejected } = normalizeBulkItems(records);
      const counts = await ingestAwards(await context(), awards);
      return { ...counts, received: records.length, rejected };
    },
  );

  app.get(
    '/api/v1/admin/unmatched-recipients',
    {
      config: access.admin,
      schema: {
        tags: ['admin'],
        summary: 'Recipients no ticker was found for, largest total value first (for alias curation)',
        querystring: Query({ limit: Limit(1000, 100), offset: Offset }),
        response: { 200: UnmatchedList, ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const data = await listUnmatched(db, { limit, offset });
      return { data, pagination: { limit, offset, count: data.length } };
    },
  );
}
