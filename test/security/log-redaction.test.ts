import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, makeKey, testConfig } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
let app: App;
let lines: string[] = [];

before(async () => {
  db = await freshDb();
  app = await buildApp({
    config: testConfig({ LOG_LEVEL: 'trace' }),
    db,
    logStream: { write: (line: string) => void lines.push(line) },
  });
  await app.ready();
});
after(() => closeApp(app, db));

/** The log lines written while `fn` ran; fails when nothing was logged (nothing to prove). */
async function logsOf(fn: () => Promise<unknown>): Promise<string> {
  lines = [];
  await fn();
  assert.ok(lines.length > 0, 'the request wrote no log lines');
  return lines.join('');
}

const secretOf = (raw: string) => raw.replace(/^iv_(live|test)_/, '');

describe('request logs', () => {
  test('never contain a raw key sent as ?api_key=', async () => {
    const { raw } = await makeKey(db, { plan: 'developer' });
    const logs = await logsOf(() => app.inject({ url: `/api/v1/events?limit=5&api_key=${raw}` }));
    assert.ok(!logs.includes(secretOf(raw)), logs);
    assert.match(logs, /"url":"\/api\/v1\/events\?limit=5&api_key=\[redacted\]"/);
  });

  test('never contain a key-shaped token anywhere in the URL, underscores encoded or not', async () => {
    const { raw } = await makeKey(db, { plan: 'developer', mode: 'test' });
    const encoded = raw.replaceAll('_', '%5F');
    for (const url of [`/api/v1/companies/${raw}`, `/api/v1/events?q=${encoded}`, `/nowhere/${raw}?x=1`]) {
      const logs = await logsOf(() => app.inject({ url, headers: { 'x-api-key': raw } }));
      assert.ok(!logs.includes(secretOf(raw)), `${url}: ${logs}`);
    }
  });

  test('log messages quoting a URL, and errors logged with err, are redacted too', async () => {
    const { raw } = await makeKey(db);
    const logs = await logsOf(async () => {
      app.log.info(`Route GET:/x/${raw} not found`);
      app.log.error({ err: new Error(`bad URL /x?k=${raw}`) }, 'failed');
    });
    assert.ok(!logs.includes(secretOf(raw)), logs);
    assert.match(logs, /Route GET:\/x\/iv_live_\[redacted\] not found/);
    assert.match(logs, /bad URL \/x\?k=iv_live_\[redacted\]/);
  });

  test('never contain the session cookie, the set-cookie header or the x-csrf-token', async () => {
    const email = `logs-${process.pid}@example.test`;
    const password = 'correct horse battery';
    const signUp = await app.inject({
      method: 'POST',
      url: '/dashboard/api/signup',
      payload: { email, password },
    });
    assert.equal(signUp.statusCode, 202, signUp.body);
    let cookie = '';
    let csrf = '';
    const signInLogs = await logsOf(async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/dashboard/api/signin',
        payload: { email, password },
      });
      assert.equal(res.statusCode, 200, res.body);
      cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
      csrf = res.json<{ csrf_token: string }>().csrf_token;
    });
    const session = cookie.split('=')[1] ?? '';
    assert.ok(session.length > 10 && csrf.length > 10);
    const signOutLogs = await logsOf(async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/dashboard/api/signout',
        headers: { cookie, 'x-csrf-token': csrf },
      });
      assert.ok(res.statusCode < 300, res.body);
    });
    for (const logs of [signInLogs, signOutLogs]) {
      assert.ok(!logs.includes(session), logs);
      assert.ok(!logs.includes(csrf), logs);
      assert.ok(!/set-cookie|x-csrf-token/i.test(logs), logs);
    }
  });
});
