/**
 * The checks an export passes before each batch (src/http/export-guard.ts), against the database: the
 * key and its owner's plan read again each time, the charge at the current plan's rate, and the end
 * when the rate limit would admit the next rows only after the deadline. And the slots: per process and
 * per account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashKey } from '../../src/domain/keys.ts';
import { errors } from '../../src/http/errors.ts';
import {
  batchGuard,
  ExportEnded,
  ExportSlots,
  type GuardServices,
  MAX_EXPORTS,
  MAX_EXPORTS_PER_USER,
} from '../../src/http/export-guard.ts';
import { KeyCache } from '../../src/infra/key-cache.ts';
import type { LimitDecision, RateLimiter } from '../../src/infra/limiter.ts';
import { MemoryLimiter } from '../../src/infra/memory-limiter.ts';
import { findKeyByHash, type KeyPrincipal } from '../../src/store/accounts.ts';
import type { Db } from '../../src/store/db.ts';
import { makeKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
let services: GuardServices;
const HOUR = 3_600_000;

before(async () => {
  db = await freshDb();
  // No notification bus: every check reads the database, as when the bus is down.
  services = { db, keys: new KeyCache({ bus: null }), limiter: new MemoryLimiter(), now: () => new Date() };
});
after(() => db.close());

async function principalOf(options: Parameters<typeof makeKey>[1]): Promise<KeyPrincipal> {
  const { raw } = await makeKey(db, options);
  const found = await findKeyByHash(db, hashKey(raw));
  assert.ok(found);
  return found;
}

const live = new AbortController().signal;
/** Limits that never end an export in a test's time. */
const patient = () => ({ deadlineAt: Date.now() + HOUR, stallMs: HOUR });
const ended = (reason: RegExp) => (e: unknown) => e instanceof ExportEnded && reason.test(e.message);

describe('before every batch', () => {
  test('a revoked key ends the export at its next batch', async () => {
    const key = await principalOf({ plan: 'institutional' });
    const guard = batchGuard(services, key, patient());
    await guard(1000, live);
    await guard(1000, live);
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    await assert.rejects(guard(1000, live), ended(/revoked/));
  });

  test('a plan below the tier the export started under ends it; a plan of the same tier does not', async () => {
    const key = await principalOf({ plan: 'institutional' });
    const guard = batchGuard(services, key, patient());
    await guard(1000, live);
    // institutional and developer both have live access; only institutional reaches intelligence.
    await db.query("UPDATE users SET plan = 'developer' WHERE id = $1", [key.user_id]);
    await assert.rejects(guard(1000, live), ended(/below the tier/));

    const developer = await principalOf({ plan: 'developer' });
    const same = batchGuard(services, developer, patient());
    await db.query("UPDATE users SET plan = 'institutional' WHERE id = $1", [developer.user_id]);
    await same(1000, live);
  });

  test('a live key whose plan lost live access ends the export; a test key goes on at its own rate', async () => {
    const liveKey = await principalOf({ plan: 'developer' });
    const testKey = await principalOf({ plan: 'developer', mode: 'test' });
    const guards = [liveKey, testKey].map((k) => batchGuard(services, k, patient()));
    await db.query("UPDATE users SET plan = 'free' WHERE id = ANY($1)", [[liveKey.user_id, testKey.user_id]]);
    await assert.rejects(guards[0]?.(200, live) ?? Promise.resolve(), ended(/no live access/));
    await guards[1]?.(200, live);
  });

  test('charges a request per 200 rows, and ends at once when the window frees only after the deadline', async () => {
    const key = await principalOf({ plan: 'developer', mode: 'test' });
    const guard = batchGuard(services, key, { deadlineAt: Date.now() + 5_000, stallMs: HOUR });
    // The request paid for 200 rows; 1,000 more are 5 requests, then the 30-per-minute window is spent.
    await guard(1200, live);
    for (let i = 0; i < 25; i++) await services.limiter.hit(`key:${key.id}`, 30, 60_000);
    const started = Date.now();
    await assert.rejects(guard(200, live), ended(/after the export's deadline/));
    assert.ok(Date.now() - started < 5_000, 'it did not wait for a window it could not use');
  });

  test('a batch whose window would admit nothing within EXPORT_STALL_MS ends the export at once', async () => {
    const key = await principalOf({ plan: 'developer', mode: 'test' });
    const guard = batchGuard(services, key, { deadlineAt: Date.now() + HOUR, stallMs: 1_000 });
    for (let i = 0; i < 30; i++) await services.limiter.hit(`key:${key.id}`, 30, 60_000);
    const started = Date.now();
    await assert.rejects(guard(400, live), ended(/admits no rows within 1000 ms/));
    assert.ok(Date.now() - started < 30_000, 'it did not sit on its slot for the window');
  });

  test('after a burst of a quarter of the key’s minute, an export charges at the key’s rate', async () => {
    const key = await principalOf({ plan: 'developer', mode: 'test' });
    const guard = batchGuard(services, key, patient());
    // 30 a minute: 7 requests at once (1,400 rows beyond the first 200), then one every 2 s.
    let started = Date.now();
    await guard(1600, live);
    assert.ok(Date.now() - started < 10_000, 'the burst is not paced (seven paced requests take 14 s)');
    started = Date.now();
    await guard(200, live);
    assert.ok(
      Date.now() - started >= 1_500,
      `the eighth request waited its turn (${Date.now() - started} ms)`,
    );
  });

  test('a key revoked while the export waits for the window is refused before anything more is charged', async () => {
    const key = await principalOf({ plan: 'developer', mode: 'test' });
    const hits: boolean[] = [];
    // The window is full once, and the key is revoked during the wait it causes.
    const limiter = {
      hit: async (): Promise<LimitDecision> => {
        const allowed = hits.length > 0;
        hits.push(allowed);
        if (!allowed) await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
        return { allowed, limit: 30, remaining: 0, resetAt: Date.now() + 20 };
      },
    } as Pick<RateLimiter, 'hit'> as RateLimiter;
    const guard = batchGuard({ ...services, limiter }, key, patient());
    await assert.rejects(guard(400, live), ended(/revoked/));
    assert.deepEqual(hits, [false], 'nothing was charged after the wait');
  });

  test('a wait for the window stops when the export is ended meanwhile', async () => {
    const key = await principalOf({ plan: 'developer', mode: 'test' });
    const guard = batchGuard(services, key, patient());
    for (let i = 0; i < 30; i++) await services.limiter.hit(`key:${key.id}`, 30, 60_000);
    const stop = new AbortController();
    const waiting = guard(400, stop.signal);
    stop.abort();
    await assert.rejects(waiting, ended(/ended while it waited/));
  });
});

describe('export slots', () => {
  test(`an account runs at most ${MAX_EXPORTS_PER_USER} (429), the process ${MAX_EXPORTS} (503); others keep theirs`, () => {
    const slots = new ExportSlots();
    const mine = [slots.take('a'), slots.take('a')];
    assert.throws(
      () => slots.take('a'),
      (e: unknown) => {
        const expected = errors.exportsPerUser(MAX_EXPORTS_PER_USER);
        return e instanceof Error && e.message === expected.message && (e as typeof expected).status === 429;
      },
    );
    const theirs = [slots.take('b'), slots.take('c')];
    assert.equal(slots.running, MAX_EXPORTS);
    assert.throws(
      () => slots.take('d'),
      (e: unknown) => (e as { status?: number }).status === 503,
    );
    assert.throws(
      () => slots.take('a'),
      (e: unknown) => (e as { status?: number }).status === 429,
    );
    mine[0]?.();
    mine[0]?.();
    assert.equal(slots.running, MAX_EXPORTS - 1, 'a release counts once');
    const again = slots.take('a');
    for (const release of [again, mine[1], ...theirs]) release?.();
    assert.equal(slots.running, 0);
    slots.take('a');
    slots.take('a');
    assert.equal(slots.running, 2, 'released slots are the account’s again');
  });
});
