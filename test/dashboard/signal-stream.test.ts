/**
 * The Explorer's event streams are a per-user resource tied to the session that opened them: a user
 * holds at most MAX_STREAMS_PER_USER (429 past it, while other users still get theirs), and a stream
 * ends — with a last `end` event — when its session is signed out (here at once, in another process
 * within SESSION_RECHECK_MS) or expires.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { openSession, SESSION_COOKIE, sessionHash } from '../../src/dashboard/sessions.ts';
import { MAX_STREAMS_PER_USER, SessionStreams } from '../../src/dashboard/streams.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { insertSession } from '../../src/store/sessions.ts';
import { type Envelope, listenLocally, makeKey, testApp } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
let app: App;
let base: string;
const opened: IncomingMessage[] = [];

before(async () => {
  db = await freshDb();
  app = await testApp(db);
  base = await listenLocally(app);
});
after(async () => {
  for (const res of opened) res.destroy();
  await app.close();
  await db.close();
});

interface Session {
  userId: string;
  token: string;
  csrf: string;
  cookie: string;
}

async function signIn(userId?: string): Promise<Session> {
  const user = userId ?? (await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] })).userId;
  const { token, csrfToken } = await openSession(db, user, new Date());
  return { userId: user, token, csrf: csrfToken, cookie: `${SESSION_COOKIE}=${token}` };
}

interface Stream {
  res: IncomingMessage;
  text: () => string;
  /** Resolves with the whole body once the server ends the response. */
  ended: Promise<string>;
}

/** Opens the stream and waits for its `ready` event. */
async function openStream(session: Session, at = base): Promise<Stream> {
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`${at}/dashboard/api/signal-stream`, { headers: { cookie: session.cookie } }, resolve).on(
      'error',
      reject,
    ),
  );
  opened.push(res);
  assert.equal(res.statusCode, 200);
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
  });
  const ended = new Promise<string>((resolve) => res.once('end', () => resolve(text)));
  await until('the stream is ready', async () => text.includes('event: ready'));
  return { res, text: () => text, ended };
}

/** A request for a stream that is refused (inject would never return for one that opens). */
const streamRefusal = (session: Session) =>
  app.inject({ url: '/dashboard/api/signal-stream', headers: { cookie: session.cookie } });

/** The status a new stream would get: it is closed at once when it opens. */
const streamStatus = (session: Session) =>
  new Promise<number>((resolve, reject) =>
    get(`${base}/dashboard/api/signal-stream`, { headers: { cookie: session.cookie } }, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    }).on('error', reject),
  );

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const endEvent = (reason: string) =>
  new RegExp(`event: end\\ndata: \\{"reason":"${reason}","at":"[^"]+"\\}\\n\\n$`);

describe('per-user cap', () => {
  test(`a user holds at most ${MAX_STREAMS_PER_USER} streams over all sessions (429); other users still get theirs`, async () => {
    const first = await signIn();
    const second = await signIn(first.userId);
    const mine: Stream[] = [];
    for (let i = 0; i < MAX_STREAMS_PER_USER; i++) mine.push(await openStream(i % 2 ? second : first));
    for (const session of [first, second]) {
      const refused = await streamRefusal(session);
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.headers['retry-after'], '30');
      const error = refused.json<Envelope>().error;
      assert.deepEqual([error.status, error.code], [429, 'rate_limited']);
    }
    const other = await openStream(await signIn());
    other.res.destroy();

    mine[0]?.res.destroy();
    await until('a closed stream frees its place', async () => (await streamStatus(first)) === 200);
    for (const stream of mine) stream.res.destroy();
  });
});

describe('streams end with their session', () => {
  test('signing out ends the session’s streams at once with an end event; another session’s stay open', async () => {
    const session = await signIn();
    const otherSession = await signIn(session.userId);
    const streams = [await openStream(session), await openStream(session)];
    const kept = await openStream(otherSession);
    const out = await app.inject({
      method: 'POST',
      url: '/dashboard/api/signout',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    assert.equal(out.statusCode, 204, out.body);
    for (const stream of streams) assert.match(await stream.ended, endEvent('signed_out'));
    assert.equal(kept.res.complete, false, 'the other session’s stream is open');
    assert.doesNotMatch(kept.text(), /event: end/);
    kept.res.destroy();
    assert.equal(await streamStatus(session), 401, 'the signed-out cookie opens nothing');
  });

  test('a session signed out in another process ends the stream here within the re-check', async () => {
    const other = await testApp(db);
    try {
      const session = await signIn();
      const stream = await openStream(session);
      const out = await other.inject({
        method: 'POST',
        url: '/dashboard/api/signout',
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      });
      assert.equal(out.statusCode, 204, out.body);
      assert.match(await stream.ended, endEvent('signed_out'));
    } finally {
      await other.close();
    }
  });

  test('a stream ends when its session expires', async () => {
    const { userId } = await makeKey(db, { plan: 'developer', mode: 'test', scopes: ['read'] });
    const token = `expiring-${Date.now()}`;
    const now = new Date();
    await insertSession(db, {
      tokenHash: sessionHash(token),
      userId,
      csrfToken: 'csrf',
      expiresAt: new Date(now.getTime() + 1_500).toISOString(),
      now: now.toISOString(),
    });
    const stream = await openStream({ userId, token, csrf: 'csrf', cookie: `${SESSION_COOKIE}=${token}` });
    assert.match(await stream.ended, endEvent('expired'));
  });
});

describe('SessionStreams re-check', () => {
  test('one query ends the streams of sessions that are gone, and only those', async () => {
    const live = await signIn();
    const gone = await signIn();
    const streams = new SessionStreams(db, () => new Date(), 60_000);
    const ends: string[] = [];
    for (const session of [live, gone]) {
      const res = new EventEmitter() as unknown as ServerResponse;
      streams.add(
        {
          userId: session.userId,
          session: sessionHash(session.token),
          res,
          end: () => ends.push(session.token),
        },
        new Date(Date.now() + 3_600_000).toISOString(),
      );
    }
    await db.query('DELETE FROM sessions WHERE token_hash = $1', [sessionHash(gone.token)]);
    await streams.recheck();
    assert.deepEqual(ends, [gone.token]);
    streams.endAll();
    assert.deepEqual(ends, [gone.token, live.token, gone.token]);
  });
});
