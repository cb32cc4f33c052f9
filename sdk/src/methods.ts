/**
 * The types of the client's methods: a plain call (`Method`, whose result is a `Conditional` when the
 * options carry `ifNoneMatch`), an iterator over pages, an export's stream or rows; and the markers
 * that say in the method table (index.ts) which an operation gets.
 */
import type { ExportBody, ExportCsvRow, ExportFormat } from './exports.js';
import type { OperationId, Operations, operations } from './generated.js';
import type { ApiPromise, Conditional } from './response.js';
import type { ConditionalOptions, RequestOptions } from './transport.js';

export type PagedOperationId = {
  [K in OperationId]: (typeof operations)[K]['paging'] extends null ? never : K;
}[OperationId];
export type MethodArgs<K extends OperationId> = [...Operations[K]['args'], options?: RequestOptions];
/** The arguments of a conditional GET: the options carry `ifNoneMatch`. */
export type ConditionalArgs<K extends OperationId> = [...Operations[K]['args'], options: ConditionalOptions];
export type Result<K extends OperationId> = Operations[K]['response'];
/** What an iterator yields: an item of `data`, or of the bare array. */
export type Item<K extends OperationId> =
  Result<K> extends { data: Array<infer I> } ? I : Result<K> extends Array<infer I> ? I : never;

/** The exports, and the list whose items their NDJSON lines are. */
interface ExportLists {
  getEventsExport: 'getEvents';
  getSignalsExport: 'getSignals';
}
export type ExportOperationId = keyof ExportLists;
/** A row of an export in a format: the list's item for NDJSON, an `ExportCsvRow` for CSV. */
export type ExportRow<K extends ExportOperationId, F extends ExportFormat> = F extends 'ndjson'
  ? Item<ExportLists[K]>
  : ExportCsvRow;
/** An export's query; `format` (default `csv`) decides the rows' type. */
export type ExportQuery<K extends ExportOperationId, F extends ExportFormat> = Omit<
  NonNullable<Operations[K]['args'][0]>,
  'format'
> & { format?: F };

/** An operationId that is no plain call: an iterator over pages (`paged`), or an export's stream or rows. */
export const KIND: unique symbol = Symbol('kind');
export type Kind = 'paged' | 'stream' | 'rows';
export interface Marker<T extends Kind, K extends OperationId> {
  readonly [KIND]: T;
  readonly id: K;
}
const marker =
  <T extends Kind>(kind: T) =>
  <K extends T extends 'paged' ? PagedOperationId : ExportOperationId>(id: K): Marker<T, K> => ({
    [KIND]: kind,
    id,
  });
export const paged = marker('paged');
export const stream = marker('stream');
export const rows = marker('rows');

/** A call: `ifNoneMatch` in the options makes its result a `Conditional`. */
export interface Method<K extends OperationId> {
  (...args: ConditionalArgs<K>): ApiPromise<Conditional<Result<K>>>;
  (...args: MethodArgs<K>): ApiPromise<Result<K>>;
}
/** An export: `format` (default `csv`) types what it yields. */
export type ExportMethod<K extends ExportOperationId, Out> = <F extends ExportFormat = 'csv'>(
  query?: ExportQuery<K, F>,
  options?: RequestOptions,
) => Out extends 'stream'
  ? Promise<ExportBody<ExportRow<K, F>>>
  : AsyncGenerator<ExportRow<K, F>, void, undefined>;

export type Bind<T> = T extends OperationId
  ? Method<T>
  : T extends Marker<'paged', infer K>
    ? (...args: MethodArgs<K>) => AsyncGenerator<Item<K>, void, undefined>
    : T extends Marker<infer Out, infer K extends ExportOperationId>
      ? ExportMethod<K, Out>
      : { readonly [P in keyof T]: Bind<T[P]> };
export type Named<T> = T extends OperationId
  ? T
  : T extends Marker<Kind, OperationId>
    ? never
    : { [P in keyof T]: Named<T[P]> }[keyof T];
export const isMarker = (value: object): value is Marker<Kind, OperationId> => KIND in value;
