import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (docs/API.md "Verifying a delivery"): `X-Service-Signature: t=<unix seconds>,v1=<hex>` where v1 is
 * HMAC-SHA256(secret, `${t}.${rawBody}`). The same scheme as Stripe's, so Stripe's verifier accepts it.
 */

export const SIGNATURE_TOLERANCE_SEC = 300;

const HEADER_PATTERN = /^t=(\d+),v1=([0-9a-f]+)$/;

type RawBody = string | Uint8Array;

function digest(secret: string, timestamp: string, rawBody: RawBody): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value for one attempt; `unixSec` is the time of sending, so every attempt is signed afresh. */
export function signatureHeader(secret: string, rawBody: RawBody, unixSec: number): string {
  const t = String(Math.floor(unixSec));
  return `t=${t},v1=${digest(secret, t, rawBody)}`;
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
 * Receiver-side check of a delivery, the four documented steps (docs/API.md "Verifying a delivery") in order: (1) the header must match
 * `t=<digits>,v1=<lowercase hex>`; (2) HMAC-SHA256 over `<t>.<rawBody>` with the signing secret, hex;
 * (3) compared with v1 in constant time; (4) rejected when |now − t| exceeds the tolerance (300 s).
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
  const v1 = match?.[2];
  if (!t || !v1) {
    return { ok: false, reason: 'malformed_header', message: 'signature header is not t=<digits>,v1=<hex>' };
  }
  const expected = Buffer.from(digest(secret, t, rawBody), 'hex');
  const given = v1.length % 2 === 0 ? Buffer.from(v1, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
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
