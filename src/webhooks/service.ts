import { randomUUID } from 'node:crypto';
import { PLAN_LIMITS } from '../domain/plans.ts';
import { webhookErrors as errors } from '../services/errors.ts';
import { getUser } from '../store/accounts.ts';
import type { Db } from '../store/db.ts';
import type { RowPage } from '../store/keyset.ts';
import {
  type Attempt,
  attemptsPage,
  countActiveWebhooks,
  countSuspended,
  type Delivery,
  type DeliveryStatus,
  disableWebhook,
  enableWebhook,
  getDelivery,
  getWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  notifyDue,
  type Page,
  restartDelivery,
  type Webhook,
} from '../store/webhooks.ts';
import { generateSecret, sealSecret } from './secrets.ts';
import { type HostResolver, type TargetPolicy, TargetRefusedError, vetTargetUrl } from './target.ts';

/**
 * Webhook operations shared by the account API, the admin API and the dashboard. `owner` is the user a
 * request acts for; null means an admin acting on anyone's. Another user's webhook or delivery is "not
 * found", never "forbidden", so ids reveal nothing.
 */

export interface WebhookContext {
  db: Db;
  secretKey: string | null;
  policy: TargetPolicy;
  resolve: HostResolver;
  now: () => Date;
  /** How long a rotated-out secret still signs (WEBHOOK_SECRET_OVERLAP). */
  secretOverlapMs: number;
}

/** Registers a webhook within the plan's maximum; the signing secret is returned here only. */
export async function createWebhook(
  ctx: WebhookContext,
  input: { userId: string; url: string },
): Promise<{ webhook: Webhook; secret: string }> {
  const user = await getUser(ctx.db, input.userId);
  if (!user) throw errors.userNotFound(input.userId);
  const max = PLAN_LIMITS[user.plan].maxWebhooks;
  if (max === 0) throw errors.webhookQuota(user.plan, max);
  let url: URL;
  try {
    url = await vetTargetUrl(input.url, ctx.policy, ctx.resolve);
  } catch (error) {
    if (error instanceof TargetRefusedError) throw errors.webhookTargetRefused(error.message);
    throw error;
  }
  const secret = generateSecret();
  const id = randomUUID();
  const webhook = await ctx.db.transaction(async (tx) => {
    if ((await countActiveWebhooks(tx, user.id)) >= max) throw errors.webhookQuota(user.plan, max);
    return insertWebhook(tx, {
      id,
      userId: user.id,
      url: url.href,
      sealedSecret: sealSecret(secret, id, ctx.secretKey),
    });
  });
  return { webhook, secret };
}

/** The dashboard's notice: how many of a user's webhooks are suspended. */
export async function countSuspendedWebhooks(db: Db, userId: string): Promise<number> {
  return countSuspended(db, userId);
}

/** A user's active webhooks; an unknown user is "not found", as when creating one for them. */
export async function userWebhooks(
  ctx: WebhookContext,
  userId: string,
  page: Page,
): Promise<RowPage<Webhook>> {
  const webhooks = await listWebhooks(ctx.db, userId, page);
  // Only an empty page can hide an unknown user: a webhook's user exists (foreign key).
  if (webhooks.rows.length === 0 && !(await getUser(ctx.db, userId))) throw errors.userNotFound(userId);
  return webhooks;
}

export async function deleteWebhook(ctx: WebhookContext, id: string, owner: string | null): Promise<Webhook> {
  const webhook = await ctx.db.transaction((tx) => disableWebhook(tx, id, owner, ctx.now()));
  if (!webhook) throw errors.webhookNotFound(id);
  return webhook;
}

/**
 * Re-enables a suspended or backed-off webhook: its failure streak is cleared and its waiting deliveries
 * are due now. Deliveries failed by the suspension stay failed; resend the ones still wanted.
 */
export async function reenableWebhook(
  ctx: WebhookContext,
  id: string,
  owner: string | null,
): Promise<Webhook> {
  const webhook = await ctx.db.transaction((tx) => enableWebhook(tx, id, owner));
  if (webhook) return webhook;
  const found = await getWebhook(ctx.db, id, owner);
  if (found?.disabled_at) throw errors.deletedWebhookEnabled(id);
  throw errors.webhookNotFound(id);
}

export async function webhookDeliveries(
  ctx: WebhookContext,
  webhookId: string,
  owner: string | null,
  filter: Page & { status?: DeliveryStatus },
): Promise<RowPage<Delivery>> {
  const webhook = await getWebhook(ctx.db, webhookId, owner);
  if (!webhook) throw errors.webhookNotFound(webhookId);
  return listDeliveries(ctx.db, webhookId, filter);
}

export async function deliveryAttempts(
  ctx: WebhookContext,
  deliveryId: string,
  owner: string | null,
  page: Page,
): Promise<RowPage<Attempt>> {
  const delivery = await getDelivery(ctx.db, deliveryId, owner);
  if (!delivery) throw errors.deliveryNotFound(deliveryId);
  return attemptsPage(ctx.db, deliveryId, page);
}

/**
 * A new attempt series on the same delivery id (same payload, same X-Service-Delivery), due now. Only a
 * finished delivery (`succeeded` or `failed`) is restarted, by one conditional UPDATE: of two resends
 * at once, one wins and the other is a conflict, so a pending series is never replaced unsent.
 */
export async function resendDelivery(
  ctx: WebhookContext,
  id: string,
  owner: string | null,
): Promise<Delivery> {
  const found = await getDelivery(ctx.db, id, owner);
  if (!found) throw errors.deliveryNotFound(id);
  if (found.webhook_disabled) throw errors.webhookDeleted(id);
  if (found.webhook_suspended) throw errors.webhookSuspended(id);
  const restarted = await restartDelivery(ctx.db, id);
  if (!restarted) {
    // Refused: say why, from the state that refused it (it may have changed since the read above).
    const now = (await getDelivery(ctx.db, id, owner)) ?? found;
    if (now.webhook_disabled) throw errors.webhookDeleted(id);
    if (now.webhook_suspended) throw errors.webhookSuspended(id);
    if (now.in_flight) throw errors.deliveryInFlight(id);
    throw errors.deliveryUnfinished(id, now.status);
  }
  await notifyDue(ctx.db);
  return restarted;
}
