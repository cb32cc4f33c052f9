import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (docs/API.md "Verifying a delivery"): `X-Service-Signature: t=<unix seconds>,v1=<hex>`
 * where v1 is HMAC-SHA256(secret, `${t}.${rawBody}`). The same scheme as Stripe's, so Stripe's verifier
 * accepts it; during a secret rotation's overlap window the header carries one `v1` per secret
 * (`t=…,v1=<new>,v1=<old>`), as Stripe's does while an endpoint has an expiring secret.
 */

export const SIGNATURE_TOLERANCE_SEC = 300;

const HEADER_PATTERN = /^t=(\d+)((?:,v1=[0-9a-f]+)+)$/;
/** At most this many `v1` in one header: two during an overlap window, with room, but bounded work. */
const MAX_SIGNATURES = 4;

type RawBody = string | Uint8Array;

function digest(secret: string, timestamp: string, rawBody: RawBody): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/**
 * The header value for one attempt; `unixSec` is the time of sending, so every attempt is signed afresh.
 * Several secrets (a rotation's overlap window) give one `v1` each, the newest first.
 */
export function signatureHeader(
  secrets: string | readonly string[],
  rawBody: RawBody,
  unixSec: number,
): string {
  const t = String(Math.floor(unixSec));
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return `t=${t}${list.map((secret) => `,v1=${digest(secret, t, rawBody)}`).join('')}`;
}

export type VerifyFailure = 'malformed_header' | 'signature_mismatch' | 'timestamp_out_of_tolerance';

export type WebhookVerification =
  | { ok: true; timestamp: number }
  | { ok: false; reason: VerifyFailure; message: string };

export interface VerifyOptions {
  /** Largest accepted |now − t| in seconds; default 300. */
  toleranceSec?: number;
  /** The receiver's clock: a Date or milliseconds since the epoch; default now. */
  now?: Date | number;
}

/**
 * Receiver-side check of a delivery, the four documented steps in order: (1) the header must match
 * `t=<digits>,v1=<lowercase hex>` (the `,v1=` part repeated during a rotation's overlap window);
 * (2) HMAC-SHA256 over `<t>.<rawBody>` with the signing secret, hex; (3) compared with each v1 in
 * constant time, one must match; (4) rejected when |now − t| exceeds the tolerance (300 s).
 * `rawBody` must be the bytes as received, before any JSON parsing.
 */
export function verifyWebhook(
  rawBody: RawBody,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): WebhookVerification {
  const match = HEADER_PATTERN.exec(header ?? '');
  const t = match?.[1];
  const signatures = match?.[2]?.split(',v1=').slice(1) ?? [];
  if (!t || signatures.length === 0 || signatures.length > MAX_SIGNATURES) {
    return { ok: false, reason: 'malformed_header', message: 'signature header is not t=<digits>,v1=<hex>' };
  }
  const expected = Buffer.from(digest(secret, t, rawBody), 'hex');
  const matches = (v1: string) => {
    const given = v1.length % 2 === 0 ? Buffer.from(v1, 'hex') : Buffer.alloc(0);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  if (!signatures.some(matches)) {
    return { ok: false, reason: 'signature_mismatch', message: 'signature does not match the body' };
  }
  const timestamp = Number(t);
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  const tolerance = options.toleranceSec ?? SIGNATURE_TOLERANCE_SEC;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) {
    return {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
      message: `signature timestamp is more than ${tolerance} s from now`,
    };
  }
  return { ok: true, timestamp };
}

/**
 * The Standard Webhooks signature (`webhook-signature`): `v1,<base64 HMAC-SHA256(key, "<id>.<t>.<body>")>`
 * per key, separated by spaces. `keys` are the secrets' Standard Webhooks keys (webhooks/secrets.ts
 * `standardKey`); `id` is `webhook-id`, `unixSec` the `webhook-timestamp`.
 */
export function standardSignature(
  keys: readonly Uint8Array[],
  id: string,
  rawBody: RawBody,
  unixSec: number,
): string {
  const t = String(Math.floor(unixSec));
  return keys
    .map((key) => `v1,${createHmac('sha256', key).update(`${id}.${t}.`).update(rawBody).digest('base64')}`)
    .join(' ');
}
