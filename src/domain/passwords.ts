import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { WorkQueue } from './work-queue.ts';

const KEY_LENGTH = 64;
/** scrypt cost: N=2^15, r=8, p=1 (about 32 MiB and tens of milliseconds per hash). */
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/**
 * Every scrypt of the process goes through this queue. Two at a time leave libuv's other threads (4 by
 * default) to file and DNS work, and cap scrypt's memory at about 64 MiB; 32 waiting is about a second of
 * work. A flood of sign-ups beyond that is refused (QueueFullError → 503) instead of starving the API.
 * Its stats() let tests count the hashes computed and see the peak concurrency.
 */
export const passwordHashing = new WorkQueue(2, 32);

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return passwordHashing.run(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password, salt, KEY_LENGTH, PARAMS, (error, key) => (error ? reject(error) : resolve(key)));
      }),
  );
}

/** `scrypt$N$r$p$salt$hash`, base64 parts: the parameters travel with the hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, , , , salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
