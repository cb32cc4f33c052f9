import { keyRpm, PLAN_LIMITS, RATE_WINDOW_MS, reachesTier } from '../domain/plans.ts';
import { findKeyByHash, type KeyPrincipal } from '../store/accounts.ts';
import { errors } from './errors.ts';
import type { Services } from './types.ts';

/**
 * What keeps exports fair and keeps them to what their key may still see: the slots (per process and
 * per account), and the checks before each batch — the key and its owner's plan read again, the rate
 * limit's charge, and the export's deadline while it waits for the limit. The rules are documented in
 * docs/API.md#export.
 */

/** Rows one request pays for: a full page of the lists. */
export const ROWS_PER_REQUEST = 200;
/**
 * Exports running at once in one process. Each holds a pooled connection (10 in all) for its whole
 * length: a cap keeps the rest of the API served while long exports run.
 */
export const MAX_EXPORTS = 4;
/**
 * Exports one account (all its keys together) runs at once in one process: one account never holds
 * more than half the slots, whatever its keys or its rate.
 */
export const MAX_EXPORTS_PER_USER = 2;

/** Exports running in this process, in all and by account. */
export class ExportSlots {
  #running = 0;
  readonly #byUser = new Map<string, number>();
  constructor(
    readonly max = MAX_EXPORTS,
    readonly perUser = MAX_EXPORTS_PER_USER,
  ) {}

  /**
   * A slot for `userId` (null: an app without keys), or the refusal: 429 when the account already runs
   * its share, else 503 when the process has none free. `release` gives it back (once).
   */
  take(userId: string | null): () => void {
    const mine = userId === null ? 0 : (this.#byUser.get(userId) ?? 0);
    if (userId !== null && mine >= this.perUser) throw errors.exportsPerUser(this.perUser);
    if (this.#running >= this.max) throw errors.exportsBusy(this.#running);
    this.#running += 1;
    if (userId !== null) this.#byUser.set(userId, mine + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#running -= 1;
      if (userId === null) return;
      const left = (this.#byUser.get(userId) ?? 1) - 1;
      if (left > 0) this.#byUser.set(userId, left);
      else this.#byUser.delete(userId);
    };
  }

  get running(): number {
    return this.#running;
  }
}

/** What the checks before a batch use. */
export type GuardServices = Pick<Services, 'db' | 'keys' | 'limiter' | 'now'>;

/** Why an export ended after its first byte: it fails the stream, which the client sees cut short. */
export class ExportEnded extends Error {
  override name = 'ExportEnded';
}

/**
 * The key as it is now (this process's key cache, which notifications keep current, else the
 * database), if it may still receive what the export started sending: not revoked, its plan still with
 * access for the key's mode, and still reaching the tier the export's content was decided under.
 */
async function stillEntitled(services: GuardServices, started: KeyPrincipal): Promise<KeyPrincipal> {
  const now = await services.keys.find(started.hash, () => findKeyByHash(services.db, started.hash));
  if (!now || now.id !== started.id || now.revoked_at) throw new ExportEnded('the key was revoked');
  if (keyRpm(now.plan, now.mode) === null) throw new ExportEnded(`the ${now.plan} plan has no live access`);
  if (!reachesTier(now.plan, PLAN_LIMITS[started.plan].tier)) {
    throw new ExportEnded(`the plan changed to ${now.plan}, below the tier the export started under`);
  }
  return now;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** When the checks before a batch give up waiting. */
export interface GuardLimits {
  /** Epoch ms: the export's deadline (EXPORT_DEADLINE_MS from its admission). */
  deadlineAt: number;
  /** The longest one batch may wait for the key's window (EXPORT_STALL_MS, as for a client). */
  stallMs: number;
}

/**
 * How long until an export may charge its next request: a quarter of its key's minute at once, then
 * the key's rate. Its own charges then never fill the window for long, so its waits stay well under
 * EXPORT_STALL_MS unless the key's other requests fill it.
 */
function paceDelay(begun: number, charges: number, rpm: number): number {
  const burst = Math.max(1, Math.floor(rpm / 4));
  if (charges < burst) return 0;
  return Math.max(0, begun + ((charges - burst + 1) * RATE_WINDOW_MS) / rpm - Date.now());
}

/**
 * Awaited before each batch goes out, with its row count: the key re-checked, then the rate limit's
 * charge. The request itself paid for the first ROWS_PER_REQUEST rows; each further ROWS_PER_REQUEST
 * (or part of them) is one more request counted in the key's window (at the key's current plan's
 * rate, paced by paceDelay) before those rows go out. When the window is full the export waits for
 * it, as a client paging the list would have to — but the stall cut-off and the deadline run meanwhile:
 * a batch that would wait longer than `stallMs` for the window, or past `deadlineAt`, ends the export
 * at once instead of holding its slot.
 */
export function batchGuard(
  services: GuardServices,
  started: KeyPrincipal | null,
  limits: GuardLimits,
): (rows: number, signal: AbortSignal) => Promise<void> {
  // Without a principal the app runs without keys at all (a benchmark's bare app): nothing to check.
  if (!started || keyRpm(started.plan, started.mode) === null) return async () => undefined;
  const bucket = `key:${started.id}`;
  const begun = Date.now();
  let paid = ROWS_PER_REQUEST;
  let sent = 0;
  let charges = 0;
  /** Waits `ms` unless that passes the deadline (then the export ends). */
  const wait = async (ms: number, signal: AbortSignal) => {
    if (Date.now() + ms > limits.deadlineAt) {
      throw new ExportEnded("the key's rate limit admits the next rows only after the export's deadline");
    }
    await pause(ms, signal);
  };
  return async (rows, signal) => {
    let key = await stillEntitled(services, started);
    sent += rows;
    let waited = 0;
    while (paid < sent) {
      if (signal.aborted) throw new ExportEnded('the export was ended while it waited');
      const rpm = keyRpm(key.plan, key.mode) ?? 0;
      const pace = paceDelay(begun, charges, rpm);
      if (pace > 0) {
        await wait(pace, signal);
        continue;
      }
      const decision = await services.limiter.hit(bucket, rpm, RATE_WINDOW_MS);
      if (decision.allowed) {
        paid += ROWS_PER_REQUEST;
        charges += 1;
        continue;
      }
      const full = Math.max(10, decision.resetAt - services.now().getTime());
      if (waited + full > limits.stallMs) {
        throw new ExportEnded(`the key's rate limit admits no rows within ${limits.stallMs} ms`);
      }
      await wait(full, signal);
      waited += full;
      // The wait may have been long: the key is read again before anything more is charged or sent.
      key = await stillEntitled(services, started);
    }
  };
}
