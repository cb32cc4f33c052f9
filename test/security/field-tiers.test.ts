/**
 * The tier policy (src/domain/field-tiers.ts) holds in every representation of a record: for each plan,
 * every field the table puts above the plan's tier is absent (or null, as its rule says) in the API's
 * bundle, score, lists and their alias, both export formats, the dashboard's API and the webhook
 * payloads of a webhook the plan's user owns. The fields come from the table itself, so one added
 * there is looked for everywhere without touching this test; a record the table names that no
 * representation below serves fails the test instead of passing unlooked-at.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import { FIELD_TIERS, type FieldRule, type TieredRecord } from '../../src/domain/field-tiers.ts';
import { PLAN_LIMITS, PLANS, type Plan, tierReaches } from '../../src/domain/plans.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { deliveryBody, enqueueSignalCreated } from '../../src/webhooks/outbox.ts';
import { closeApp, makeKey, testApp, testConfig } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { makeWebhook } from '../webhooks/helpers.ts';

type Json = Record<string, unknown>;
/** The instances of each record a representation's body holds. */
type Locate = Partial<Record<TieredRecord, (body: Json) => unknown[]>>;
interface Representation {
  name: string;
  read: (plan: Plan) => Promise<Json>;
  locate: Locate;
}

let db: Db;
let app: App;
let contractId = '';
const readers = new Map<Plan, { key: string; cookie: string; userId: string }>();

before(async () => {
  db = await seededDb();
  app = await testApp(db);
  // An LMT award of 2023: it has a signal, a regime and candles on both sides.
  const [row] = await db.query<{ id: string }>(
    "SELECT id FROM contracts WHERE ticker = 'LMT' AND award_date BETWEEN '2023-01-01' AND '2023-12-31' ORDER BY id LIMIT 1",
  );
  assert.ok(row);
  contractId = row.id;
  for (const plan of PLANS) {
    const mode = PLAN_LIMITS[plan].liveKeys ? 'live' : 'test';
    const { raw, userId } = await makeKey(db, { plan, mode, scopes: ['read'] });
    const { token } = await openSession(db, userId, new Date());
    readers.set(plan, { key: raw, cookie: `${SESSION_COOKIE}=${token}`, userId });
  }
});
after(() => closeApp(app, db));

function reader(plan: Plan) {
  const found = readers.get(plan);
  assert.ok(found);
  return found;
}

async function body(url: string, headers: Record<string, string>): Promise<string> {
  const res = await app.inject({ url, headers });
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res.body;
}
const api = async (plan: Plan, url: string) =>
  JSON.parse(await body(`/api/v1${url}`, { 'x-api-key': reader(plan).key })) as Json;
const dashboard = async (plan: Plan, url: string) =>
  JSON.parse(await body(`/dashboard/api${url}`, { cookie: reader(plan).cookie })) as Json;
const ndjson = async (plan: Plan, url: string): Promise<Json> => {
  const text = await body(`/api/v1${url}`, { 'x-api-key': reader(plan).key });
  const lines = text.split('\n').filter((line) => line !== '');
  return { data: lines.map((line) => JSON.parse(line) as Json) };
};

const data = (b: Json) => b.data as Json[];
const signalsOf = (b: Json) => data(b).map((item) => item.signal);

const REPRESENTATIONS: Representation[] = [
  {
    name: 'API contract bundle',
    read: (plan) => api(plan, `/contracts/${contractId}`),
    locate: { contract_bundle: (b) => [b], signal: (b) => [b.signal] },
  },
  {
    name: 'API score',
    read: (plan) => api(plan, `/contracts/${contractId}/score`),
    locate: { signal: (b) => [b.signal] },
  },
  { name: 'API events', read: (plan) => api(plan, '/events?limit=20'), locate: { signal: signalsOf } },
  {
    name: 'API contracts alias',
    read: (plan) => api(plan, '/contracts?limit=20'),
    locate: { signal: signalsOf },
  },
  { name: 'API signals', read: (plan) => api(plan, '/signals?limit=20'), locate: { signal: signalsOf } },
  {
    name: 'NDJSON events export',
    read: (plan) => ndjson(plan, '/events/export?limit=20&format=ndjson'),
    locate: { signal: signalsOf },
  },
  {
    name: 'NDJSON signals export',
    read: (plan) => ndjson(plan, '/signals/export?limit=20&format=ndjson'),
    locate: { signal: signalsOf },
  },
  {
    name: 'dashboard contract',
    read: (plan) => dashboard(plan, `/contracts/${contractId}`),
    locate: { contract_bundle: (b) => [b], signal: (b) => [b.signal] },
  },
  {
    name: 'dashboard signals',
    read: (plan) => dashboard(plan, '/signals?limit=20'),
    locate: { signal: signalsOf },
  },
  {
    name: 'dashboard company',
    read: (plan) => dashboard(plan, '/companies/LMT'),
    locate: { company_page: (b) => [b] },
  },
];

/** The records a signal.created payload holds (checked by the webhook test below). */
const WEBHOOK_RECORDS: string[] = ['signal_created', 'signal'];

const RULES = Object.entries(FIELD_TIERS).flatMap(([record, fields]) =>
  Object.entries(fields as Record<string, FieldRule>).map(([field, rule]) => ({
    record: record as TieredRecord,
    field,
    rule,
  })),
);

/** Whether `instance` shows `field` under its rule: present for `absent` rules, non-null for `null` ones. */
function shows(instance: unknown, field: string, rule: FieldRule): boolean {
  if (instance === null || typeof instance !== 'object') return false;
  const value = (instance as Json)[field];
  return rule.below === 'absent' ? field in instance : value !== null && value !== undefined;
}

describe('the tier policy holds in every representation', () => {
  test('every record the table names is served by some representation checked here', () => {
    for (const record of Object.keys(FIELD_TIERS)) {
      assert.ok(
        REPRESENTATIONS.some((r) => r.locate[record as TieredRecord]) || WEBHOOK_RECORDS.includes(record),
        `no representation here serves ${record}: add it`,
      );
    }
  });

  for (const plan of PLANS) {
    const tier = PLAN_LIMITS[plan].tier;
    test(`${plan} (${tier} tier): every field above the tier is withheld, every field within it shown`, async () => {
      for (const representation of REPRESENTATIONS) {
        const served = await representation.read(plan);
        for (const { record, field, rule } of RULES) {
          const locate = representation.locate[record];
          if (!locate) continue;
          const instances = locate(served).filter((i) => i !== null);
          assert.ok(instances.length > 0, `${representation.name} holds no ${record}`);
          const where = `${plan}: ${representation.name} ${record}.${field}`;
          if (tierReaches(tier, rule.tier)) {
            // Otherwise the withholding below would be proven on a field that is never there.
            assert.ok(
              instances.some((i) => shows(i, field, rule)),
              `${where} shown on its tier`,
            );
          } else {
            for (const instance of instances) {
              if (rule.below === 'absent') assert.ok(!(field in (instance as Json)), `${where} absent`);
              else assert.equal((instance as Json)[field], null, `${where} null`);
            }
          }
        }
      }
    });
  }

  test('CSV exports carry no tiered field, whatever the tier', async () => {
    for (const url of ['/events/export?limit=5&format=csv', '/signals/export?limit=5&format=csv']) {
      const header =
        (await body(`/api/v1${url}`, { 'x-api-key': reader('free').key })).split('\r\n')[0] ?? '';
      const columns = header.split(',');
      for (const { field } of RULES) {
        assert.ok(!columns.some((c) => c === field || c.endsWith(`_${field}`)), `${url}: ${field}`);
      }
    }
  });

  test('a webhook payload carries what its owner’s plan reads, never more', async () => {
    const config = testConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });
    const [signal] = await db.query<{ id: string; contract_id: string; signal_score: number }>(
      "SELECT id, contract_id, signal_score FROM signals WHERE engine_name = 'materiality' AND rationale IS NOT NULL ORDER BY id LIMIT 1",
    );
    assert.ok(signal);
    const hook = await makeWebhook(db, config, 'https://93.184.216.34/tiers');
    await db.transaction((tx) => enqueueSignalCreated(tx, [{ ...signal, inserted: true }], 0));
    const [row] = await db.query<{ id: string; payload: unknown }>(
      'SELECT id, payload FROM webhook_deliveries WHERE webhook_id = $1',
      [hook.webhookId],
    );
    assert.ok(row, 'the developer-plan webhook got the delivery');
    const sent = JSON.parse(deliveryBody(row.payload, row.id)) as { data: Json };
    const tier = PLAN_LIMITS.developer.tier;
    const instances: Record<string, unknown> = { signal_created: sent.data, signal: sent.data.signal };
    for (const { record, field, rule } of RULES) {
      if (!WEBHOOK_RECORDS.includes(record) || tierReaches(tier, rule.tier)) continue;
      assert.ok(!shows(instances[record], field, rule), `webhook ${record}.${field}`);
    }
    assert.ok(!('rationale' in (sent.data.signal as Json)), 'never the rationale, whatever the plan');
  });
});
