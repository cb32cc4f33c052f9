/**
 * Where the next page is. Lists with a `pagination` object continue from `pagination.next_cursor` when
 * the service sends one (`cursor=`), else by offset; bare arrays (candles, benchmarks) follow the
 * `Link: <…>; rel="next"` header.
 */

import { CrossOriginLinkError } from './errors.js';

type Query = Record<string, unknown>;

interface Pagination {
  limit?: number;
  offset?: number;
  count?: number;
  next_cursor?: string | null;
}

/**
 * The query of the page after `page`, or null when `page` is the last. `offsetPaging` says whether the
 * operation takes `offset` at all (regimes, for one, does not: without a cursor it has one page).
 */
export function nextPageQuery(query: Query, page: unknown, offsetPaging: boolean): Query | null {
  const pagination = (page as { pagination?: Pagination } | null)?.pagination;
  if (!pagination || typeof pagination !== 'object') return null;
  if ('next_cursor' in pagination) {
    if (typeof pagination.next_cursor !== 'string' || pagination.next_cursor === '') return null;
    const { offset: _offset, ...rest } = query;
    return { ...rest, cursor: pagination.next_cursor };
  }
  const { limit, offset, count } = pagination;
  if (!offsetPaging || typeof limit !== 'number' || typeof offset !== 'number' || typeof count !== 'number')
    return null;
  if (count === 0 || count < limit) return null;
  return { ...query, offset: offset + count };
}

/** The target of `rel="next"` in a `Link` header, or null. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    const rel = match?.[2] ? /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2]) : null;
    if (match && rel?.[1]?.toLowerCase().split(/\s+/).includes('next')) return match[1] ?? null;
  }
  return null;
}

/**
 * A `Link` target resolved against `baseUrl`; a target on another origin (an absolute URL, `//host/…`,
 * another scheme or port) throws `CrossOriginLinkError` instead: the next request would carry the key.
 */
export function followLink(target: string, baseUrl: string): string {
  const base = new URL(`${baseUrl}/`);
  const next = new URL(target, base);
  if (next.origin !== base.origin) throw new CrossOriginLinkError(target, baseUrl);
  return next.toString();
}

/** The items of one page: `data` of a paged object, or the array itself. */
export function pageItems(page: unknown): unknown[] {
  if (Array.isArray(page)) return page;
  const data = (page as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data : [];
}
