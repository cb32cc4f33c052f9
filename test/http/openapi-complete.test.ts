/**
 * What a client generator needs from openapi.json beyond paths: named component schemas referenced by
 * the operations, enums equal to the code's constants, examples on every operation that validate,
 * rate-limit headers declared required on every answer below 500, and the `signal.created` webhook
 * whose payload schema holds what the outbox really writes. That real answers match the document is
 * openapi-conformance.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { engineNames, RATIONALE_RULES } from '../../src/domain/engines/index.ts';
import { PLANS, SCOPES } from '../../src/domain/plans.ts';
import { MATCH_METHODS } from '../../src/domain/resolver.ts';
import { verifyWebhook } from '../../src/domain/signature.ts';
import { CLASSIFICATION_LABELS, REGIME_BENCHMARKS, REGIME_NAMES, TIERS } from '../../src/domain/types.ts';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { BENCHMARKS } from '../../src/http/routes/benchmarks.ts';
import type { App } from '../../src/http/types.ts';
import { LIMITER_STORES } from '../../src/infra/limiter.ts';
import { DELIVERY_STATUSES } from '../../src/store/webhooks.ts';
import { deliveryBody, SIGNAL_CREATED, WEBHOOK_TEST } from '../../src/webhooks/outbox.ts';
import { type Fixture, openApiFixture } from './openapi-fixture.ts';
import {
  DocValidator,
  type Json,
  type OpenApiDoc,
  operations,
  type Response,
  type Target,
} from './openapi-support.ts';

const EXAMPLES_FILE = 'src/http/schemas/examples.ts';
const RATE_LIMIT = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

let fixture: Fixture;
let app: App;
let doc: OpenApiDoc;
let validator: DocValidator;
let keys: Fixture['keys'];
let payload: Fixture['payload'];

before(async () => {
  fixture = await openApiFixture();
  ({ app, doc, keys, payload } = fixture);
  validator = new DocValidator(doc);
});
after(() => fixture.close());

const where = (t: Target) => `${t.method} ${t.path} (${t.op.operationId})`;
const jsonMedia = (response: Response) => response.content?.['application/json'];
const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** The value at a path of nested objects, or undefined. */
const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((inner, key) => (inner as Json | undefined)?.[key], value);

describe('component schemas', () => {
  test('every resource and envelope is a named component', () => {
    for (const name of [
      'Contract',
      'Signal',
      'RationaleItem',
      'Regime',
      'Decay',
      'Company',
      'Candle',
      'CandleList',
      'WeeklyPrice',
      'EventItem',
      'EventList',
      'SignalItem',
      'SignalList',
      'ContractBundle',
      'Pagination',
      'Error',
      'Webhook',
      'Delivery',
      'Attempt',
      'ApiKey',
      'User',
      'Usage',
      'Health',
      'SignalCreatedEvent',
      'WebhookTestEvent',
    ]) {
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    }
  });

  test('responses refer to components instead of repeating them', () => {
    for (const target of operations(doc)) {
      for (const [status, response] of Object.entries(target.op.responses)) {
        const schema = jsonMedia(response)?.schema;
        if (!schema) continue;
        const inline = schema.properties !== undefined || schema.items !== undefined;
        assert.ok(!inline, `${where(target)} ${status}: an inline record; export its schema by name`);
        if (status.startsWith('4'))
          assert.deepEqual(schema, componentRef('Error'), `${where(target)} ${status}`);
      }
    }
    const bundle = doc.paths['/api/v1/contracts/{id}']?.get?.responses['200'];
    assert.deepEqual(bundle && jsonMedia(bundle)?.schema, componentRef('ContractBundle'));
    const properties = doc.components.schemas.ContractBundle?.properties as Record<string, Json>;
    // The one answer that may hold a contract without a ticker has its own type; the lists keep theirs.
    assert.deepEqual(properties.contract, componentRef('ContractDetail'));
    const item = doc.components.schemas.EventItem?.properties as Record<string, Json>;
    assert.deepEqual(item.contract, componentRef('Contract'));
    const ticker = (name: string): Json => {
      const props = doc.components.schemas[name]?.properties as Record<string, Json> | undefined;
      return props?.ticker ?? {};
    };
    assert.equal(ticker('Contract').type, 'string');
    assert.deepEqual(ticker('ContractDetail').anyOf, [{ type: 'string' }, { type: 'null' }]);
    assert.deepEqual(properties.signal, { anyOf: [componentRef('Signal'), { type: 'null' }] });
    const signal = doc.components.schemas.Signal?.properties as Record<string, Json>;
    assert.deepEqual((signal.rationale as Json).items, componentRef('RationaleItem'));
  });
});

describe('enums', () => {
  const enumOf = (name: string) => doc.components.schemas[name]?.enum;

  test('named enums are the constants the code decides with', () => {
    assert.deepEqual(enumOf('EngineName'), engineNames());
    assert.deepEqual(enumOf('Tier'), [...TIERS]);
    assert.deepEqual(enumOf('MatchMethod'), [...MATCH_METHODS]);
    assert.deepEqual(enumOf('Classification'), [...CLASSIFICATION_LABELS]);
    assert.deepEqual(enumOf('RegimeName'), [...REGIME_NAMES]);
    assert.deepEqual(enumOf('Plan'), [...PLANS]);
    assert.deepEqual(enumOf('Scope'), [...SCOPES]);
    assert.deepEqual(enumOf('DeliveryStatus'), [...DELIVERY_STATUSES]);
    assert.deepEqual(enumOf('WebhookEvent'), [SIGNAL_CREATED, WEBHOOK_TEST]);
    assert.deepEqual(enumOf('RationaleRule'), [...RATIONALE_RULES]);
    assert.deepEqual(at(doc.components.schemas.Regime, 'properties', 'benchmark', 'enum'), [
      ...REGIME_BENCHMARKS,
    ]);
    assert.deepEqual(
      at(doc.components.schemas.Health, 'properties', 'limiter', 'properties', 'store', 'enum'),
      [...LIMITER_STORES],
    );
    assert.deepEqual(at(doc.components.schemas.Error, 'properties', 'error', 'properties', 'code', 'enum'), [
      ...Object.keys(ERROR_STATUS),
    ]);
  });

  test('records use them', () => {
    const contract = doc.components.schemas.Contract?.properties as Record<string, Json>;
    assert.equal(contract.match_method?.$ref, componentRef('MatchMethod').$ref);
    assert.deepEqual(contract.nlp_classification, componentRef('Classification'));
    const signal = doc.components.schemas.Signal?.properties as Record<string, Json>;
    assert.deepEqual(signal.engine_name, componentRef('EngineName'));
    assert.equal(signal.engine_tier?.$ref, componentRef('Tier').$ref);
  });

  test('engine and benchmark parameters list their values', async () => {
    let engines = 0;
    for (const target of operations(doc)) {
      for (const param of target.op.parameters ?? []) {
        if (param.name !== 'engine') continue;
        engines += 1;
        assert.deepEqual(param.schema.enum, engineNames(), where(target));
      }
    }
    assert.ok(engines >= 5, `${engines} engine parameters`);
    const ticker = doc.paths['/api/v1/benchmarks']?.get?.parameters?.find((p) => p.name === 'ticker');
    const [names, anyCase] = (ticker?.schema.anyOf ?? []) as Json[];
    assert.deepEqual(names?.enum, [...BENCHMARKS]);
    // Lower case stays accepted, and the document says so: the spec and the server agree on each.
    for (const [value, served] of [
      ['spy', true],
      ['Xli', true],
      ['ITA', true],
      ['LMT', false],
      ['spyy', false],
    ] as const) {
      assert.equal(validator.check(ticker?.schema ?? {}, value) === '', served, `document: ${value}`);
      const res = await app.inject({
        url: `/api/v1/benchmarks?ticker=${value}&limit=1`,
        headers: { 'x-api-key': keys.admin },
      });
      assert.equal(res.statusCode, served ? 200 : 400, `server: ${value} ${res.body.slice(0, 100)}`);
    }
    assert.equal(typeof anyCase?.pattern, 'string');
    const other = await app.inject({
      url: '/api/v1/benchmarks?ticker=LMT',
      headers: { 'x-api-key': keys.admin },
    });
    assert.equal(other.statusCode, 400);
    assert.match(
      other.json<{ error: { message: string } }>().error.message,
      /"ticker": must be one of SPY, XLI, ITA/,
    );
  });
});

describe('examples', () => {
  test('every operation has an example for its body and each response with content, valid against its schema', () => {
    const problems: string[] = [];
    for (const target of operations(doc)) {
      const body = target.op.requestBody?.content['application/json'];
      if (body && body.example === undefined)
        problems.push(
          `${where(target)}: add a request example for ${target.op.operationId} to ${EXAMPLES_FILE}`,
        );
      else if (body?.schema) {
        const wrong = validator.check(body.schema, body.example);
        if (wrong) problems.push(`${where(target)} request example: ${wrong}`);
      }
      for (const [status, response] of Object.entries(target.op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (media.example === undefined) {
            problems.push(
              `${where(target)} ${status}: add an example for ${target.op.operationId} to ${EXAMPLES_FILE}`,
            );
          } else if ((type === 'application/json' || type === 'application/x-ndjson') && media.schema) {
            // An NDJSON schema (and example) is one line's.
            const wrong = validator.check(media.schema, media.example);
            if (wrong) problems.push(`${where(target)} ${status} example: ${wrong}`);
          } else assert.equal(typeof media.example, 'string', `${where(target)} ${status} ${type}`);
        }
      }
      for (const param of target.op.parameters ?? []) {
        if (param.example === undefined) continue;
        const wrong = validator.check(param.schema, param.example);
        if (wrong) problems.push(`${where(target)} parameter ${param.name} example: ${wrong}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('the examples are the API’s own data: the LMT contract of the demo data', async () => {
    const bundle = doc.paths['/api/v1/contracts/{id}']?.get?.responses['200'];
    const example = (bundle && jsonMedia(bundle)?.example) as { contract: { id: string; ticker: string } };
    assert.equal(example.contract.ticker, 'LMT');
    const res = await app.inject({
      url: `/api/v1/contracts/${encodeURIComponent(example.contract.id)}`,
      headers: { 'x-api-key': keys.admin },
    });
    assert.equal(res.statusCode, 200);
    const served = res.json<{ contract: Record<string, unknown> }>().contract;
    // The resolver version is a digest of the identity data: any curation changes it.
    const { first_seen_at: _a, available_at: _b, resolution, ...rest } = served;
    const { resolver_version: _c, ...dated } = resolution as Record<string, unknown>;
    const exampleResolution = (example.contract as Record<string, unknown>).resolution as Record<
      string,
      unknown
    >;
    assert.deepEqual(
      { ...exampleResolution, resolver_version: undefined },
      { ...dated, resolver_version: undefined },
    );
    const stable = rest;
    for (const [field, value] of Object.entries(stable)) {
      assert.deepEqual((example.contract as Record<string, unknown>)[field], value, field);
    }
  });
});

describe('response headers', () => {
  const header = (ref: Json | undefined) =>
    typeof ref?.$ref === 'string' ? doc.components.headers[ref.$ref.split('/').pop() ?? ''] : ref;

  test('components.headers are Header Objects', () => {
    for (const [name, value] of Object.entries(doc.components.headers)) {
      assert.equal(value.required, true, name);
      assert.equal(typeof value.description, 'string', name);
      assert.ok(value.schema, name);
    }
  });

  test('keyed and open operations declare the rate-limit headers required; 429 Retry-After; 401 WWW-Authenticate', () => {
    let keyed = 0;
    for (const target of operations(doc)) {
      if (target.op['x-tier'] === undefined) {
        // The liveness probe: no key, no limit; only the request id.
        for (const response of Object.values(target.op.responses))
          assert.deepEqual(Object.keys(response.headers ?? {}), ['X-Request-Id']);
        continue;
      }
      keyed += 1;
      for (const [status, response] of Object.entries(target.op.responses)) {
        if (status.startsWith('5')) continue;
        for (const name of RATE_LIMIT) {
          assert.equal(
            header(response.headers?.[name])?.required,
            true,
            `${where(target)} ${status} ${name}`,
          );
        }
      }
      const refused = target.op.responses['429'];
      if (target.op.security?.some((s) => Object.keys(s).length === 0) !== true) {
        assert.equal(header(refused?.headers?.['Retry-After'])?.required, true, `${where(target)} 429`);
      }
      assert.equal(header(target.op.responses['401']?.headers?.['WWW-Authenticate'])?.required, true);
    }
    assert.ok(keyed > 30);
  });
});

describe('the signal.created webhook', () => {
  const webhook = () => doc.webhooks?.[SIGNAL_CREATED]?.post;

  test('is described with its headers, its payload component and the answers a receiver gives', () => {
    const op = webhook();
    assert.ok(op, 'webhooks["signal.created"].post');
    const headers = (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    assert.deepEqual(headers, [
      'User-Agent',
      'X-Service-Event',
      'X-Service-Delivery',
      'X-Service-Signature',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    assert.deepEqual(op.requestBody?.content['application/json']?.schema, componentRef('SignalCreatedEvent'));
    assert.deepEqual(Object.keys(op.responses), ['2XX', '4XX', 'default']);
    assert.match(op.responses.default?.description ?? '', /retried/);
  });

  test('the payload the outbox wrote validates against the payload schema, as does the example', () => {
    assert.equal(validator.check(componentRef('SignalCreatedEvent'), JSON.parse(payload.body)), '');
    assert.equal(validator.check(componentRef('SignalCreatedEvent'), payload.json), '');
    const strict = { ...componentRef('SignalCreatedEvent') };
    // A payload missing its contract is refused: the schema is not vacuous.
    const { data } = payload.json as { data: Json };
    assert.notEqual(
      validator.check(strict, { ...(payload.json as Json), data: { signal: data.signal } }),
      '',
    );
    const media = webhook()?.requestBody?.content['application/json'];
    assert.equal(validator.check(componentRef('SignalCreatedEvent'), media?.example), '');
  });

  test('the example signatures verify over the example bodies with the example secret, in both schemes', () => {
    const created = doc.paths['/api/v1/webhooks']?.post?.responses['201'];
    const secret = (created && (jsonMedia(created)?.example as { secret: string }))?.secret ?? '';
    for (const event of [SIGNAL_CREATED, WEBHOOK_TEST]) {
      const op = doc.webhooks?.[event]?.post;
      const example = (name: string) => String(op?.parameters?.find((p) => p.name === name)?.example);
      const signature = example('X-Service-Signature');
      const body = op?.requestBody?.content['application/json']?.example as {
        id: string;
        delivery_id: string;
      };
      const deliveryId = example('X-Service-Delivery');
      const t = Number(/^t=(\d+)/.exec(signature)?.[1]);
      const raw = deliveryBody(body, deliveryId);
      assert.equal(body.delivery_id, deliveryId, "the body names the header's id");
      assert.equal(body.id, example('webhook-id'), 'webhook-id is the event id');
      const verified = verifyWebhook(raw, signature, secret, { now: t * 1000 });
      assert.equal(verified.ok, true, JSON.stringify(verified));
      const standard = new StandardWebhook(secret);
      const headers = {
        'webhook-id': example('webhook-id'),
        'webhook-timestamp': example('webhook-timestamp'),
        'webhook-signature': example('webhook-signature'),
      };
      // The example's timestamp is in the past: the verifier's own HMAC, without its clock check.
      assert.equal(
        standard.sign(headers['webhook-id'], new Date(t * 1000), raw),
        headers['webhook-signature'],
      );
    }
    const test = doc.webhooks?.[WEBHOOK_TEST]?.post?.requestBody?.content['application/json']?.example;
    assert.equal(validator.check(componentRef('WebhookTestEvent'), test), '');
  });
});
