/**
 * What the OpenAPI tests drive: the app on the demo data with a key of each kind, an app whose limiter
 * refuses everything and one whose limiter cannot decide, one sample of each resource a path names, a
 * stored `signal.created` delivery, and a request builder that fills an operation's path and required
 * parameters from them.
 */
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import { type LimitDecision, LimiterUnavailableError } from '../../src/infra/limiter.ts';
import { MemoryLimiter } from '../../src/infra/memory-limiter.ts';
import type { Db } from '../../src/store/db.ts';
import { deliveryBody, enqueueSignalCreated } from '../../src/webhooks/outbox.ts';
import { makeKey, testConfig } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import type { Json, OpenApiDoc, Target } from './openapi-support.ts';

/** Refuses every request: a key's request gets 429, a keyless one 401. */
class RefuseAll extends MemoryLimiter {
  override hitSync(_bucket: string, limit: number, windowMs: number, now = Date.now()): LimitDecision {
    return { allowed: false, limit, remaining: 0, resetAt: now + windowMs };
  }
}

/** Cannot decide (its store is gone): every request that needs a decision gets 503. */
class Unavailable extends MemoryLimiter {
  override hitSync(): LimitDecision {
    throw new LimiterUnavailableError('the limiter store is gone');
  }
}

const resolve = async () => [{ address: '93.184.216.34', family: 4 as const }];

export type KeyKind = 'admin' | 'free';

export interface Fixture {
  db: Db;
  app: App;
  refusing: App;
  unavailable: App;
  doc: OpenApiDoc;
  keys: Record<KeyKind, string>;
  /** One existing id per resource a path names (`contracts`, `users`, `keys`, `webhooks`, `deliveries`). */
  samples: Record<string, string>;
  /** The stored delivery's payload: its body as sent, and as stored. */
  payload: { body: string; json: unknown };
  close(): Promise<void>;
}

/** Idempotency-Key needs SECRET_KEY (its stored answers are sealed with it). */
const CONFIG = { SECRET_KEY: 'openapi-tests-secret-key' };

export async function openApiFixture(): Promise<Fixture> {
  const db = await seededDb();
  const app = await buildApp({ config: testConfig(CONFIG), db, logger: false, webhooks: { resolve } });
  const refusing = await buildApp({
    config: testConfig(CONFIG),
    db,
    logger: false,
    limiter: new RefuseAll(),
  });
  const unavailable = await buildApp({
    config: testConfig(CONFIG),
    db,
    logger: false,
    limiter: new Unavailable(),
  });
  for (const server of [app, refusing, unavailable]) await server.ready();
  const admin = await makeKey(db, { scopes: ['read', 'write', 'admin'], admin: true });
  // A live key whose owner has since moved to the free plan: no live access, 403 on every keyed operation.
  const downgraded = await makeKey(db, { plan: 'developer', scopes: ['read'] });
  await db.query("UPDATE users SET plan = 'free' WHERE id = $1", [downgraded.userId]);
  const keys = {
    admin: admin.raw,
    free: downgraded.raw,
  };
  const bystander = await makeKey(db, { plan: 'developer' });
  const [contract] = await db.query<{ id: string; signal_id: string; signal_score: number }>(
    `SELECT c.id, s.id AS signal_id, s.signal_score FROM contracts c JOIN signals s ON s.contract_id = c.id
      WHERE c.ticker = 'LMT' AND s.engine_name = 'materiality' ORDER BY s.signal_score DESC LIMIT 1`,
  );
  assert.ok(contract);
  const hook = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: { 'x-api-key': admin.raw },
    payload: { url: 'https://hooks.example.com/market-intel' },
  });
  const webhookId = hook.json<{ webhook: { id: string } }>().webhook.id;
  const signal = { id: contract.signal_id, contract_id: contract.id, signal_score: contract.signal_score };
  await enqueueSignalCreated(db, [{ ...signal, inserted: true }], 0);
  const [delivery] = await db.query<{ id: string; payload: unknown }>(
    'SELECT id, payload FROM webhook_deliveries WHERE webhook_id = $1',
    [webhookId],
  );
  assert.ok(delivery);
  return {
    db,
    app,
    refusing,
    unavailable,
    doc: app.swagger() as unknown as OpenApiDoc,
    keys,
    samples: {
      contracts: contract.id,
      users: bystander.userId,
      keys: bystander.keyId,
      webhooks: webhookId,
      deliveries: delivery.id,
    },
    payload: {
      body: deliveryBody(delivery.payload, delivery.id),
      json: JSON.parse(deliveryBody(delivery.payload, delivery.id)),
    },
    close: async () => {
      for (const server of [unavailable, refusing, app]) await server.close();
      await db.close();
    },
  };
}

/** Path values: a sample of the resource the path names, or `missing` ones (valid, but of nothing). */
const MISSING: Record<string, string> = {
  contracts: 'CONT_AWD_NO_SUCH_AWARD',
  ticker: 'ZZZZ',
};
const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';

export interface CallOptions {
  key?: string | null;
  query?: string;
  /** Fill the path with ids of nothing (for a 404). */
  missing?: boolean;
  headers?: Record<string, string>;
  /** Replaces the documented body example. */
  payload?: InjectOptions['payload'];
  remoteAddress?: string;
}

/** The operation's URL with its path parameters filled. */
export function urlOf(target: Target, samples: Record<string, string>, missing = false): string {
  let url = target.path;
  for (const param of target.op.parameters ?? []) {
    if (param.in !== 'path') continue;
    const resource = /\/([a-z-]+)\/\{[^}]+\}(?:\/[^{]*)?$/.exec(target.path)?.[1] ?? '';
    const kind = param.name === 'ticker' ? 'ticker' : resource;
    const value = missing
      ? (MISSING[kind] ?? NO_SUCH_ID)
      : param.name === 'ticker'
        ? 'LMT'
        : (samples[resource] ?? '');
    url = url.replace(`{${param.name}}`, encodeURIComponent(value));
  }
  return url;
}

/** A valid request of the operation (path samples, required parameters, the documented body example). */
export function call(
  server: App,
  target: Target,
  samples: Record<string, string>,
  options: CallOptions = {},
): Promise<LightMyRequestResponse> {
  const required = (target.op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
  const parts = [
    ...required.map((p) => `${p.name}=${String((p.schema.enum as unknown[] | undefined)?.[0] ?? p.example)}`),
    options.query ?? '',
  ];
  const body = target.op.requestBody?.content['application/json']?.example;
  const payload = options.payload ?? (body as Json | undefined);
  return server.inject({
    method: target.method as 'GET',
    url: `${urlOf(target, samples, options.missing)}?${parts.filter(Boolean).join('&')}`,
    headers: { ...(options.key ? { 'x-api-key': options.key } : {}), ...options.headers },
    ...(payload === undefined ? {} : { payload }),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}
