/**
 * Hostile input on every operation of the OpenAPI document: each query and path parameter, and each
 * top-level field of a JSON body, gets a battery of bad values while everything else stays valid.
 * Nothing may answer 5xx; every 4xx leaves in the envelope; a typed parameter's bad value is a 400 that
 * names it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/types.ts';
import type { LimitDecision } from '../../src/infra/limiter.ts';
import { MemoryLimiter } from '../../src/infra/memory-limiter.ts';
import type { Db } from '../../src/store/db.ts';
import { createWebhook } from '../../src/webhooks/service.ts';
import { TargetPolicy } from '../../src/webhooks/target.ts';
import { closeApp, type Envelope, makeKey, testApp } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import {
  HOSTILE_CURSORS,
  hostileRecords,
  isTyped,
  JSON_VALUES,
  mustRefuse,
  type Parameter,
  RAW_BODIES,
  type SchemaObject,
  URL_VALUES,
  validSample,
} from '../support/hostile.ts';

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: SchemaObject }> };
  responses: Record<string, unknown>;
}

interface Target {
  method: string;
  /** The path as the document spells it: `/api/v1/contracts/{id}`. */
  path: string;
  op: Operation;
}

/**
 * Admits every request, so thousands of them never meet the per-minute limit; the rest as in memory.
 * Both paths: the access hook asks hitSync() of a limiter in this process.
 */
class AdmitAll extends MemoryLimiter {
  override hitSync(_bucket: string, limit: number, windowMs: number, now = Date.now()): LimitDecision {
    return { allowed: true, limit, remaining: limit, resetAt: now + windowMs };
  }

  override async hit(
    bucket: string,
    limit: number,
    windowMs: number,
    now = Date.now(),
  ): Promise<LimitDecision> {
    return this.hitSync(bucket, limit, windowMs, now);
  }
}

let db: Db;
let app: App;
let apiKey: string;
/** Valid path values: users and keys of a bystander, so admin calls never touch the caller's own key. */
const samples: Record<string, string> = {};
const observed = new Map<string, Set<number>>();

before(async () => {
  db = await seededDb();
  app = await testApp(db, {}, { limiter: new AdmitAll() });
  const caller = await makeKey(db, {
    plan: 'institutional',
    scopes: ['read', 'write', 'admin'],
    admin: true,
  });
  apiKey = caller.raw;
  const bystander = await makeKey(db, { plan: 'developer' });
  const [contract] = await db.query<{ id: string }>(
    'SELECT id FROM contracts WHERE ticker IS NOT NULL LIMIT 1',
  );
  assert.ok(contract);
  const { webhook } = await createWebhook(
    {
      db,
      secretKey: null,
      policy: new TargetPolicy(),
      resolve: async () => [{ address: '93.184.216.34', family: 4 }],
      now: () => new Date(),
      secretOverlapMs: 0,
    },
    { userId: caller.userId, url: 'https://hooks.example.com/in' },
  );
  Object.assign(samples, {
    contracts: contract.id,
    users: bystander.userId,
    keys: bystander.keyId,
    webhooks: webhook.id,
    deliveries: randomUUID(),
  });
});
after(() => closeApp(app, db));

function operations(): Target[] {
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** A valid value for a path parameter, chosen by the resource the path names before it. */
function pathSample(path: string, param: Parameter): string {
  if (param.name === 'ticker') return 'LMT';
  const resource = /\/([a-z-]+)\/\{[^}]+\}(?:\/[^{]*)?$/.exec(path)?.[1] ?? '';
  return samples[resource] ?? String(validSample(param.schema, param.name));
}

const querySample = (param: Parameter) =>
  param.name === 'ticker' ? 'SPY' : String(validSample(param.schema, param.name));

function bodyFields(op: Operation): Record<string, SchemaObject> {
  return op.requestBody?.content['application/json']?.schema.properties ?? {};
}

/** Raw JSON text of a valid body, with `override` spliced in as raw text for one field. */
function bodyText(op: Operation, override?: [string, string]): string | undefined {
  if (!op.requestBody) return undefined;
  const fields = bodyFields(op);
  const required = op.requestBody.content['application/json']?.schema.required ?? [];
  const entries = Object.entries(fields)
    .filter(([name]) => required.includes(name) || name === override?.[0])
    .map(([name, schema]) => [
      name,
      name === override?.[0] ? override[1] : JSON.stringify(validSample(schema, name)),
    ]);
  return `{${entries.map(([name, text]) => `${JSON.stringify(name)}:${text}`).join(',')}}`;
}

interface Call {
  target: Target;
  path?: [string, string];
  query?: string;
  body?: string | Buffer;
}

async function send({ target, path, query, body }: Call): Promise<LightMyRequestResponse> {
  const params = (target.op.parameters ?? []).filter((p) => p.in === 'path');
  let url = target.path;
  for (const param of params) {
    const value = path?.[0] === param.name ? path[1] : encodeURIComponent(pathSample(target.path, param));
    url = url.replace(`{${param.name}}`, value);
  }
  const required = (target.op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
  const fixed = required.filter((p) => !query?.startsWith(`${p.name}=`));
  const parts = [...fixed.map((p) => `${p.name}=${encodeURIComponent(querySample(p))}`), query].filter(
    Boolean,
  );
  const payload = body ?? bodyText(target.op);
  const res = await app.inject({
    method: target.method as 'GET',
    url: parts.length ? `${url}?${parts.join('&')}` : url,
    headers: {
      'x-api-key': apiKey,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload,
  });
  // An empty path value names another resource (`/webhooks/` is the list), so its answer is not this
  // operation's.
  if (path?.[1] !== '') {
    const key = `${target.method} ${target.path}`;
    observed.set(key, (observed.get(key) ?? new Set()).add(res.statusCode));
  }
  return res;
}

/** Problems with one answer; an empty list when it is acceptable. */
function check(res: LightMyRequestResponse, what: string, refuseNaming?: string): string[] {
  const problems: string[] = [];
  const status = res.statusCode;
  if (status >= 500) problems.push(`${what}: ${status} ${res.body.slice(0, 200)}`);
  if (status >= 400) {
    const body = res.json<Partial<Envelope>>();
    if (body.error?.status !== status || typeof body.error.message !== 'string' || !body.error.code) {
      problems.push(`${what}: ${status} without the envelope: ${res.body.slice(0, 200)}`);
    }
  }
  if (refuseNaming !== undefined) {
    const message = status >= 400 ? (res.json<Envelope>().error?.message ?? '') : res.body.slice(0, 80);
    if (status !== 400 || !message.includes(`"${refuseNaming}"`)) {
      problems.push(`${what}: expected 400 naming "${refuseNaming}", got ${status} ${message}`);
    }
  }
  return problems;
}

async function fuzzParameter(target: Target, param: Parameter): Promise<string[]> {
  const problems: string[] = [];
  for (const v of URL_VALUES) {
    const call: Call =
      param.in === 'path'
        ? { target, path: [param.name, v.encoded || ''] }
        : { target, query: `${param.name}=${v.encoded}` };
    const res = await send(call);
    // A path value that is not even valid percent-encoding is refused before any route is chosen.
    const named = mustRefuse(param.schema, v.value) && !(param.in === 'path' && v.value === null);
    problems.push(...check(res, `${param.in} ${param.name}=${v.label}`, named ? param.name : undefined));
  }
  if (param.in === 'query' && param.name === 'cursor') {
    for (const cursor of HOSTILE_CURSORS) {
      const res = await send({ target, query: `cursor=${cursor}` });
      problems.push(...check(res, `cursor ${cursor.slice(0, 40)}`, 'cursor'));
    }
  }
  if (param.in === 'query') {
    const sample = encodeURIComponent(querySample(param));
    const res = await send({ target, query: `${param.name}=${sample}&${param.name}=${sample}` });
    problems.push(...check(res, `${param.name} repeated`, param.name));
  }
  return problems;
}

async function fuzzBody(target: Target): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(bodyFields(target.op))) {
    for (const value of [...JSON_VALUES, ...hostileRecords(schema.items)]) {
      const res = await send({ target, body: bodyText(target.op, [name, value]) });
      problems.push(...check(res, `body ${name}=${value.slice(0, 40)}`));
    }
  }
  for (const body of RAW_BODIES) {
    const res = await send({ target, body });
    problems.push(...check(res, `raw body ${JSON.stringify(body.toString()).slice(0, 40)}`));
  }
  return problems;
}

test('hostile query, path and body values never cause a 5xx and are refused in the envelope', async (t) => {
  const targets = operations();
  assert.ok(targets.length > 20, 'the document lists the API operations');
  for (const target of targets) {
    await t.test(`${target.method} ${target.path}`, async () => {
      const problems: string[] = [];
      if (target.method === 'GET') {
        // The neighbours kept valid must really be valid, or every refusal below proves nothing.
        const res = await send({ target });
        if (res.statusCode !== 404) assert.equal(res.statusCode, 200, `valid samples: ${res.body}`);
      }
      for (const param of target.op.parameters ?? []) {
        if (param.in === 'query' || param.in === 'path')
          problems.push(...(await fuzzParameter(target, param)));
      }
      if (target.op.requestBody) problems.push(...(await fuzzBody(target)));
      assert.deepEqual(problems, []);
    });
  }
});

test('typed parameters exist in the document, so the by-name assertions are exercised', () => {
  const typed = operations().flatMap((t) => (t.op.parameters ?? []).filter((p) => isTyped(p.schema)));
  const names = new Set(typed.map((p) => p.name));
  for (const name of ['limit', 'offset', 'min_score', 'from', 'to', 'since'])
    assert.ok(names.has(name), name);
});

test('every status the fuzzing observed is listed in the operation’s responses', (t) => {
  const listed = new Map(operations().map((o) => [`${o.method} ${o.path}`, Object.keys(o.op.responses)]));
  const unlisted: string[] = [];
  for (const [operation, statuses] of observed) {
    t.diagnostic(`${operation}: ${[...statuses].sort().join(', ')}`);
    for (const status of statuses) {
      if (!listed.get(operation)?.includes(String(status))) unlisted.push(`${operation} → ${status}`);
    }
  }
  assert.ok(observed.size > 20, 'the fuzzing test ran first');
  assert.deepEqual(unlisted, []);
});
