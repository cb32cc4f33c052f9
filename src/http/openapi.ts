import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import type { FastifyContextConfig } from 'fastify';
import { candidateSchemas } from './openapi-components.ts';
import { type Document, finishDocument } from './openapi-document.ts';
import { named, namedSometimes, sometimes } from './openapi-headers.ts';
import { ErrorEnvelope } from './schemas/common.ts';

type Schema = Record<string, unknown>;

const TAGS: Record<string, string> = {
  events: 'Contract awards resolved to listed companies, each with its latest signal.',
  signals: 'Engine scores of awards, ranked.',
  companies: 'Company records and their recent awards.',
  market: 'Daily OHLCV candles of benchmarks and contractors.',
  regimes: 'Macro market regime at each award date (intelligence tier).',
  predictions: 'Point-in-time predictions of announcement events and their track record (intelligence tier).',
  meta: 'Health and this document; no key required.',
  account: "The calling key's own usage.",
  webhooks:
    "Signed `signal.created` pushes to the key owner's HTTPS endpoints, their deliveries and attempts, test events and secret rotation.",
  admin: 'Users and keys; admin-scope keys of admin users.',
};

const RATE_LIMIT_HEADERS = named('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
const VALIDATOR_HEADERS = named('ETag', 'Cache-Control');
const CACHE_CONTROL = named('Cache-Control');
const WWW_AUTHENTICATE = named('WWW-Authenticate');
const RETRY_AFTER = named('Retry-After');
const REQUEST_ID = named('X-Request-Id');
/** The 401 of a spent keyless allowance (http/auth.ts) waits; the others do not. */
const KEYLESS_RETRY = namedSometimes(
  'Retry-After',
  "Only when the address's keyless allowance is spent: seconds until it admits a request again.",
);
const UNAVAILABLE_RETRY = namedSometimes(
  'Retry-After',
  'Seconds to wait, when the cause is expected to pass soon (the database, the rate limiter, the export slots, the server too busy).',
);
/** Every list that takes `cursor` sends its next page's URL (http/paging.ts). */
const NEXT_LINK = {
  Link: sometimes(
    { type: 'string' },
    'Only when another page follows: `<URL>; rel="next"`, this request continued at `pagination.next_cursor`.',
  ),
};

/** What a route's own error statuses (`errorResponses(…)`) mean, for their response descriptions. */
const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'Invalid parameter or body',
  403: 'Scope, tier or plan does not allow this',
  404: 'No such resource',
  409: "Conflicts with the resource's current state",
  413: 'Request body too large',
  415: 'Content-Type is not application/json, or Content-Encoding is not identity',
};

function describe(status: string, body: unknown): string | undefined {
  if (body === ErrorEnvelope) return ERROR_DESCRIPTIONS[status];
  return ((body as Schema | undefined)?.description as string | undefined) ?? SUCCESS[status];
}

/** Answers of the routes honouring Idempotency-Key (route config `idempotent`, http/idempotency.ts). */
const REPLAYED_HEADER = {
  'Idempotent-Replayed': sometimes(
    { type: 'string', enum: ['true'] },
    'Present when this is the stored answer of an earlier request with the same Idempotency-Key.',
  ),
};

function idempotencyResponses(responses: Record<string, unknown>): void {
  for (const [status, response] of Object.entries(responses)) {
    if (/^2\d\d$/.test(status)) {
      const headers = (response as Schema).headers as Schema;
      responses[status] = { ...(response as Schema), headers: { ...headers, ...REPLAYED_HEADER } };
    }
  }
  responses[409] = withHeaders(
    ErrorEnvelope,
    {
      description:
        'Conflict with the current state, or `idempotency_in_progress`: a request with this Idempotency-Key is still running (retry after Retry-After)',
    },
    namedSometimes('Retry-After', 'Only with `idempotency_in_progress`: seconds to wait before retrying.'),
  );
  responses[422] = withHeaders(ErrorEnvelope, {
    description: '`idempotency_key_reused`: this Idempotency-Key was sent with a different request',
  });
}

/** A keyed answer that is not a tier-shared cached read is for its caller alone (http/access.ts). */
function privateSuccesses(responses: Record<string, unknown>): void {
  for (const [status, response] of Object.entries(responses)) {
    if (!/^2\d\d$/.test(status)) continue;
    const headers = (response as Schema).headers as Schema;
    responses[status] = { ...(response as Schema), headers: { ...headers, ...CACHE_CONTROL } };
  }
}

const KEYED = [{ ApiKeyHeader: [] }, { BearerAuth: [] }];

/** `GET /api/v1/contracts/{id}/score` → `getContractsIdScore`: stable ids for generated clients. */
function operationId(method: string | string[], url: string): string {
  const verb = (Array.isArray(method) ? (method[0] ?? 'get') : method).toLowerCase();
  const words = url
    .replace('/api/v1/', '')
    .split(/[/{}:._-]+/)
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1));
  return verb + words.join('');
}

function withHeaders(schema: unknown, extra: Schema = {}, more: Schema = {}): Schema {
  const own = (schema as Schema | undefined)?.headers as Schema | undefined;
  return {
    ...(schema as Schema),
    ...extra,
    headers: { ...REQUEST_ID, ...RATE_LIMIT_HEADERS, ...own, ...more },
  };
}

/** A page route under /api (the liveness probe): no key, no limit; its answers carry only the request id. */
function pageResponses(schema: Schema): Schema {
  return Object.fromEntries(
    Object.entries((schema.response ?? {}) as Schema).map(([status, body]) => {
      const own = (body as Schema).headers as Schema | undefined;
      return [
        status,
        { ...(body as Schema), description: describe(status, body), headers: { ...REQUEST_ID, ...own } },
      ];
    }),
  );
}

/** Whether the route's list takes `cursor`: then its 200 may carry `Link` (http/paging.ts). */
const takesCursor = (schema: Schema): boolean =>
  ((schema.querystring as Schema | undefined)?.properties as Schema | undefined)?.cursor !== undefined;

/** A success response's description, unless its schema gives one. */
const SUCCESS: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

/** What the access check and the dependencies can answer instead of the operation (http/access.ts). */
function refusals(responses: Record<string, unknown>, declared503: unknown, isPublic: boolean): void {
  responses[401] = withHeaders(
    ErrorEnvelope,
    { description: 'Missing, invalid or revoked key, or the keyless allowance is spent' },
    { ...WWW_AUTHENTICATE, ...KEYLESS_RETRY },
  );
  // Every operation reads a key or the limiter (and most the database), any of which can fail. A
  // route's own 503 body (the health report) stays, answered beside the envelope.
  const own = declared503 !== undefined && declared503 !== ErrorEnvelope;
  responses[503] = withHeaders(
    own ? declared503 : ErrorEnvelope,
    {
      description: own
        ? describe('503', declared503)
        : 'A dependency (PostgreSQL, the rate limiter) is unavailable, or the server is too busy',
    },
    UNAVAILABLE_RETRY,
  );
  if (!isPublic) {
    responses[403] = withHeaders(ErrorEnvelope, { description: 'Scope, tier or plan does not allow this' });
    responses[429] = withHeaders(
      ErrorEnvelope,
      { description: 'Rate limit exceeded; see Retry-After' },
      RETRY_AFTER,
    );
  }
}

/**
 * Route config (`access`) is the one source of access rules: the access hook enforces it and
 * this transform documents it — security, `x-tier`/`x-scope`, 401/403/429 and the rate-limit headers.
 */
const transform: SwaggerTransform = ({ schema, url, route }) => {
  const config = route.config as FastifyContextConfig | undefined;
  const rule = config?.access;
  if (schema && rule?.kind === 'page' && url.startsWith('/api/')) {
    // The liveness probe: no key, no limit, nothing but a 200 or a 400 for unknown parameters.
    const response = pageResponses(schema as Schema);
    return {
      url,
      schema: {
        ...schema,
        operationId: operationId(route.method, url),
        response,
        security: [{}],
      } as typeof schema,
    };
  }
  if (!schema || (rule?.kind !== 'key' && rule?.kind !== 'public')) return { schema, url };
  const isPublic = rule.kind === 'public';
  const responses: Record<string, unknown> = Object.fromEntries(
    Object.entries((schema.response ?? {}) as Schema).map(([status, body]) => [
      status,
      withHeaders(body, { description: describe(status, body) }),
    ]),
  );
  if (takesCursor(schema as Schema)) {
    const ok = responses[200] as Schema;
    responses[200] = { ...ok, headers: { ...(ok.headers as Schema), ...NEXT_LINK } };
  }
  if (config?.cache) {
    const ok = responses[200] as Schema;
    responses[200] = { ...ok, headers: { ...(ok.headers as Schema), ...VALIDATOR_HEADERS } };
    responses[304] = withHeaders(
      { type: 'null' },
      { description: 'Not Modified: If-None-Match holds the current ETag; no body' },
      VALIDATOR_HEADERS,
    );
  }
  if (rule.kind === 'key' && !config?.cache) privateSuccesses(responses);
  // Every operation validates its query (unknown parameters included): 400 is always possible.
  responses[400] ??= withHeaders(ErrorEnvelope, { description: 'Invalid parameter or body' });
  if (schema.body) {
    responses[413] = withHeaders(ErrorEnvelope, { description: 'Request body too large' });
    responses[415] = withHeaders(ErrorEnvelope, { description: ERROR_DESCRIPTIONS[415] });
  }
  if (config?.idempotent) idempotencyResponses(responses);
  refusals(responses, (schema.response as Schema | undefined)?.[503], isPublic);
  return {
    url,
    schema: {
      ...schema,
      operationId: operationId(route.method, url),
      response: responses,
      security: isPublic ? [{}, ...KEYED] : KEYED,
      'x-tier': isPublic ? 'free' : rule.tier,
      'x-scope': isPublic ? 'read' : rule.scope,
    } as typeof schema,
  };
};

export const openApiOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'market-intel API',
      version: '1.0.0',
      description:
        'US federal contract awards as market events: resolved tickers, classifications, engine scores, regimes and daily candles. ' +
        'Every request needs an API key (x-api-key header or Authorization: Bearer) except /health, /health/live and /openapi.json. ' +
        '`x-tier` is the lowest plan tier an operation needs (free < developer < intelligence); `x-scope` the key scope (read ⊂ write ⊂ admin). ' +
        'Before any operation is chosen the server itself may answer, in the same error envelope: 400 for a request it cannot parse, ' +
        'for a request target that is not a path (absolute form such as `http://host/…`, or `//…`) or contains `#`, and for a second `Host` header; ' +
        '408 when headers or body do not arrive in time, 414 for a request target over 8 KiB, 431 for oversized headers.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative: the server that served this document, wherever it runs (paths start with /api/v1).
    servers: [{ url: '/', description: 'The server this document was fetched from' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    components: {
      // Converted by @fastify/swagger like the route schemas; finishDocument keeps those responses use.
      schemas: candidateSchemas(),
      securitySchemes: {
        ApiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'iv_live_… or iv_test_… key',
        },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'The same key as a bearer token' },
      },
    },
  },
  hideUntagged: true,
  transform,
  transformObject: (generated) => {
    if (!('openapiObject' in generated)) throw new Error('the API is described in OpenAPI 3.1 only');
    const doc = generated.openapiObject;
    finishDocument(doc as Document);
    return doc;
  },
};
