import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Keyset, Position, RowPage } from '../store/keyset.ts';
import { canonicalUrl, validatedQuery } from './canonical.ts';
import { decodeCursor, encodeCursor, filterDigest } from './cursor.ts';
import { errors } from './errors.ts';

/** The paging parameters of a list's query, as validated (`offset` where the list has one). */
interface PageParams {
  limit: number;
  offset?: number;
  cursor?: string;
}

/** The body's `pagination` (schema `Pagination`). */
export interface Pagination {
  limit: number;
  offset: number;
  count: number;
  next_cursor: string | null;
}

const pageParams = (request: FastifyRequest): PageParams => request.query as PageParams;

/** Where the requested page starts: after the `cursor`'s position, or (none) at `offset`. */
export function pageStart(request: FastifyRequest, keyset: Keyset): Position | undefined {
  const { cursor, offset } = pageParams(request);
  if (cursor === undefined) return undefined;
  if (offset) throw errors.invalidParameter('cursor', 'cannot be combined with a non-zero "offset"');
  return decodeCursor(cursor, keyset, filterDigest(request.params, request.query));
}

/**
 * The page's `pagination`; when another page follows, its cursor, also sent as
 * `Link: <…?…&cursor=…>; rel="next"` (the route's canonical URL with its validated query, continued).
 */
export function pagination(
  request: FastifyRequest,
  reply: FastifyReply,
  keyset: Keyset,
  page: { count: number; next: Position | null },
): Pagination {
  const { limit, offset = 0 } = pageParams(request);
  const next = page.next && encodeCursor(keyset, filterDigest(request.params, request.query), page.next);
  if (next) reply.header('link', `<${nextUrl(request, next)}>; rel="next"`);
  return { limit, offset, count: page.count, next_cursor: next };
}

/** A list body of rows read in node: `{ data, pagination }`. */
export function rowsBody<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  keyset: Keyset,
  page: RowPage<T>,
): { data: T[]; pagination: Pagination } {
  const body = { count: page.rows.length, next: page.next };
  return { data: page.rows, pagination: pagination(request, reply, keyset, body) };
}

/** The next page's URL: the route's canonical path and validated query, `offset` dropped, `cursor` set. */
function nextUrl(request: FastifyRequest, cursor: string): string {
  const query = validatedQuery(request);
  delete query.offset;
  delete query.cursor;
  return canonicalUrl(request, { ...query, cursor });
}
