import type { SwaggerOptions } from '@fastify/swagger';

export const API_TAGS = [
  'events',
  'signals',
  'companies',
  'market',
  'regimes',
  'predictions',
  'meta',
] as const;

export const openApiOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'market-intel API',
      version: '1.0.0',
      description:
        'US federal contract awards as market events: resolved tickers, classifications, engine scores, regimes and daily candles.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'Local server' }],
    tags: API_TAGS.map((name) => ({ name })),
  },
  hideUntagged: true,
};
