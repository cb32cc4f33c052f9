/**
 * Idempotency-Key on the creating POSTs: a retry with the same key and request gets the first answer
 * (and creates nothing), another request with the key is 422, a retry while the first runs is 409, the
 * answer is kept 24 hours per API key, and the secrets in stored answers are sealed and never logged.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { type Envelope, makeKey, testConfig } from '../support/app.ts';
import { seededDb } from '../support/db.ts';

const SECRET_KEY = 'test-secret-key-for-idempotency';
const HOOK = 'https://hooks.example.com/in';
const DAY_MS = 24 * 3_600_000;

let db: Db;
let app: App;
let clock = Date.parse('2026-01-05T12:00:00.000Z');
const logs: string[] = [];

before(async () => {
  db = await seededDb();
  app = await buildApp({
    config: testConfig({ SECRET_KEY, LOG_LEVEL: 'info' }),
    db,
    now: () => new Date(clock),
    logStream: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString());
        done();
      },
    }),
    webhooks: { resolve: async () => [{ address: '93.184.216.34', family: 4 }] },
  });
  await app.ready();
});
after(async () => {
  await app.close();
  await db.close();
});

type Caller = Awaited<ReturnType<typeof makeKey>>;

function post(
  caller: Caller,
  url: string,
  payload: unknown,
  idempotencyKey?: string | string[],
): Promise<LightMyRequestResponse> {
  const headers: InjectOptions['headers'] = { 'x-api-key': caller.raw };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return app.inject({ method: 'POST', url, headers, payload: payload as InjectOptions['payload'] });
}

const count = async (sql: string, params: unknown[]) =>
  (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0]?.n ?? -1;
const webhooksOf = (userId: string) => count('webhooks WHERE user_id = $1', [userId]);
const keysOf = (userId: string) => count('api_keys WHERE user_id = $1', [userId]);

const developer = () => makeKey(db, { plan: 'institutional', scopes: ['read', 'write'] });
const adminKey = () => makeKey(db, { admin: true, scopes: ['admin'] });

describe('Idempotency-Key', () => {
  test('a repeat is answered with the first answer, marked replayed, and creates no second webhook', async () => {
    const caller = await developer();
    const key = randomUUID();
    const first = await post(caller, '/api/v1/webhooks', { url: HOOK }, key);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await post(caller, '/api/v1/webhooks', { url: HOOK }, key);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(again.headers['cache-control'], 'no-store');
    assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
    assert.deepEqual(again.json(), first.json(), 'the same webhook and its secret');
    assert.equal(await webhooksOf(caller.userId), 1);

    // Another key value is another request; no header at all is no idempotency.
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK }, randomUUID())).statusCode, 201);
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK })).statusCode, 201);
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK })).statusCode, 201);
    assert.equal(await webhooksOf(caller.userId), 4);
  });

  test('an admin key creation is replayed with its raw key, which is stored only sealed', async () => {
    const admin = await adminKey();
    const user = await developer();
    const url = `/api/v1/admin/users/${user.userId}/keys`;
    const body = { name: 'ci', scopes: ['read'], mode: 'live' };
    const key = 'create-ci-key-1';
    const first = await post(admin, url, body, key);
    assert.equal(first.statusCode, 201, first.body);
    const again = await post(admin, url, { mode: 'live', scopes: ['read'], name: 'ci' }, key);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true', 'the same body in another key order');
    const secret = first.json<{ secret: string }>().secret;
    assert.equal(again.json<{ secret: string }>().secret, secret);
    assert.equal(await keysOf(user.userId), 2, 'the user’s own key and one more');
    const [row] = await db.query<{ body: Buffer }>(
      'SELECT body FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2',
      [admin.keyId, key],
    );
    assert.ok(row);
    assert.equal(row.body.includes(Buffer.from(secret)), false, 'sealed at rest');
    assert.equal(row.body.includes(Buffer.from('"key"')), false);
  });

  test('a test event and a secret rotation replay their answer: one delivery, one rotation, the secret sealed', async () => {
    const caller = await developer();
    const created = await post(caller, '/api/v1/webhooks', { url: HOOK });
    const { webhook } = created.json<{ webhook: { id: string } }>();
    const test1 = await post(caller, `/api/v1/webhooks/${webhook.id}/test`, undefined, 'test-1');
    const test2 = await post(caller, `/api/v1/webhooks/${webhook.id}/test`, undefined, 'test-1');
    assert.equal(test1.statusCode, 202, test1.body);
    assert.equal(test2.headers['idempotent-replayed'], 'true');
    assert.equal(test2.body, test1.body);
    assert.equal(await count('webhook_deliveries WHERE webhook_id = $1', [webhook.id]), 1);

    const rotate = (key: string) => post(caller, `/api/v1/webhooks/${webhook.id}/rotate-secret`, {}, key);
    const first = await rotate('rotate-1');
    const again = await rotate('rotate-1');
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const secret = first.json<{ secret: string }>().secret;
    assert.equal(
      again.json<{ secret: string }>().secret,
      secret,
      'the same new secret, not a second rotation',
    );
    const [row] = await db.query<{ body: Buffer }>(
      'SELECT body FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2',
      [caller.keyId, 'rotate-1'],
    );
    assert.ok(row);
    assert.equal(row.body.includes(Buffer.from(secret)), false, 'sealed at rest');
    assert.ok(!logs.join('').includes(secret), 'never logged');
  });

  test('the score route replays its answer without scoring again', async () => {
    const caller = await developer();
    const [contract] = await db.query<{ id: string }>(
      'SELECT id FROM contracts WHERE ticker IS NOT NULL LIMIT 1',
    );
    assert.ok(contract);
    const url = `/api/v1/contracts/${contract.id}/score`;
    const first = await post(caller, url, undefined, 'score-1');
    assert.equal(first.statusCode, 200, first.body);
    type Scored = { signal: { id: string; signal_score: number; computed_at: string } };
    const signal = first.json<Scored>().signal;
    // A stored value scoring would change: a recompute shows as the score restored, a replay leaves it.
    // (A recompute that gives the stored values writes nothing, computed_at included.)
    const altered = (signal.signal_score + 1) % 100;
    await db.query('UPDATE signals SET signal_score = $2 WHERE id = $1', [signal.id, altered]);
    clock += 60_000;
    const again = await post(caller, url, undefined, 'score-1');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    const stored = () =>
      db.query<{ signal_score: number }>('SELECT signal_score FROM signals WHERE id = $1', [signal.id]);
    assert.equal((await stored())[0]?.signal_score, altered, 'not recomputed');
    const fresh = await post(caller, url, undefined, 'score-2');
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.equal(fresh.json<Scored>().signal.signal_score, signal.signal_score, 'recomputed');
    assert.notEqual(fresh.json<Scored>().signal.computed_at, signal.computed_at);
  });

  test('a replay never carries what the plan no longer reads: after a downgrade the key is 422', async () => {
    const caller = await developer();
    const [contract] = await db.query<{ id: string }>(
      "SELECT c.id FROM contracts c JOIN signals s ON s.contract_id = c.id WHERE s.engine_name = 'materiality' AND s.rationale IS NOT NULL LIMIT 1",
    );
    assert.ok(contract);
    const url = `/api/v1/contracts/${contract.id}/score`;
    const first = await post(caller, url, undefined, 'tiered');
    assert.equal(first.statusCode, 200, first.body);
    assert.ok(
      'rationale' in first.json<{ signal: object }>().signal,
      'the intelligence tier reads the rationale',
    );
    await db.query("UPDATE users SET plan = 'developer' WHERE id = $1", [caller.userId]);
    // Key caches learn of the change by notification: wait until a plain read is served to the new tier.
    const read = () =>
      app.inject({ url: `/api/v1/contracts/${contract.id}`, headers: { 'x-api-key': caller.raw } });
    for (let i = 0; i < 100 && (await read()).body.includes('"rationale"'); i++) await sleep(100);
    const again = await post(caller, url, undefined, 'tiered');
    assert.equal(again.statusCode, 422, again.body);
    assert.equal(again.json<Envelope>().error.code, 'idempotency_key_reused');
    assert.equal(again.body.includes('rationale'), false);
    const fresh = await post(caller, url, undefined, 'tiered-2');
    assert.equal(fresh.statusCode, 200, fresh.body);
    assert.equal('rationale' in fresh.json<{ signal: object }>().signal, false, 'absent below the tier');
  });

  test('the same key with another body, query or route is 422 idempotency_key_reused', async () => {
    const caller = await developer();
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK }, 'k')).statusCode, 201);
    const other = await post(caller, '/api/v1/webhooks', { url: `${HOOK}/2` }, 'k');
    assert.equal(other.statusCode, 422);
    assert.equal(other.json<Envelope>().error.code, 'idempotency_key_reused');
    const [contract] = await db.query<{ id: string }>('SELECT id FROM contracts LIMIT 1');
    const route = await post(caller, `/api/v1/contracts/${contract?.id}/score`, undefined, 'k');
    assert.equal(route.json<Envelope>().error.code, 'idempotency_key_reused');
    assert.equal(await webhooksOf(caller.userId), 1);
  });

  test('a repeat while the first request runs is 409 idempotency_in_progress with Retry-After', async () => {
    const caller = await developer();
    let release = () => {};
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // Hold the user's row: the first request claims its key, then waits in the handler for this lock.
    const holder = db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [caller.userId]);
      locked();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await isLocked;
    const first = post(caller, '/api/v1/webhooks', { url: HOOK }, 'slow');
    let running = 0;
    for (let i = 0; i < 50 && running === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      running = await count('idempotency_keys WHERE key_id = $1 AND status IS NULL', [caller.keyId]);
    }
    assert.equal(running, 1, 'the first request holds its key');
    const second = await post(caller, '/api/v1/webhooks', { url: HOOK }, 'slow');
    assert.equal(second.statusCode, 409);
    assert.equal(second.json<Envelope>().error.code, 'idempotency_in_progress');
    assert.equal(second.headers['retry-after'], '1');
    release();
    await holder;
    assert.equal((await first).statusCode, 201);
    const third = await post(caller, '/api/v1/webhooks', { url: HOOK }, 'slow');
    assert.equal(third.headers['idempotent-replayed'], 'true');
    assert.deepEqual(third.json(), (await first).json());
    assert.equal(await webhooksOf(caller.userId), 1);
  });

  test('answers are kept 24 hours: then the key is new again, and expired rows are swept', async () => {
    const caller = await developer();
    const start = clock;
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK }, 'daily')).statusCode, 201);
    clock = start + DAY_MS - 1000;
    const within = await post(caller, '/api/v1/webhooks', { url: HOOK }, 'daily');
    assert.equal(within.headers['idempotent-replayed'], 'true');
    clock = start + DAY_MS + 1000;
    const later = await post(caller, '/api/v1/webhooks', { url: HOOK }, 'daily');
    assert.equal(later.statusCode, 201);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    assert.equal(await webhooksOf(caller.userId), 2);
    // Every other row is older than a day now; the next claim sweeps them.
    clock += 2 * DAY_MS;
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK }, 'sweeper')).statusCode, 201);
    assert.equal(await count('idempotency_keys WHERE expires_at <= $1', [new Date(clock)]), 0);
    assert.equal(await count('idempotency_keys WHERE key_id = $1', [caller.keyId]), 1);
  });

  test('keys are scoped per API key: another key’s same value is independent', async () => {
    const one = await developer();
    const two = await developer();
    const a = await post(one, '/api/v1/webhooks', { url: HOOK }, 'shared-value');
    const b = await post(two, '/api/v1/webhooks', { url: `${HOOK}/other` }, 'shared-value');
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201, 'not 422: another key');
    assert.equal(b.headers['idempotent-replayed'], undefined);
    assert.equal(await webhooksOf(one.userId), 1);
    assert.equal(await webhooksOf(two.userId), 1);
  });

  test('4xx answers of the handler are kept; refused input and 5xx are not', async () => {
    const admin = await adminKey();
    const missing = `/api/v1/admin/users/${randomUUID()}/keys`;
    const body = { name: 'x', scopes: ['read'], mode: 'live' };
    const notFound = await post(admin, missing, body, 'nf');
    assert.equal(notFound.statusCode, 404);
    const replayed = await post(admin, missing, body, 'nf');
    assert.equal(replayed.statusCode, 404);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');

    // Refused by validation: nothing claimed, the corrected request runs under the same key.
    const caller = await developer();
    assert.equal((await post(caller, '/api/v1/webhooks', {}, 'v')).statusCode, 400);
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK, x: 1 }, 'v')).statusCode, 400);
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK }, 'v')).statusCode, 201);

    // A 5xx releases the key: the retry runs the operation.
    await db.exec(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
      $$BEGIN RAISE EXCEPTION 'refused by the test'; END$$;
      CREATE TRIGGER refuse BEFORE INSERT ON webhooks FOR EACH ROW EXECUTE FUNCTION refuse()`);
    try {
      const failed = await post(caller, '/api/v1/webhooks', { url: HOOK }, 'retry-me');
      assert.equal(failed.statusCode, 500);
    } finally {
      await db.exec('DROP TRIGGER refuse ON webhooks; DROP FUNCTION refuse()');
    }
    const retried = await post(caller, '/api/v1/webhooks', { url: HOOK }, 'retry-me');
    assert.equal(retried.statusCode, 201);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
    assert.equal(await webhooksOf(caller.userId), 2);
  });

  test('a hostile header value is 400 in the envelope naming the header, and claims nothing', async () => {
    const caller = await developer();
    for (const value of ['', 'x'.repeat(256), 'caf\u00e9', 'a\tb', ['a', 'a']]) {
      const res = await post(caller, '/api/v1/webhooks', { url: HOOK }, value);
      const what = JSON.stringify(value);
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
      const { error } = res.json<Envelope>();
      assert.equal(error.code, 'invalid_parameter', what);
      assert.match(error.message, /header "idempotency-key"|header "Idempotency-Key"/i, what);
    }
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK }, 'x'.repeat(255))).statusCode, 201);
    assert.equal((await post(caller, '/api/v1/webhooks', { url: HOOK }, '~ !"#')).statusCode, 201);
    assert.equal(await count('idempotency_keys WHERE key_id = $1', [caller.keyId]), 2);
  });

  test('secrets of stored answers never reach the logs, replays included', async () => {
    const caller = await developer();
    const before = logs.length;
    const first = await post(caller, '/api/v1/webhooks', { url: HOOK }, 'logged');
    await post(caller, '/api/v1/webhooks', { url: HOOK }, 'logged');
    const secret = first.json<{ secret: string }>().secret;
    const written = logs.slice(before).join('');
    assert.match(written, /stored answer of its Idempotency-Key/, 'the replay is logged');
    assert.equal(written.includes(secret), false);
    assert.equal(logs.join('').includes(secret), false);
  });

  test('without SECRET_KEY the header is refused with 503 rather than stored in the clear', async () => {
    const bare = await buildApp({ config: testConfig(), db, logger: false });
    await bare.ready();
    try {
      const caller = await developer();
      const res = await bare.inject({
        method: 'POST',
        url: `/api/v1/contracts/${randomUUID()}/score`,
        headers: { 'x-api-key': caller.raw, 'idempotency-key': 'k' },
      });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json<Envelope>().error.code, 'unavailable');
    } finally {
      await bare.close();
    }
  });
});
