import { randomUUID } from 'node:crypto';
import { PLAN_LIMITS } from '../domain/plans.ts';
import { webhookErrors as errors } from '../services/errors.ts';
import { getUser } from '../store/accounts.ts';
import { insertTestDelivery, replaceSecret } from '../store/webhook-tools.ts';
import { type Delivery, getWebhook, type Webhook } from '../store/webhooks.ts';
import { WEBHOOK_TEST } from './outbox.ts';
import { generateSecret, sealSecret } from './secrets.ts';
import type { WebhookContext } from './service.ts';

/**
 * What a developer does to one webhook besides registering it (docs/API.md "Webhooks"): send it a test
 * event, rotate its secret. `owner` as in service.ts: null for an admin acting on anyone's.
 */

/** The body of a `webhook.test` delivery; `test: true` marks it, and it names no signal. */
export interface WebhookTestPayload {
  id: string;
  event: typeof WEBHOOK_TEST;
  data: { webhook_id: string };
  ts: number;
  test: true;
}

/**
 * Queues a `webhook.test` event for a webhook: a delivery of the outbox like any other, so it is signed,
 * sent, retried and listed the same way. Refused for a deleted or suspended webhook, and when the owner's
 * plan has no webhooks (nothing else would be sent to it either).
 */
export async function sendTestEvent(
  ctx: WebhookContext,
  id: string,
  owner: string | null,
): Promise<Delivery> {
  const webhook = await getWebhook(ctx.db, id, owner);
  if (!webhook) throw errors.webhookNotFound(id);
  const user = await getUser(ctx.db, webhook.user_id);
  if (user && PLAN_LIMITS[user.plan].maxWebhooks === 0) throw errors.webhookQuota(user.plan, 0);
  const payload: WebhookTestPayload = {
    id: randomUUID(),
    event: WEBHOOK_TEST,
    data: { webhook_id: id },
    ts: ctx.now().getTime(),
    test: true,
  };
  const input = { id: randomUUID(), webhookId: id, event: WEBHOOK_TEST, payload };
  const delivery = await insertTestDelivery(ctx.db, input);
  if (delivery) return delivery;
  // Refused: say why, from the state that refused it (it may have changed since the read above).
  const now = (await getWebhook(ctx.db, id, owner)) ?? webhook;
  if (now.disabled_at) throw errors.deletedWebhookEnabled(id);
  throw errors.suspendedWebhookTested(id);
}

/**
 * A new signing secret, returned here only. For `overlapSeconds` (default the configured overlap, 0
 * for none) deliveries are signed with the replaced secret too, so receivers can switch without a gap.
 */
export async function rotateSecret(
  ctx: WebhookContext,
  id: string,
  owner: string | null,
  overlapSeconds?: number,
): Promise<{ webhook: Webhook; secret: string }> {
  const overlapMs = overlapSeconds === undefined ? ctx.secretOverlapMs : overlapSeconds * 1000;
  const secret = generateSecret();
  const sealedSecret = sealSecret(secret, id, ctx.secretKey);
  const webhook = await replaceSecret(ctx.db, { id, owner, sealedSecret, overlapMs });
  if (webhook) return { webhook, secret };
  if (await getWebhook(ctx.db, id, owner)) throw errors.deletedWebhookEnabled(id);
  throw errors.webhookNotFound(id);
}
