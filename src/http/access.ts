import type { FastifyContextConfig } from 'fastify';

/** Route access rules (SPEC.md tiers and scopes); enforced by auth.ts, documented by openapi.ts. */
export const access = {
  public: { public: true, tier: 'free', scope: 'read' },
  read: { tier: 'developer', scope: 'read' },
  write: { tier: 'developer', scope: 'write' },
  intelligence: { tier: 'intelligence', scope: 'read' },
  admin: { tier: 'free', scope: 'admin' },
} as const satisfies Record<string, FastifyContextConfig>;
