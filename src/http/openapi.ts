import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import { ErrorEnvelope } from './schemas/common.ts';

export const API_TAGS = [
  'events',
  'signals',
  'companies',
  'market',
  'regimes',
  'predictions',
  'meta',
  'account',
  'admin',
] as const;

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    type: 'integer',
    description: 'Requests allowed in the 60-second window for this key (or this IP without one).',
  },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window.' },
  'X-RateLimit-Reset': {
    type: 'integer',
    description: 'Millisecond epoch when the oldest counted request leaves the window.',
  },
};

const KEYED = [{ ApiKeyHeader: [] }, { BearerAuth: [] }];

type Schema = Record<string, unknown>;

function withHeaders(schema: unknown, extra: Schema = {}): Schema {
  return { ...(schema as Schema), ...extra, headers: RATE_LIMIT_HEADERS };
}

/**
 * Route config (tier, scope, public) is the one source of access rules: the auth hook enforces it and
 * this transform documents it — security, `x-tier`/`x-scope`, 401/403/429 and the rate-limit headers.
 */
const transform: SwaggerTransform = ({ schema, url, route }) => {
  if (!url.startsWith('/api/v1/') || !schema) return { schema, url };
  const config = (route.config ?? {}) as { tier?: string; scope?: string; public?: boolean };
  const responses: Record<string, unknown> = Object.fromEntries(
    Object.entries((schema.response ?? {}) as Schema).map(([status, body]) => [status, withHeaders(body)]),
  );
  responses[401] = withHeaders(ErrorEnvelope, {
    description: 'Missing, invalid or revoked key, or the keyless allowance is spent',
  });
  if (!config.public) {
    responses[403] = withHeaders(ErrorEnvelope, { description: 'Scope, tier or plan does not allow this' });
    responses[429] = withHeaders(ErrorEnvelope, {
      description: 'Rate limit exceeded; see Retry-After',
    });
  }
  return {
    url,
    schema: {
      ...schema,
      response: responses,
      security: config.public ? [{}, ...KEYED] : KEYED,
      'x-tier': config.tier ?? 'developer',
      'x-scope': config.scope ?? 'read',
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
        'Every request needs an API key (x-api-key header or Authorization: Bearer) except /health and /openapi.json. ' +
        '`x-tier` is the lowest plan tier an operation needs (free < developer < intelligence); `x-scope` the key scope (read ⊂ write ⊂ admin).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'Local server' }],
    tags: API_TAGS.map((name) => ({ name })),
    components: {
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
};
