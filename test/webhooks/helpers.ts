import type { Config } from '../../src/config.ts';
import { createAccount } from '../../src/services/accounts.ts';
import type { Db } from '../../src/store/db.ts';
import { type Delivery, insertDeliveries } from '../../src/store/webhooks.ts';
import { createWebhook, type WebhookContext } from '../../src/webhooks/service.ts';
import { type HostResolver, TargetPolicy } from '../../src/webhooks/target.ts';
import { testConfig } from '../support/app.ts';
import type { Certificate } from './receiver.ts';

/** Short schedule and timeout; the local receiver admitted; its certificate trusted. */
export function webhookConfig(certificate: Certificate, env: Record<string, string> = {}): Config {
  return testConfig({
    WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32',
    WEBHOOK_CA_FILE: certificate.certFile,
    WEBHOOK_RETRY_SCHEDULE: '200ms,400ms,800ms,1s,1s',
    WEBHOOK_TIMEOUT_MS: '1500',
    ...env,
  });
}

/** `receiver.test` is the local receiver; everything else does not resolve. */
export const testResolver: HostResolver = async (hostname) => {
  if (hostname === 'receiver.test' || hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

export function webhookContext(db: Db, config: Config, resolve: HostResolver = testResolver): WebhookContext {
  return {
    db,
    secretKey: config.secretKey,
    policy: new TargetPolicy(config.webhookAllowCidrs),
    resolve,
    now: () => new Date(),
    secretOverlapMs: config.webhookSecretOverlapMs,
  };
}

let serial = 0;

/** A developer-plan user with one webhook at `url`. */
export async function makeWebhook(db: Db, config: Config, url: string) {
  serial += 1;
  const user = await createAccount(db, {
    email: `hooks${serial}-${process.pid}-${Date.now()}@example.test`,
    plan: 'developer',
  });
  const created = await createWebhook(webhookContext(db, config), { userId: user.id, url });
  return { userId: user.id, webhookId: created.webhook.id, secret: created.secret };
}

/** Enqueues one delivery per payload for a webhook; returns the delivery rows. */
export async function enqueue(db: Db, webhookId: string, payloads: unknown[]): Promise<Delivery[]> {
  await db.transaction((tx) =>
    insertDeliveries(
      tx,
      payloads.map((payload) => ({ webhookId, event: 'signal.created', payload })),
    ),
  );
  return db.query<Delivery>(
    'SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at, id',
    [webhookId],
  );
}

export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const statusOf = async (db: Db, id: string) =>
  (
    await db.query<{ status: string; attempts: number }>(
      'SELECT status, attempts FROM webhook_deliveries WHERE id = $1',
      [id],
    )
  )[0];
