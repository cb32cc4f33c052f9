/** The named headers of the responses: `components.headers`, referenced by name from every response. */
export const HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the 60-second window for this key (or this IP without one).',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'Millisecond epoch when the oldest counted request leaves the window.',
    required: true,
    schema: { type: 'integer' },
  },
  'Retry-After': {
    description: 'Seconds to wait before the next request is admitted.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  /** Every 401 of the API (http/errors.ts, KEY_CHALLENGE). */
  'WWW-Authenticate': {
    description:
      'The challenge: `Bearer realm="market-intel"`, with `error="invalid_token"` when the key sent is unknown or revoked. The key goes in `Authorization: Bearer <key>` or `x-api-key`.',
    required: true,
    schema: { type: 'string' },
  },
  /** Every response of an operation (app.ts sets it before anything else runs). */
  'X-Request-Id': {
    description:
      "The request's id: the one the request sent in `X-Request-Id` (1-128 of `A-Z a-z 0-9 _ . -`), else a UUID. Also `request_id` in an error envelope and in the server's log.",
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  /** The cacheable reads' 200s and 304s (route config `cache`). */
  ETag: {
    description:
      'Strong validator of the body; send it back in If-None-Match to get a 304 while it is current.',
    required: true,
    schema: { type: 'string' },
  },
  /** Decided by route config (http/access.ts `storePolicy`, http/caching.ts), never by a handler. */
  'Cache-Control': {
    description:
      '`private, no-cache` on the cacheable reads: data shared by a plan tier, revalidate each time with the ETag. ' +
      '`private, no-store` on every other keyed answer (usage, webhooks, deliveries, admin lists, metrics, exports, writes): ' +
      'it is for the calling key alone and no cache may keep it. `no-store` on an answer that carries a secret.',
    required: true,
    schema: { type: 'string', enum: ['private, no-cache', 'private, no-store', 'no-store'] },
  },
} as const;

export type HeaderName = keyof typeof HEADERS;

/** Route-schema headers by name; the finished document refers to HEADERS instead (openapi-document.ts). */
export const named = (...names: HeaderName[]): Record<string, unknown> =>
  Object.fromEntries(names.map((name) => [name, { ...HEADERS[name].schema }]));

/**
 * Marks a route-schema header as sent only sometimes; @fastify/swagger keeps the mark in the header's
 * schema and openapi-document.ts turns it into `required: false`.
 */
export const OPTIONAL = 'x-optional';

/** A route-schema header the response carries only sometimes: `description` says when. */
export const sometimes = (schema: Record<string, unknown>, description: string): Record<string, unknown> => ({
  ...schema,
  description,
  [OPTIONAL]: true,
});

/** A named header (its component's schema), sent only when `description` says. */
export const namedSometimes = (name: HeaderName, description: string) => ({
  [name]: sometimes({ ...HEADERS[name].schema }, description),
});
