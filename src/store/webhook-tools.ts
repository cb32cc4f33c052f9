import type { Queryable } from './db.ts';
import {
  DELIVERY_COLUMNS,
  type Delivery,
  first,
  notifyDue,
  WEBHOOK_COLUMNS,
  type Webhook,
} from './webhooks.ts';

/** SQL of the developer tools on one webhook: its test event and the rotation of its secret. */

/**
 * Writes one delivery of `payload` to a webhook neither deleted nor suspended, due now; null when the
 * webhook is (by then) deleted or suspended. The same outbox row as any event's, so the worker signs,
 * sends, retries and records it like one.
 */
export async function insertTestDelivery(
  db: Queryable,
  input: { id: string; webhookId: string; event: string; payload: unknown },
): Promise<Delivery | null> {
  const delivery = first(
    await db.query<Delivery>(
      `INSERT INTO webhook_deliveries AS d (id, webhook_id, event, payload, status, next_attempt_at)
       SELECT $1, w.id, $3, $4::jsonb, 'pending', now() FROM webhooks w
       WHERE w.id = $2 AND w.disabled_at IS NULL AND w.suspended_at IS NULL
       RETURNING ${DELIVERY_COLUMNS}`,
      [input.id, input.webhookId, input.event, JSON.stringify(input.payload)],
    ),
  );
  if (delivery) await notifyDue(db);
  return delivery;
}

/**
 * Replaces a webhook's sealed secret. With an overlap, the replaced one stays as `previous_secret`
 * until `now() + overlapMs` (deliveries are signed with both); without, it is dropped at once. A
 * previous secret still in its window is dropped either way: one rotation's overlap at a time. One
 * UPDATE, so two rotations at once are applied one after the other. Null for a deleted webhook or
 * one this owner does not have.
 */
export async function replaceSecret(
  db: Queryable,
  input: { id: string; owner: string | null; sealedSecret: string; overlapMs: number },
): Promise<Webhook | null> {
  return first(
    await db.query<Webhook>(
      `UPDATE webhooks w SET secret = $3,
         previous_secret = CASE WHEN $4::float8 > 0 THEN w.secret END,
         previous_secret_expires_at = CASE WHEN $4::float8 > 0
           THEN now() + $4::float8 * interval '1 millisecond' END
       WHERE w.id = $1 AND ($2::uuid IS NULL OR w.user_id = $2) AND w.disabled_at IS NULL
       RETURNING ${WEBHOOK_COLUMNS}`,
      [input.id, input.owner, input.sealedSecret, input.overlapMs],
    ),
  );
}
