import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';

export const testConfig = (env: Record<string, string> = {}) => loadConfig({ LOG_LEVEL: 'silent', ...env });

export async function testApp(db: Db, env: Record<string, string> = {}): Promise<App> {
  const app = await buildApp({ config: testConfig(env), db, logger: false });
  await app.ready();
  return app;
}

export interface Envelope {
  error: { status: number; message: string; code: string };
}

/** GETs a path and parses the JSON body. */
export async function getJson<T = unknown>(app: App, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, headers: res.headers, body: res.json() as T };
}
