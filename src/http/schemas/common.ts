import { type TProperties, Type } from 'typebox';
import { defaultEngine, engineNames } from '../../domain/engines/index.ts';
import { StringEnum } from '../../shapes/schema.ts';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';

export const DateString = (description: string) =>
  Type.String({ format: 'date', description, examples: ['2024-03-01'] });

export const Limit = (max: number, fallback: number) =>
  Type.Integer({
    minimum: 1,
    maximum: max,
    default: fallback,
    description: `Page size, 1-${max} (default ${fallback}).`,
  });

export const Offset = Type.Integer({
  minimum: 0,
  maximum: 1_000_000,
  default: 0,
  description: 'Rows to skip (default 0).',
});

export const Cursor = Type.String({
  minLength: 1,
  maxLength: 1024,
  pattern: '^[A-Za-z0-9_-]+$',
  description:
    "Continue after the last row of a page: that page's `pagination.next_cursor`, with the same filters. Not with a non-zero `offset`.",
});

export const TickerParam = Type.String({
  pattern: '^[A-Za-z0-9.\\-]{1,10}$',
  description: 'Stock ticker (case-insensitive).',
  examples: ['LMT'],
});

/** Free text from a URL: no control characters (PostgreSQL rejects NUL in text). */
export const Text = (options: { minLength?: number; maxLength: number; description: string }) =>
  Type.String({ minLength: 1, pattern: '^[^\\u0000-\\u001f]*$', ...options });

export const EngineParam = StringEnum(engineNames(), {
  description: `Engine name; defaults to the registry default engine (${defaultEngine().name}).`,
});

export const Pagination = Type.Object(
  {
    limit: Type.Integer(),
    offset: Type.Integer(),
    count: Type.Integer({ description: 'Number of items in this page.' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` (with the same filters) for the next page; null when none follows.',
    }),
  },
  { additionalProperties: false },
);

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      status: Type.Integer(),
      message: Type.String(),
      code: StringEnum(Object.keys(ERROR_STATUS) as ErrorCode[], {
        description: 'Stable snake_case error code; `status` is always the one this code maps to.',
      }),
      param: Type.Optional(
        Type.String({
          description:
            'On `invalid_parameter` and `invalid_body`: the query, path or header parameter, or the body field (a dotted path such as `events.0`), at fault. Absent when no single one is (a body that is not JSON).',
        }),
      ),
      request_id: Type.Optional(Type.String()),
    }),
  },
  { description: 'Error envelope' },
);

export { Nullable, StringEnum } from '../../shapes/schema.ts';

/**
 * Query strings reject unknown parameters rather than ignore them. A parameter with a default stays
 * non-optional in the handler's type (Ajv fills it in) but is not listed as required in the document.
 */
export const Query = <T extends TProperties>(properties: T) => {
  const schema = Type.Object(properties, { additionalProperties: false });
  const listed: readonly string[] = (schema as { required?: readonly string[] }).required ?? [];
  const required = listed.filter(
    (key) => (properties[key] as { default?: unknown } | undefined)?.default === undefined,
  );
  return Object.assign(schema, { required }) as typeof schema;
};

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope]));

/** `:id` of a uuid-keyed resource, e.g. IdParams('Webhook'). */
export const IdParams = (what: string) =>
  Type.Object({ id: Type.String({ format: 'uuid', description: `${what} id` }) });

/** The request header of idempotent POSTs (http/idempotency.ts), as node spells it: in lower case. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** Written as documented; Fastify lower-cases the names of a headers schema before validating. */
export const IdempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]*$',
      description:
        'Optional, 1-255 printable ASCII characters, e.g. a UUID. A retry with the same key and the same request within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) instead of creating another resource; the same key with another request is 422.',
    }),
  ),
});
