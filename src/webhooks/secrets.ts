import { randomBytes } from 'node:crypto';
import { seal, UnsealError, unseal } from '../domain/sealing.ts';

/**
 * Webhook signing secrets must be readable to sign, so they are stored encrypted when SECRET_KEY is set
 * (AES-256-GCM, key = HKDF-SHA256(SECRET_KEY), the webhook id as associated data so a ciphertext cannot
 * be moved to another row) and with a plaintext marker otherwise. Both forms stay readable, so setting
 * SECRET_KEY later needs no migration; changing or dropping it makes encrypted secrets unreadable.
 */

const ENCRYPTED = 'gcm1';
const PLAIN = 'plain';

/**
 * A new signing secret: `whsec_` and 32 random bytes in standard base64 — the form Standard Webhooks
 * verifiers (`standardwebhooks`, `svix`) take as is, while Stripe's scheme keys its HMAC with the
 * whole string. Secrets issued before were base64url (see `standardKey`).
 */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const STANDARD_FORM = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * The HMAC key of the Standard Webhooks signature (`webhook-signature`): what a Standard Webhooks
 * verifier derives from the secret — the bytes of its base64 after `whsec_`. A secret not in that form
 * (the base64url ones issued before) is keyed by its UTF-8 bytes, which those verifiers take with
 * their `{ format: 'raw' }` option.
 */
export function standardKey(secret: string): Buffer {
  const base64 = STANDARD_FORM.exec(secret)?.[1];
  return base64 ? Buffer.from(base64, 'base64') : Buffer.from(secret, 'utf8');
}

/** HKDF's info for webhook secrets (the sealed format predates other sealed data). */
const PURPOSE = 'webhook-secret-v1';

export class SecretUnreadableError extends Error {}

export function sealSecret(secret: string, webhookId: string, secretKey: string | null): string {
  if (!secretKey) return `${PLAIN}:${secret}`;
  const { iv, tag, data } = seal(Buffer.from(secret, 'utf8'), secretKey, PURPOSE, webhookId);
  const parts = [iv, tag, data].map((b) => b.toString('base64url'));
  return `${ENCRYPTED}:${parts.join(':')}`;
}

export function openSecret(stored: string, webhookId: string, secretKey: string | null): string {
  if (stored.startsWith(`${PLAIN}:`)) return stored.slice(PLAIN.length + 1);
  const [scheme, iv, tag, data] = stored.split(':');
  if (scheme !== ENCRYPTED || !iv || !tag || data === undefined) {
    throw new SecretUnreadableError('stored webhook secret has an unknown format');
  }
  if (!secretKey) throw new SecretUnreadableError('webhook secret is encrypted but SECRET_KEY is not set');
  const sealed = {
    iv: Buffer.from(iv, 'base64url'),
    tag: Buffer.from(tag, 'base64url'),
    data: Buffer.from(data, 'base64url'),
  };
  try {
    return unseal(sealed, secretKey, PURPOSE, webhookId).toString('utf8');
  } catch (error) {
    if (!(error instanceof UnsealError)) throw error;
    throw new SecretUnreadableError(
      'webhook secret cannot be decrypted: SECRET_KEY differs from the one that sealed it',
    );
  }
}
