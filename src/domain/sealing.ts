import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM under a key derived from SECRET_KEY (HKDF-SHA256, one `purpose` per kind of data, so a
 * ciphertext of one kind never opens as another), with associated data binding it to its row: a sealed
 * value moved to another row does not open. Sealed: 12-byte IV, 16-byte tag, ciphertext.
 */
export interface Sealed {
  iv: Buffer;
  tag: Buffer;
  data: Buffer;
}

export class UnsealError extends Error {}

const keys = new Map<string, Buffer>();

function keyFor(secretKey: string, purpose: string): Buffer {
  const id = `${purpose}\n${secretKey}`;
  let key = keys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secretKey, 'market-intel', purpose, 32));
    keys.set(id, key);
  }
  return key;
}

export function seal(plain: Buffer, secretKey: string, purpose: string, associated: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secretKey, purpose), iv);
  cipher.setAAD(Buffer.from(associated));
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), data };
}

/** The plaintext; UnsealError when the key, the purpose or the associated data differ. */
export function unseal(sealed: Sealed, secretKey: string, purpose: string, associated: string): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(secretKey, purpose), sealed.iv);
    decipher.setAAD(Buffer.from(associated));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.data), decipher.final()]);
  } catch {
    throw new UnsealError('cannot decrypt: SECRET_KEY differs from the one that sealed it');
  }
}

/** One buffer: IV, tag, ciphertext. */
export const sealBytes = (plain: Buffer, secretKey: string, purpose: string, associated: string): Buffer => {
  const { iv, tag, data } = seal(plain, secretKey, purpose, associated);
  return Buffer.concat([iv, tag, data]);
};

export const unsealBytes = (sealed: Buffer, secretKey: string, purpose: string, associated: string) =>
  unseal(
    { iv: sealed.subarray(0, 12), tag: sealed.subarray(12, 28), data: sealed.subarray(28) },
    secretKey,
    purpose,
    associated,
  );
