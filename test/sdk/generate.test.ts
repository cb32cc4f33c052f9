/**
 * sdk/src/generated.ts is what the generator makes of the committed openapi.json (the drift check), and
 * the generator turns components, `$ref`s, enums, 3.1 nullables, anyOf, additionalProperties, const and
 * top-level webhooks into types that the compiler holds a client to.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { DOCUMENT_PATH, GENERATED_PATH, generateSdkTypes } from '../../scripts/generate-sdk-types.ts';

const TSC = path.resolve('node_modules/typescript/bin/tsc');

describe('sdk/src/generated.ts', () => {
  test('equals the generator run on the committed openapi.json (run `npm run sdk:generate` after a document change)', () => {
    const fresh = generateSdkTypes(JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')));
    const committed = readFileSync(GENERATED_PATH, 'utf8');
    assert.ok(fresh === committed, 'sdk/src/generated.ts is stale: run `npm run sdk:generate` and commit it');
  });
});

/** A small document with the constructs the committed one does not use (yet). */
const DOC = {
  openapi: '3.1.0',
  info: { title: 'probe', version: '1' },
  components: {
    schemas: {
      Level: { type: 'string', enum: ['low', 'high'] },
      Money: { type: 'integer', description: 'Whole dollars.' },
      Tagged: {
        type: 'object',
        required: ['kind', 'level', 'note', 'labels'],
        properties: {
          kind: { const: 'tagged' },
          level: { $ref: '#/components/schemas/Level' },
          note: { type: ['string', 'null'] },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          amount: { $ref: '#/components/schemas/Money' },
          either: { anyOf: [{ type: 'integer' }, { $ref: '#/components/schemas/Level' }] },
        },
        additionalProperties: false,
      },
      Legacy: { type: 'string', nullable: true },
      'signal.created': {
        type: 'object',
        required: ['event', 'tagged'],
        properties: { event: { const: 'signal.created' }, tagged: { $ref: '#/components/schemas/Tagged' } },
      },
    },
    parameters: { Limit: { name: 'limit', in: 'query', schema: { type: 'integer' } } },
    responses: {
      TaggedList: {
        description: 'ok',
        content: {
          'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Tagged' } } },
        },
      },
    },
  },
  paths: {
    '/things/{thing}/parts/{part}': {
      parameters: [
        { name: 'part', in: 'path', required: true, schema: { type: 'integer' } },
        { name: 'thing', in: 'path', required: true, schema: { type: 'string' } },
      ],
      get: {
        operationId: 'listParts',
        parameters: [
          { $ref: '#/components/parameters/Limit' },
          { name: 'level', in: 'query', required: true, schema: { $ref: '#/components/schemas/Level' } },
        ],
        responses: { '200': { $ref: '#/components/responses/TaggedList' } },
      },
      put: {
        operationId: 'putPart',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Tagged' } } },
        },
        responses: { '204': { description: 'stored' } },
      },
    },
  },
  webhooks: {
    'signal.created': {
      post: {
        requestBody: {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/signal.created' } } },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

/** Compiles only if the generated types say what the document says; every @ts-expect-error must fire. */
const USAGE = `
import type { Level, Legacy, ListPartsQuery, ListPartsResponse, Operations, PutPartBody, SignalCreated, Tagged, WebhookPayloads } from './generated.ts';
import { operations } from './generated.ts';

const level: Level = 'high';
// @ts-expect-error not in the enum
const wrongLevel: Level = 'medium';
const legacy: Legacy = null;
const tagged: Tagged = { kind: 'tagged', level, note: null, labels: { a: 'b' }, either: 3 };
// @ts-expect-error const is a literal
const wrongKind: Tagged = { kind: 'other', level, note: null, labels: {} };
// @ts-expect-error additionalProperties: false
const extra: Tagged = { kind: 'tagged', level, note: null, labels: {}, more: 1 };
// @ts-expect-error labels hold strings
const badLabels: Tagged = { kind: 'tagged', level, note: 'x', labels: { a: 1 } };
const query: ListPartsQuery = { level: 'low', limit: 5 };
// @ts-expect-error level is a required query parameter
const noLevel: ListPartsQuery = { limit: 5 };
const list: ListPartsResponse = [tagged];
const body: PutPartBody = tagged;
const args: Operations['listParts']['args'] = ['t', 7, query];
// @ts-expect-error the second path parameter is an integer
const badArgs: Operations['listParts']['args'] = ['t', '7', query];
const putArgs: Operations['putPart']['args'] = ['t', 1, body];
const none: Operations['putPart']['response'] = undefined;
const event: WebhookPayloads['signal.created'] = { event: 'signal.created', tagged };
const named: SignalCreated = event;
const pathOrder: readonly ['thing', 'part'] = operations.listParts.pathParams;
const bodyKind: 'required' = operations.putPart.body;
const responseKind: 'none' = operations.putPart.response;
export { wrongLevel, legacy, wrongKind, extra, badLabels, noLevel, list, args, badArgs, putArgs, none, named, pathOrder, bodyKind, responseKind };
`;

describe('the generator', () => {
  test('types components, $refs, enums, nullables, anyOf, additionalProperties, const and webhooks', () => {
    const text = generateSdkTypes(DOC);
    assert.match(text, /export type Level = "low" \| "high";/);
    assert.match(text, /export interface Tagged \{/);
    assert.match(text, /note: string \| null;/);
    assert.match(text, /export type Legacy = string \| null;/);
    assert.match(text, /\/\*\* Whole dollars\. \*\/\nexport type Money = number;/);
    assert.match(text, /"signal\.created": SignalCreated;/);
    const dir = mkdtempSync(path.join(tmpdir(), 'sdk-generate-'));
    try {
      writeFileSync(path.join(dir, 'generated.ts'), text);
      writeFileSync(path.join(dir, 'usage.ts'), USAGE);
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            strict: true,
            noEmit: true,
            allowImportingTsExtensions: true,
            noUnusedLocals: false,
            types: [],
          },
          include: ['*.ts'],
        }),
      );
      execFileSync(TSC, ['-p', dir], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      assert.fail(`the generated types do not compile as expected:\n${stdout ?? ''}${stderr ?? ''}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('refuses a type name declared twice', () => {
    const schemas = { ...DOC.components.schemas, ListPartsQuery: { type: 'string' } };
    assert.throws(
      () => generateSdkTypes({ ...DOC, components: { ...DOC.components, schemas } }),
      /ListPartsQuery/,
    );
  });
});
