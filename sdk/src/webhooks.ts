/**
 * Receiving webhooks: a delivery is a POST with `X-Service-Signature: t=<unix seconds>,v1=<hex>`, where
 * v1 is HMAC-SHA256(secret, `${t}.${rawBody}`) (Stripe's scheme); during a secret rotation's overlap
 * window it carries one `v1` per secret, and either secret verifies. Verify the raw bytes as received,
 * before any JSON parsing, then trust the event.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookPayloads } from './generated.js';

export const SIGNATURE_HEADER = 'x-service-signature';
/** The delivery id header: not signed, so it must name the delivery the signed body names. */
export const DELIVERY_HEADER = 'x-service-delivery';
/** The largest accepted |now − t| in seconds unless told otherwise. */
export const DEFAULT_TOLERANCE_SEC = 300;

const PATTERN = /^t=(\d+)((?:,v1=[0-9a-f]{64}){1,4})$/;

/** The signature header itself, a fetch `Headers`, or node's `req.headers`. */
export type WebhookHeaders =
  | string
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Largest accepted |now − t| in seconds (default 300); the name the API docs and the server's helper use. */
  toleranceSec?: number;
  /** @deprecated Use `toleranceSec` (same meaning); kept for code written against 0.1.0. */
  tolerance?: number;
  /** The receiver's clock: a Date or milliseconds since the epoch (default now). */
  now?: Date | number;
}

export type WebhookFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'signature_mismatch'
  | 'timestamp_out_of_tolerance'
  | 'invalid_payload'
  | 'delivery_mismatch';

export type WebhookVerification =
  | { ok: true; timestamp: number }
  | { ok: false; reason: WebhookFailure; message: string };

/** A delivery's body: one of the payloads the document declares under `webhooks` (today `signal.created`). */
export type WebhookEventPayload = WebhookPayloads[keyof WebhookPayloads];

export class WebhookVerificationError extends Error {
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** One header's single value; a bare string is the signature header's value. */
function headerOf(headers: WebhookHeaders, wanted: string): string | null {
  if (typeof headers === 'string') return wanted === SIGNATURE_HEADER ? headers : null;
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(wanted);
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== wanted) continue;
    // Repeated: no single value (not absent, so a repeated delivery id is a mismatch, not unchecked).
    return Array.isArray(value) ? (value.length === 1 ? (value[0] ?? '') : '') : (value ?? null);
  }
  return null;
}

/**
 * Checks a delivery in the documented order: the header's form, the HMAC of `<t>.<payload>` compared in
 * constant time, then the timestamp within `tolerance` seconds of now.
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookVerification {
  const header = headerOf(headers, SIGNATURE_HEADER);
  if (header === null || header === '') {
    return { ok: false, reason: 'missing_header', message: `no ${SIGNATURE_HEADER} header` };
  }
  const match = PATTERN.exec(header);
  if (!match?.[1] || !match[2]) {
    return {
      ok: false,
      reason: 'malformed_header',
      message: 'signature header is not t=<digits>,v1=<64 hex>',
    };
  }
  const [, t, signatures] = match;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(payload).digest();
  const given = signatures.split(',v1=').slice(1);
  if (!given.some((v1) => timingSafeEqual(Buffer.from(v1, 'hex'), expected))) {
    return { ok: false, reason: 'signature_mismatch', message: 'signature does not match the payload' };
  }
  const timestamp = Number(t);
  const now = options.now === undefined ? Date.now() : Number(options.now);
  const tolerance = options.toleranceSec ?? options.tolerance ?? DEFAULT_TOLERANCE_SEC;
  if (Math.abs(now / 1000 - timestamp) > tolerance) {
    return {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
      message: `signature timestamp ${timestamp} is more than ${tolerance} s from now`,
    };
  }
  return { ok: true, timestamp };
}

/**
 * Verifies a delivery and returns its event; throws `WebhookVerificationError` when it does not verify.
 * When the headers carry X-Service-Delivery, it must equal the signed body's `delivery_id`: the header is
 * not signed, and a captured delivery replayed under a fresh header id is refused (`delivery_mismatch`).
 * De-duplicate on the returned event's `delivery_id`.
 */
export function constructEvent(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEventPayload {
  const result = verifyWebhook(payload, headers, secret, options);
  if (!result.ok) throw new WebhookVerificationError(result.reason, result.message);
  const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  let event: WebhookEventPayload;
  try {
    event = JSON.parse(text) as WebhookEventPayload;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the payload is not JSON');
  }
  const delivery = headerOf(headers, DELIVERY_HEADER);
  if (delivery !== null && delivery !== event.delivery_id) {
    throw new WebhookVerificationError(
      'delivery_mismatch',
      `${DELIVERY_HEADER} ${delivery} is not the signed delivery_id ${String(event.delivery_id)}`,
    );
  }
  return event;
}
