import { randomUUID } from 'node:crypto';
import { forTier } from '../domain/field-tiers.ts';
import { PLAN_LIMITS, reachesTier } from '../domain/plans.ts';
import { PREDICTION_MODEL } from '../domain/prediction.ts';
import { TIERS, type Tier } from '../domain/types.ts';
import {
  Contract,
  type ContractDto,
  Prediction,
  type PredictionDto,
  Signal,
  type SignalDto,
} from '../shapes/resources.ts';
import type { Queryable } from '../store/db.ts';
import { predictionsOf } from '../store/predictions.ts';
import { toContract, toSignal } from '../store/rows.ts';
import { signalsWithContracts } from '../store/signals.ts';
import { insertDeliveries, liveWebhooks } from '../store/webhooks.ts';

export const SIGNAL_CREATED = 'signal.created';
/** The event `POST /webhooks/{id}/test` sends: marked `test: true`, so no receiver takes it for a signal. */
export const WEBHOOK_TEST = 'webhook.test';
export const WEBHOOK_EVENTS = [SIGNAL_CREATED, WEBHOOK_TEST] as const;

/**
 * The documented payload (docs/API.md "The `signal.created` event"): the Signal as the API serves it to the webhook owner's
 * plan, never with its rationale whatever the plan, its Contract and the event's stored Prediction —
 * each field under the tier policy of the owner's plan (src/domain/field-tiers.ts).
 */
export interface SignalCreatedPayload {
  /** The event id: one per new signal, shared by every webhook it is sent to (webhook-id). */
  id: string;
  event: typeof SIGNAL_CREATED;
  data: { signal: Omit<SignalDto, 'rationale'>; contract: ContractDto; prediction?: PredictionDto };
  /** Milliseconds since the epoch, when the delivery was enqueued. */
  ts: number;
}

export interface WrittenSignal {
  id: string;
  contract_id: string;
  signal_score: number;
  inserted: boolean;
}

const isTier = (value: string): value is Tier => (TIERS as readonly string[]).includes(value);

/**
 * The outbox write: for every signal row just created (not a recompute) at or above the threshold,
 * one `signal.created` delivery per active webhook whose owner's plan has webhooks and reaches the
 * signal's engine tier (a suspended webhook's is written failed, to be resent once it is re-enabled).
 * Call it inside the transaction that wrote the signals, so a signal and its
 * deliveries commit together or not at all. Returns the number of deliveries written.
 */
export async function enqueueSignalCreated(
  tx: Queryable,
  signals: readonly WrittenSignal[],
  threshold: number,
  now: Date = new Date(),
): Promise<number> {
  const ids = signals.filter((s) => s.inserted && s.signal_score >= threshold).map((s) => s.id);
  if (ids.length === 0) return 0;
  const hooks = (await liveWebhooks(tx)).filter((hook) => PLAN_LIMITS[hook.plan].maxWebhooks > 0);
  if (hooks.length === 0) return 0;
  const rows = await signalsWithContracts(tx, ids);
  const predictions = await predictionsOf(
    tx,
    rows.map((r) => r.id),
    PREDICTION_MODEL,
  );
  const deliveries: {
    webhookId: string;
    event: string;
    payload: SignalCreatedPayload;
    suspended: boolean;
  }[] = [];
  for (const row of rows) {
    // The same action announced twice (the evening's announcement, months later its award) is one event.
    if (row.announced_before) continue;
    const id = randomUUID();
    const full = toSignal(row);
    if (!full) continue;
    const { rationale: _rationale, ...signal } = full;
    const tier: Tier = isTier(signal.engine_tier) ? signal.engine_tier : 'intelligence';
    const contract = toContract(row);
    const prediction = predictions.get(row.id);
    const data = prediction ? { signal, contract, prediction } : { signal, contract };
    for (const hook of hooks) {
      if (!reachesTier(hook.plan, tier)) continue;
      // Under the tier policy of the owner's plan, like an API read of theirs.
      const payload: SignalCreatedPayload = {
        id,
        event: SIGNAL_CREATED,
        data: forTier('signal_created', data, PLAN_LIMITS[hook.plan].tier),
        ts: now.getTime(),
      };
      deliveries.push({ webhookId: hook.id, event: SIGNAL_CREATED, payload, suspended: hook.suspended });
    }
  }
  return insertDeliveries(tx, deliveries);
}

const SIGNAL_KEYS = Object.keys(Signal.properties);
const CONTRACT_KEYS = Object.keys(Contract.properties);
const PREDICTION_KEYS = Object.keys(Prediction.properties);

function ordered(value: unknown, keys: readonly string[], nested: Record<string, readonly string[]> = {}) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  const names = [
    ...keys.filter((k) => k in source),
    ...Object.keys(source)
      .filter((k) => !keys.includes(k))
      .sort(),
  ];
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const inner = nested[name];
    out[name] = inner ? ordered(source[name], inner) : source[name];
  }
  return out;
}

/**
 * A delivery's event id (body `id`, header `webhook-id`): the one the outbox stored in its payload; a
 * delivery written before events had ids uses its delivery id, so its every attempt still carries one id.
 */
export function eventIdOf(payload: unknown, deliveryId: string): string {
  const id = payload && typeof payload === 'object' ? (payload as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : deliveryId;
}

/**
 * The request body of a delivery. The payload is stored as jsonb, which keeps no key order; the body is
 * written in the documented order (id, event, delivery_id, data.signal, data.contract, data.prediction,
 * ts, test; resource fields as in the API), so every attempt of a delivery sends the same bytes.
 * `delivery_id` repeats X-Service-Delivery inside the signed bytes: the header is not signed, so a
 * receiver that de-duplicates on the body's id cannot be replayed the same delivery under a fresh header id.
 */
export function deliveryBody(payload: unknown, deliveryId: string): string {
  const source = payload && typeof payload === 'object' ? payload : {};
  const id = eventIdOf(payload, deliveryId);
  const top = ordered({ ...source, id, delivery_id: deliveryId }, [
    'id',
    'event',
    'delivery_id',
    'data',
    'ts',
    'test',
  ]) as Record<string, unknown>;
  if ('data' in top) {
    top.data = ordered(top.data, ['signal', 'contract', 'prediction'], {
      signal: SIGNAL_KEYS,
      contract: CONTRACT_KEYS,
      prediction: PREDICTION_KEYS,
    });
  }
  return JSON.stringify(top);
}
