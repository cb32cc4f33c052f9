import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { KeyMode, Plan, Scope } from '../../src/domain/plans.ts';
import type { App } from '../../src/http/types.ts';
import { createAccount, issueKey } from '../../src/services/accounts.ts';
import type { Db } from '../../src/store/db.ts';

export const testConfig = (env: Record<string, string> = {}) => loadConfig({ LOG_LEVEL: 'silent', ...env });

export async function testApp(
  db: Db,
  env: Record<string, string> = {},
  options: Pick<AppDeps, 'limiter' | 'now' | 'notifications' | 'caches'> = {},
): Promise<App> {
  const app = await buildApp({ config: testConfig(env), db, logger: false, ...options });
  await app.ready();
  return app;
}

/**
 * After a write made outside the app (plain SQL, a store function): returns once the app has received
 * the notifications of everything committed so far, so its caches have dropped what the write changed.
 * Writes through the app's own API need none.
 */
export async function settled(app: App): Promise<void> {
  await app.caches.bus?.sync();
}

export interface Envelope {
  error: { status: number; message: string; code: string };
}

/** Anything that answers `inject`: the app itself, or a client that adds a key. */
export interface Injector {
  inject(options: InjectOptions | string): Promise<LightMyRequestResponse>;
}

let serial = 0;

/** A user on `plan` with one key; returns the raw key and ids. */
export async function makeKey(
  db: Db,
  options: { plan?: Plan; mode?: KeyMode; scopes?: Scope[]; admin?: boolean } = {},
): Promise<{ raw: string; keyId: string; userId: string }> {
  serial += 1;
  const user = await createAccount(db, {
    email: `user${serial}-${process.pid}-${Date.now()}@example.test`,
    plan: options.plan ?? 'institutional',
    isAdmin: options.admin ?? false,
  });
  const { key, secret } = await issueKey(db, {
    userId: user.id,
    name: `test key ${serial}`,
    scopes: options.scopes ?? ['read', 'write'],
    mode: options.mode ?? 'live',
  });
  return { raw: secret, keyId: key.id, userId: user.id };
}

/** Sends every request with `x-api-key`. */
export function withKey(app: Injector, raw: string): Injector {
  return {
    inject: (options) => {
      const opts = typeof options === 'string' ? { url: options } : options;
      return app.inject({ ...opts, headers: { ...(opts.headers ?? {}), 'x-api-key': raw } });
    },
  };
}

/** An institutional live key with read and write: reaches every data endpoint at 3000 rpm. */
export async function keyedClient(app: Injector, db: Db): Promise<Injector> {
  return withKey(app, (await makeKey(db)).raw);
}

/** GETs a path and parses the JSON body. */
export async function getJson<T = unknown>(app: Injector, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, headers: res.headers, body: res.json() as T };
}

/** The usual fixture of an http test file: the seeded demo database, the app, and a keyed client. */
export async function openSeededApp(): Promise<{ db: Db; app: App; client: Injector }> {
  const { seededDb } = await import('./db.ts');
  const db = await seededDb();
  const app = await testApp(db);
  return { db, app, client: await keyedClient(app, db) };
}

export async function closeApp(app: App, db: Db): Promise<void> {
  await app.close();
  await db.close();
}

/** Starts `app` listening on a free loopback port, for a real client (a browser, fetch); its base URL. */
export async function listenLocally(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address !== 'object') throw new Error('the app is not listening on a port');
  return `http://127.0.0.1:${address.port}`;
}
