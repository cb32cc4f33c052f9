/**
 * GET /metrics: scraped, requests made, scraped again — the request series by route template, the
 * rate-limit refusals, the caches, the pool, the ingest counters and the webhook attempts move.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { attemptOutcome } from '../../src/webhooks/worker.ts';
import { type Injector, makeKey, withKey } from '../support/app.ts';
import { freshDb } from '../support/db.ts';
import { recordedBulkRecords } from '../support/fake-usaspending.ts';
import {
  enqueue,
  makeWebhook,
  statusOf,
  testResolver,
  waitUntil,
  webhookConfig,
} from '../webhooks/helpers.ts';
import { type Certificate, makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.ts';

let certificate: Certificate;
let receiver: Receiver;
let db: Db;
let app: App;
let admin: Injector;

before(async () => {
  certificate = makeCertificate();
  receiver = await startReceiver(certificate, () => ({ status: 200 }));
  db = await freshDb();
  // The app as `serve` builds it, with the delivery worker in process.
  app = await buildApp({
    config: webhookConfig(certificate),
    db,
    logger: false,
    webhooks: { worker: true, resolve: testResolver, pollMs: 50 },
  });
  await app.ready();
  admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
});
after(async () => {
  await app.close();
  await db.close();
  await receiver.close();
  certificate.cleanup();
});

/** A scrape: each sample line as its name, its labels and its value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

async function scrape(): Promise<Sample[]> {
  const res = await admin.inject({ url: '/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  return res.body
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(match, `a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

const has = (samples: Sample[], name: string) => samples.some((s) => s.name === name);

describe('GET /metrics', () => {
  test('request counts and durations by route template, 429s, caches and the pool move between scrapes', async () => {
    const before = await scrape();
    const reader = withKey(app, (await makeKey(db)).raw);
    for (const id of ['AWARD-ONE', 'AWARD-TWO', 'AWARD-THREE']) {
      const res = await reader.inject({ url: `/api/v1/contracts/${id}` });
      assert.equal(res.statusCode, 404, res.body);
    }
    assert.equal((await reader.inject({ url: '/no/such/path' })).statusCode, 404);
    // A test key's window is 30 a minute: the 31st is refused.
    const limited = withKey(app, (await makeKey(db, { mode: 'test', plan: 'developer' })).raw);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i += 1)
      statuses.push((await limited.inject({ url: '/api/v1/contracts/AWARD-ONE' })).statusCode);
    assert.deepEqual([statuses.filter((s) => s === 404).length, statuses.at(-1)], [30, 429]);

    const after = await scrape();
    const route = { method: 'GET', route: '/api/v1/contracts/:id', status_code: '404' };
    const moved = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    assert.equal(moved('market_intel_http_requests_total', route), 33);
    assert.equal(moved('market_intel_http_request_duration_seconds_count', route), 33);
    assert.equal(moved('market_intel_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }), 33);
    assert.ok(moved('market_intel_http_request_duration_seconds_sum', route) > 0);
    assert.equal(
      moved('market_intel_http_requests_total', { route: '/api/v1/contracts/:id', status_code: '429' }),
      1,
    );
    assert.equal(moved('market_intel_http_requests_total', { route: 'unmatched', status_code: '404' }), 1);
    // The scrape itself is counted under its own template.
    assert.ok(
      value(after, 'market_intel_http_requests_total', { route: '/metrics', status_code: '200' }) >= 1,
    );
    const routes = new Set(
      after.filter((s) => s.name === 'market_intel_http_requests_total').map((s) => s.labels.route),
    );
    assert.ok(
      [...routes].every((r) => r === 'unmatched' || !/AWARD|no\/such/.test(r ?? '')),
      `never a raw URL: ${[...routes].join(', ')}`,
    );

    assert.equal(moved('market_intel_rate_limited_total', { limit: 'key' }), 1);
    assert.ok(moved('market_intel_cache_lookups_total', { cache: 'keys', result: 'hit' }) >= 30);
    assert.ok(value(after, 'market_intel_key_cache_entries') >= 2);
    assert.ok(has(after, 'market_intel_cache_lookups_total'));
    for (const series of [
      'market_intel_db_pool_connections',
      'market_intel_db_pool_idle_connections',
      'market_intel_db_pool_waiting_queries',
    ])
      assert.ok(has(after, series), series);
    assert.equal(value(after, 'market_intel_db_pool_max_connections'), 10);
    assert.ok(value(after, 'market_intel_db_pool_connections') >= 1);
  });

  test('admin ingests count awards by result', async () => {
    const before = await scrape();
    const awards = recordedBulkRecords().slice(0, 3);
    const res = await admin.inject({
      method: 'POST',
      url: '/api/v1/admin/ingest',
      payload: { awards: [...awards, 'not a record'] },
    });
    assert.equal(res.statusCode, 200, res.body);
    const counts = res.json<{ inserted: number; signals_created: number }>();
    assert.ok(counts.inserted > 0);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    assert.equal(
      moved('market_intel_ingest_awards_total', { source: 'admin', result: 'inserted' }),
      counts.inserted,
    );
    assert.equal(moved('market_intel_ingest_awards_total', { source: 'admin', result: 'rejected' }), 1);
    assert.equal(
      moved('market_intel_ingest_signals_created_total', { source: 'admin' }),
      counts.signals_created,
    );
  });

  test("webhook attempts by outcome, from the app's own worker", async () => {
    const before = await scrape();
    const config = webhookConfig(certificate);
    const hook = await makeWebhook(db, config, `${receiver.url}/metrics-hook`);
    const [delivery] = await enqueue(db, hook.webhookId, [{ n: 1 }]);
    assert.ok(delivery);
    await waitUntil('the delivery', async () => (await statusOf(db, delivery.id))?.status === 'succeeded');
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    assert.equal(moved('market_intel_webhook_attempts_total', { outcome: 'succeeded' }), 1);
    assert.equal(moved('market_intel_webhook_attempt_duration_seconds_count', { outcome: 'succeeded' }), 1);
    assert.equal(value(after, 'market_intel_webhook_attempts_total', { outcome: 'timeout' }), 0);
  });

  test("an attempt's outcome is read from its status, else from its error", () => {
    const sent = { ok: false, sent: true, statusCode: null };
    assert.equal(attemptOutcome({ ...sent, ok: true, statusCode: 204, error: null }), 'succeeded');
    assert.equal(attemptOutcome({ ...sent, statusCode: 500, error: 'HTTP 500' }), 'http_error');
    assert.equal(
      attemptOutcome({ ...sent, statusCode: 301, error: 'redirect (HTTP 301) not followed' }),
      'http_error',
    );
    assert.equal(attemptOutcome({ ...sent, error: 'timeout after 1500 ms' }), 'timeout');
    assert.equal(attemptOutcome({ ...sent, error: 'connection error: ECONNREFUSED' }), 'connection_error');
    assert.equal(attemptOutcome({ ...sent, error: 'refused: 10.0.0.1 is not allowed' }), 'refused');
    assert.equal(attemptOutcome({ ...sent, sent: false, error: 'webhook deleted' }), 'refused');
  });

  test('the Grafana dashboard in docs/ queries only series the scrape has', async () => {
    const res = await admin.inject({ url: '/metrics' });
    const families = new Set([...res.body.matchAll(/^# HELP (\w+) /gm)].map((m) => m[1]));
    const dashboard = readFileSync(new URL('../../docs/grafana-market-intel.json', import.meta.url), 'utf8');
    const parsed = JSON.parse(dashboard) as { templating: { list: { name: string; type: string }[] } };
    assert.ok(parsed.templating.list.some((v) => v.name === 'datasource' && v.type === 'datasource'));
    const queried = new Set([...dashboard.matchAll(/market_intel_\w+/g)].map((m) => m[0]));
    assert.ok(queried.size > 10);
    for (const name of queried) {
      const family = families.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
      assert.ok(families.has(family), `${name} is served`);
    }
  });

  test('REQUEST_METRICS=off leaves the requests uncounted, and only them', async () => {
    const quiet = await buildApp({
      config: { ...webhookConfig(certificate), requestMetrics: false },
      db,
      logger: false,
    });
    await quiet.ready();
    try {
      const client = withKey(quiet, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
      for (let i = 0; i < 3; i++)
        assert.equal((await client.inject({ url: '/api/v1/health' })).statusCode, 200);
      const res = await client.inject({ url: '/metrics' });
      assert.equal(res.statusCode, 200);
      assert.doesNotMatch(res.body, /^market_intel_http_request/m);
      assert.match(res.body, /^market_intel_db_up 1$/m);
    } finally {
      await quiet.close();
    }
  });
});
