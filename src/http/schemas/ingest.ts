import { Type } from 'typebox';
import { BULK_COLUMNS, MAX_AMOUNT, MAX_YEAR, MIN_YEAR } from '../../sources/awards.ts';
import { Pagination } from './common.ts';

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

export const IngestBody = Type.Object(
  { awards: Type.Array(IngestItem, { maxItems: MAX_AWARDS_PER_CALL }) },
  { additionalProperties: false },
);

export const IngestCounts = Type.Object({
  received: Type.Integer({ description: 'Records in the request.' }),
  inserted: Type.Integer({ description: 'New contracts stored.' }),
  updated: Type.Integer({ description: 'Stored contracts whose source data changed.' }),
  matched: Type.Integer({ description: 'Accepted records resolved to a ticker.' }),
  unmatched: Type.Integer({ description: 'Accepted records without a ticker (tallied for curation).' }),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), message: Type.String() })),
  signals_created: Type.Integer({ description: 'Signal rows created (recomputes update rows in place).' }),
});

export const UnmatchedList = Type.Object({
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
