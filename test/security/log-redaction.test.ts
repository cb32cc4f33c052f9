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

/** Every spelling of one key a client might send: decoding (percent, repeatedly) gives the key. */
function spellingsOf(raw: string): string[] {
  const full = (text: string) =>
    [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
  return [
    raw.replace('iv_', '%69v_'),
    raw.replace('live', 'l%69ve').replace('test', 't%65st'),
    raw.replace('_', '%255F'),
    raw.replace('_', '%25255f'),
    `${raw.slice(0, 20)}%${raw.charCodeAt(20).toString(16)}${raw.slice(21)}`,
    full(raw),
    full(raw).toUpperCase(),
    full(full(raw)),
    raw.replace('iv_', '\\u0069v_'),
  ];
}

/** The text, and each of its decodings (percent and JSON escapes), as far as they go. */
function decodings(text: string): string[] {
  const out = [text];
  for (let i = 0; i < 10; i += 1) {
    const next = (out.at(-1) ?? '')
      .replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
      .replace(/\\\\u([0-9a-f]{4})|\\u([0-9a-f]{4})/gi, (_, a?: string, b?: string) =>
        String.fromCharCode(Number.parseInt(a ?? b ?? '', 16)),
      );
    if (next === out.at(-1)) break;
    out.push(next);
  }
  return out;
}

const assertNoKey = (logs: string, raw: string, what: string) => {
  for (const text of decodings(logs)) assert.ok(!text.includes(secretOf(raw)), `${what}: ${logs}`);
};

describe('keys spelled with escapes', () => {
  test('are redacted from logged URLs (path and query), live and test keys alike', async () => {
    for (const mode of ['live', 'test'] as const) {
      const { raw } = await makeKey(db, { plan: 'developer', mode });
      for (const spelled of spellingsOf(raw)) {
        for (const url of [
          `/api/v1/companies/${spelled}`,
          `/api/v1/events?q=${spelled}`,
          `/nowhere/x%2F${spelled}`,
        ]) {
          const logs = await logsOf(() => app.inject({ url }));
          assertNoKey(logs, raw, url);
        }
      }
    }
  });

  test('are redacted from log messages, logged headers and bodies, and errors', async () => {
    const { raw } = await makeKey(db, { mode: 'test' });
    for (const spelled of spellingsOf(raw)) {
      const logs = await logsOf(async () => {
        app.log.info(`Route GET:/x/${spelled} not found`);
        // Node's parsed headers may have no prototype: they are walked as well.
        const headers = Object.assign(Object.create(null), { referer: `https://a.example/?q=${spelled}` });
        app.log.warn({ headers, body: { note: [spelled] } }, 'seen');
        app.log.error({ err: new Error(`bad URL /x?q=${spelled}`) }, 'failed');
      });
      assertNoKey(logs, raw, spelled);
      assert.match(logs, /iv_test_\[redacted\]/);
    }
  });

  test('text that only looks encoded is left as it is', async () => {
    const logs = await logsOf(async () => app.log.info('/api/v1/events?q=100%25%20sure&agency=iv%2Dx'));
    assert.match(logs, /100%25%20sure&agency=iv%2Dx/);
  });
});
