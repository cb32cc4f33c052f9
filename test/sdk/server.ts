/** The app on the seeded demo database, listening on a local port, for the SDK's tests. */
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { testConfig } from '../support/app.ts';
import { seededDb } from '../support/db.ts';

export interface LiveServer {
  db: Db;
  app: App;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startLiveServer(build: (db: Db) => Promise<App> = defaultApp): Promise<LiveServer> {
  const db = await seededDb();
  const app = await build(db);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  return {
    db,
    app,
    baseUrl: `http://127.0.0.1:${address.port}`,
    close: async () => {
      await app.close();
      await db.close();
    },
  };
}

const defaultApp = (db: Db) => buildApp({ config: testConfig(), db, logger: false });

/** A fetch that remembers every request it passed on and the status and headers of each answer. */
export function recordingFetch() {
  const calls: { method: string; url: string; status: number; headers: Headers }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    calls.push({
      method: init?.method ?? 'GET',
      url: String(input),
      status: response.status,
      headers: response.headers,
    });
    return response;
  };
  return { calls, fetch: fetchFn };
}
