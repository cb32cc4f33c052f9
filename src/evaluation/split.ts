/**
 * Deterministic splits for the held-out measurements: an item's fold depends only on its key (a
 * 32-bit FNV-1a hash), so the same name or award id always lands in the same fold, whatever else
 * the labelled set contains and in whatever order it is read.
 */

export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Fold index in [0, k) of `key`, salted so different studies do not share one split. */
export function foldOf(key: string, k: number, salt = ''): number {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  return fnv1a(`${salt}\u0000${key}`) % k;
}

/** True for about `share` of all keys (e.g. 0.3 → a fixed 30 % hold-out). */
export function isHeldOut(key: string, share: number, salt = ''): boolean {
  return fnv1a(`${salt}\u0000${key}`) / 2 ** 32 < share;
}
