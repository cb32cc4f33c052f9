import { hash, randomBytes } from 'node:crypto';
import type { KeyMode } from './plans.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX: Record<KeyMode, string> = { live: 'iv_live_', test: 'iv_test_' };
const DISPLAY_LENGTH = 12;
/** 32 random bytes in base62 are 43 characters (62^43 > 2^256). */
const BODY_LENGTH = 43;
const KEY_PATTERN = /^iv_(live|test)_[0-9A-Za-z]{43}$/;

function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(BODY_LENGTH, '0');
}

export function hashKey(raw: string): string {
  return hash('sha256', raw, 'hex');
}

export interface NewKey {
  raw: string;
  hash: string;
  displayPrefix: string;
}

export function generateKey(mode: KeyMode): NewKey {
  const raw = KEY_PREFIX[mode] + base62(randomBytes(32));
  return { raw, hash: hashKey(raw), displayPrefix: raw.slice(0, DISPLAY_LENGTH) };
}

/** The mode a well-formed key claims, or null for anything that cannot be one of ours. */
export function keyMode(raw: string): KeyMode | null {
  const match = KEY_PATTERN.exec(raw);
  return match ? (match[1] as KeyMode) : null;
}

/**
 * Comparison of two hex digests in time independent of where they differ (every character is visited;
 * no early exit), without the two buffers timingSafeEqual would need on every request.
 */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
