/**
 * Bench users and their API keys, made the way an operator would: one admin user and key through the
 * CLI (`users create`, `keys create`), then users on a plan and their live keys through the running
 * server's admin API. Every bench user's email is `bench-<run>-…@bench.invalid`.
 */

import pg from 'pg';
import { Pool } from 'undici';
import { PLAN_LIMITS, type Plan } from '../src/domain/plans.ts';
import { runCli, sleep } from './server-process.ts';

export const BENCH_EMAILS = 'bench-%@bench.invalid';

/** This run's stamp in bench users' emails. */
export const RUN = `${Date.now().toString(36)}-${process.pid}`;

/** Creates this run's admin user and an admin key with the CLI (server stopped in embedded mode); the raw key. */
export async function cliAdminKey(env: Record<string, string>): Promise<string> {
  const email = `bench-${RUN}-admin@bench.invalid`;
  await runCli(['users', 'create', '--email', email, '--admin', '--plan', 'institutional'], env);
  const out = await runCli(
    ['keys', 'create', '--email', email, '--name', 'bench admin', '--scopes', 'read,admin', '--json'],
    env,
  );
  return (JSON.parse(out) as { key: string }).key;
}

/** POSTs JSON with the admin key; waits out 429s (the admin key has its own per-minute limit). */
async function post<T>(pool: Pool, path: string, adminKey: string, body: unknown): Promise<T> {
  for (;;) {
    const res = await pool.request({
      method: 'POST',
      path,
      headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode === 201) return JSON.parse(text) as T;
    if (res.statusCode !== 429)
      throw new Error(`POST ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    await sleep(1000 * Math.max(1, Number(res.headers['retry-after'] ?? 1)));
  }
}

/** `count` live read keys of users on `plan` (as many users as the plan's key cap needs), by the admin API. */
export async function provisionKeys(
  port: number,
  adminKey: string,
  plan: Plan,
  count: number,
  label: string,
): Promise<string[]> {
  const perUser = PLAN_LIMITS[plan].maxLiveKeys;
  if (perUser === 0) throw new Error(`the ${plan} plan has no live keys`);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 4 });
  const keys: string[] = [];
  try {
    for (let u = 0; keys.length < count; u++) {
      const { user } = await post<{ user: { id: string } }>(pool, '/api/v1/admin/users', adminKey, {
        email: `bench-${RUN}-${label}-${u}@bench.invalid`,
        plan,
      });
      const batch = Math.min(perUser, count - keys.length);
      const issued = await Promise.all(
        Array.from({ length: batch }, (_, k) =>
          post<{ secret: string }>(pool, `/api/v1/admin/users/${user.id}/keys`, adminKey, {
            name: `bench ${k}`,
            scopes: ['read'],
            mode: 'live',
          }),
        ),
      );
      keys.push(...issued.map((i) => i.secret));
    }
    return keys;
  } finally {
    await pool.close();
  }
}

/**
 * Deletes bench users (keys and sessions cascade) and their usage rows from a PostgreSQL database:
 * this run's, or with `stale`, those of earlier runs older than an hour (left by a kill -9).
 */
export async function removeBenchUsers(databaseUrl: string, which: 'this run' | 'stale'): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const users =
      which === 'this run'
        ? await client.query<{ id: string }>('SELECT id FROM users WHERE email LIKE $1', [
            `bench-${RUN}-%@bench.invalid`,
          ])
        : await client.query<{ id: string }>(
            `SELECT id FROM users WHERE email LIKE $1 AND created_at < now() - interval '1 hour'`,
            [BENCH_EMAILS],
          );
    const ids = users.rows.map((r) => r.id);
    if (!ids.length) return 0;
    await client.query(
      'DELETE FROM usage_minutely WHERE key_id IN (SELECT id FROM api_keys WHERE user_id = ANY($1::uuid[]))',
      [ids],
    );
    await client.query('DELETE FROM users WHERE id = ANY($1::uuid[])', [ids]);
    return ids.length;
  } finally {
    await client.end();
  }
}
