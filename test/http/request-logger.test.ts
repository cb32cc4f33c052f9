import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { access } from '../../src/http/access.ts';
import { RequestLogger } from '../../src/http/logging.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, makeKey, testConfig } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

/**
 * A request's logger is made only when the request logs (http/logging.ts, RequestLogger): the same
 * lines as pino's child, none of its cost on a request that logs nothing.
 */
let db: Db;
const apps: App[] = [];

async function appAt(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const app = await buildApp({
    config: testConfig({ LOG_LEVEL: level }),
    db,
    logStream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  let made = 0;
  let seen: unknown = null;
  app.get('/test/logs', { config: access.public }, async (request) => {
    seen = request.log;
    request.log.info({ step: 'info' }, 'an info line');
    request.log.warn({ step: 'warn' }, 'a warn line');
    return { ok: true };
  });
  app.get('/test/quiet', { config: access.public }, async (request) => {
    seen = request.log;
    request.log.debug('not at warn');
    return { ok: true };
  });
  await app.ready();
  // Every request's child comes from the app's root logger: count the children made of it.
  const root = app.log as unknown as { child: (this: unknown, ...args: unknown[]) => unknown };
  const child = root.child;
  root.child = function (this: unknown, ...args: unknown[]) {
    if (this === root) made += 1;
    return child.apply(this, args);
  };
  apps.push(app);
  return { app, lines, made: () => made, seen: () => seen };
}

before(async () => {
  db = await freshDb();
});
after(async () => {
  for (const app of apps.slice(1)) await app.close();
  await closeApp(apps[0] as App, db);
});

describe('request loggers', () => {
  test('at warn, a cached read and a request logging below warn make no child logger', async () => {
    const at = await appAt('warn');
    const { raw } = await makeKey(db, { plan: 'developer' });
    for (let i = 0; i < 3; i++) {
      const res = await at.app.inject({ url: '/api/v1/events?limit=5', headers: { 'x-api-key': raw } });
      assert.equal(res.statusCode, 200);
    }
    const quiet = await at.app.inject({ url: '/test/quiet' });
    assert.equal(quiet.statusCode, 200);
    assert.ok(at.seen() instanceof RequestLogger);
    assert.equal((at.seen() as RequestLogger).isMade, false);
    assert.equal(at.made(), 0);
    assert.deepEqual(at.lines, []);
  });

  test('a line at an enabled level goes through one child, bound to the request id, as before', async () => {
    const at = await appAt('warn');
    const res = await at.app.inject({ url: '/test/logs', headers: { 'x-request-id': 'req-logger-1' } });
    assert.equal(res.statusCode, 200);
    assert.equal(at.made(), 1);
    assert.equal(at.lines.length, 1);
    const [line] = at.lines;
    assert.equal(line?.reqId, 'req-logger-1');
    assert.equal(line?.msg, 'a warn line');
    assert.equal(line?.step, 'warn');
    assert.equal(line?.level, 40);
  });

  test('at info, every line of a request (Fastify’s own included) carries its id, one child per request', async () => {
    const at = await appAt('info');
    const res = await at.app.inject({ url: '/test/logs', headers: { 'x-request-id': 'req-logger-2' } });
    assert.equal(res.statusCode, 200);
    assert.equal(at.made(), 1);
    const messages = at.lines.map((line) => line.msg);
    assert.deepEqual(messages, ['incoming request', 'an info line', 'a warn line', 'request completed']);
    for (const line of at.lines) assert.equal(line.reqId, 'req-logger-2');
    assert.equal(at.lines[0]?.req && (at.lines[0].req as { url: string }).url, '/test/logs');
  });

  test('reads the level it would have had, and a child of it binds both', async () => {
    const at = await appAt('warn');
    await at.app.inject({ url: '/test/quiet' });
    const log = at.seen() as RequestLogger;
    assert.equal(log.level, 'warn');
    assert.equal(log.isLevelEnabled('warn'), true);
    assert.equal(log.isLevelEnabled('info'), false);
    assert.equal(log.isMade, false);
    (log.child({ part: 'x' }) as unknown as { warn(msg: string): void }).warn('from a grandchild');
    assert.equal(at.lines.at(-1)?.part, 'x');
    assert.equal(typeof at.lines.at(-1)?.reqId, 'string');
  });
});
