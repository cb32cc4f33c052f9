/**
 * Every operation of the committed OpenAPI document has a client method, and calling it sends the
 * document's method to the document's path (checked with a fetch that answers locally).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { MarketIntel, methodNames, operations, SDK_VERSION } from '../../sdk/src/index.ts';

interface Doc {
  paths: Record<string, Record<string, { operationId?: string }>>;
}

const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Doc;
const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({
    id: String(op.operationId),
    method: method.toUpperCase(),
    path,
  })),
);

/** Answers every request with an empty page (or `[]` for bare-array operations) and remembers it. */
function answeringFetch() {
  const sent: { method: string; url: URL; body: string | undefined }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    sent.push({ method: init?.method ?? 'GET', url, body: init?.body as string | undefined });
    const bare = /\/(benchmarks|market\/candles\/[^/]+)$/.test(url.pathname);
    return new Response(bare ? '[]' : '{"data":[],"pagination":{"limit":50,"offset":0,"count":0}}', {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { sent, fetch: fetchFn };
}

/** The method at a dotted name, e.g. `admin.users.create`. */
function methodAt(client: MarketIntel, name: string): (...args: unknown[]) => unknown {
  const found = name
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], client);
  assert.equal(typeof found, 'function', `${name} is a method`);
  return found as (...args: unknown[]) => unknown;
}

/** Placeholder arguments: `p0`, `p1` for path parameters, then `{}` for a body and a query. */
function argumentsFor(id: keyof typeof operations): unknown[] {
  const info = operations[id];
  const args: unknown[] = info.pathParams.map((_, i) => `p${i}`);
  if (info.body !== 'none') args.push({ probe: true });
  if (info.query.length > 0) args.push({});
  return args;
}

describe('the client covers the document', () => {
  const names = methodNames();

  test('the generated table has exactly the document operations', () => {
    assert.deepEqual(Object.keys(operations).sort(), documented.map((op) => op.id).sort());
  });

  test('every operation has a method, and each method sends its operation', async () => {
    for (const op of documented) {
      const entry = names.find((n) => n.operationId === op.id && n.kind === 'call');
      assert.ok(entry, `operation ${op.id} (${op.method} ${op.path}) has a client method`);
      const { sent, fetch } = answeringFetch();
      const client = new MarketIntel({ apiKey: 'iv_test_x', baseUrl: 'http://sdk.test', fetch });
      await methodAt(client, entry.name)(...argumentsFor(op.id as keyof typeof operations));
      assert.equal(sent.length, 1, entry.name);
      assert.equal(sent[0]?.method, op.method, entry.name);
      let param = 0;
      const expectedPath = op.path.replace(/\{[^}]+\}/g, () => `p${param++}`);
      assert.equal(sent[0]?.url.pathname, expectedPath, `${entry.name} → ${op.method} ${op.path}`);
      assert.equal(
        sent[0]?.body,
        operations[op.id as keyof typeof operations].body === 'none' ? undefined : '{"probe":true}',
      );
    }
  });

  test('every paged operation has an iterator, which requests its first page', async () => {
    const pagedIds = Object.entries(operations)
      .filter(([, info]) => info.paging !== null)
      .map(([id]) => id);
    assert.ok(pagedIds.length >= 10);
    for (const id of pagedIds) {
      const entry = names.find((n) => n.operationId === id && n.paged);
      assert.ok(entry, `${id} has an iterator`);
      const { sent, fetch } = answeringFetch();
      const client = new MarketIntel({ baseUrl: 'http://sdk.test', fetch });
      const iterator = methodAt(client, entry.name)(...argumentsFor(id as keyof typeof operations));
      const first = await (iterator as AsyncGenerator<unknown>).next();
      assert.equal(first.done, true, 'an empty page ends the walk');
      assert.equal(sent.length, 1, entry.name);
    }
  });

  test('method names are unique and read as resource.verb', () => {
    const all = names.map((n) => n.name);
    assert.equal(new Set(all).size, all.length);
    for (const name of [
      'events.list',
      'contracts.get',
      'contracts.score',
      'market.candles',
      'admin.users.create',
    ]) {
      assert.ok(all.includes(name), name);
    }
  });
});

test('the User-Agent version is the package version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../sdk/package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  assert.equal(SDK_VERSION, pkg.version);
});
