/**
 * Awards whose owner on the date had no listed stock, read back through the API: ingested through the
 * admin route, `GET /api/v1/contracts/{id}` serves them with `ticker: null`, the owner then and the
 * reason (a joint venture with its parents), valid against the served OpenAPI document; the lists,
 * exports and company pages never show them; a name no entity was found for stays 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import type { IngestCounts } from '../../src/pipeline/ingest.ts';
import type { Db } from '../../src/store/db.ts';
import {
  closeApp,
  type Envelope,
  getJson,
  type Injector,
  makeKey,
  openSeededApp,
  withKey,
} from '../support/app.ts';
import { DocValidator, type Json, type OpenApiDoc } from './openapi-support.ts';

interface Parent {
  entity_id: string;
  name: string;
  share: number | null;
  ticker: string | null;
}

interface Served {
  ticker: string | null;
  match_method: string;
  entity: { id: string; name: string } | null;
  owner_name: string | null;
  series_ticker: string | null;
  resolution: { as_of: string; no_ticker_reason: string | null; venture_parents: Parent[] };
}

interface Bundle {
  contract: Served;
  signal: unknown;
  weekly_prices: unknown[];
}

/** A distinctive agency, so the lists can be filtered to this file's awards. */
const AGENCY = 'Identity Readback Test Agency';
const CARLYLE = 'Private (The Carlyle Group funds)';
const LEIDOS = 'Leidos Holdings Inc. (formerly SAIC Inc.)';
const BOOZ = 'Booz Allen Hamilton Holding Corporation';
const BELL = 'Bell Textron Inc. (formerly Bell Helicopter Textron)';

interface Case {
  key: string;
  name: string;
  date: string;
  /** [ticker, owner_name, no_ticker_reason, entity id] expected. */
  expect: [string | null, string, string | null, string];
}

const UNLISTED: Case[] = [
  {
    key: 'saic-2005',
    name: 'SCIENCE APPLICATIONS INTERNATIONAL CORP',
    date: '2005-06-01',
    expect: [null, LEIDOS, 'not_yet_public', 'leidos'],
  },
  {
    key: 'saic-ipo-eve',
    name: 'SAIC',
    date: '2006-10-16',
    expect: [null, LEIDOS, 'not_yet_public', 'leidos'],
  },
  {
    key: 'booz-2007',
    name: 'BOOZ ALLEN HAMILTON INC',
    date: '2007-01-10',
    expect: [null, BOOZ, 'not_yet_public', 'booz_allen'],
  },
  {
    key: 'booz-carlyle',
    name: 'BOOZ ALLEN HAMILTON INC',
    date: '2009-06-01',
    expect: [null, CARLYLE, 'private', 'booz_allen'],
  },
  {
    key: 'mantech-private',
    name: 'MANTECH ADVANCED SYSTEMS INTERNATIONAL INC',
    date: '2023-03-01',
    expect: [null, CARLYLE, 'private', 'mantech'],
  },
  {
    key: 'dyncorp-employee',
    name: 'DYNCORP',
    date: '2001-06-01',
    expect: [null, 'Private (owned by its employees)', 'private', 'dyncorp'],
  },
  {
    key: 'bell-boeing',
    name: 'BELL BOEING JOINT PROGRAM OFFICE',
    date: '2010-03-01',
    expect: [null, 'Bell Boeing Joint Program Office', 'joint_venture', 'bell_boeing'],
  },
  {
    key: 'ula',
    name: 'UNITED LAUNCH ALLIANCE LLC',
    date: '2012-05-01',
    expect: [null, 'United Launch Alliance LLC', 'joint_venture', 'united_launch_alliance'],
  },
];

/** Stable controls and the other side of each private era: still their tickers. */
const LISTED: Case[] = [
  {
    key: 'saic-ipo-day',
    name: 'SCIENCE APPLICATIONS INTERNATIONAL CORP',
    date: '2006-10-17',
    expect: ['SAI', LEIDOS, null, 'leidos'],
  },
  {
    key: 'booz-ipo-day',
    name: 'BOOZ ALLEN HAMILTON INC',
    date: '2010-11-17',
    expect: ['BAH', BOOZ, null, 'booz_allen'],
  },
  {
    key: 'mantech-listed',
    name: 'MANTECH ADVANCED SYSTEMS INTERNATIONAL INC',
    date: '2022-09-13',
    expect: ['MANT', 'ManTech International Corporation', null, 'mantech'],
  },
  {
    key: 'lockheed',
    name: 'LOCKHEED MARTIN CORPORATION',
    date: '2015-01-05',
    expect: ['LMT', 'Lockheed Martin Corporation', null, 'lockheed_martin'],
  },
  {
    key: 'raytheon',
    name: 'RAYTHEON COMPANY',
    date: '2018-02-01',
    expect: ['RTN', 'Raytheon Company', null, 'raytheon_co'],
  },
  {
    key: 'boeing',
    name: 'THE BOEING COMPANY',
    date: '2010-03-01',
    expect: ['BA', 'The Boeing Company', null, 'boeing'],
  },
];

const RTX = 'RTX Corporation (formerly United Technologies Corporation and Raytheon Technologies)';
/** One registrant before and after its rename: `?ticker=` is the ticker of the award's own date. */
const RENAMED: Case[] = [
  { key: 'utc', name: 'UNITED TECHNOLOGIES CORP', date: '2015-01-05', expect: ['UTX', RTX, null, 'rtx'] },
  {
    key: 'rtx',
    name: 'RAYTHEON TECHNOLOGIES CORPORATION',
    date: '2021-01-05',
    expect: ['RTX', RTX, null, 'rtx'],
  },
];

const UNKNOWN = { key: 'unknown', name: 'QZXV NONEXISTENT WIDGET WORKS LLC', date: '2015-01-05' };

const idOf = (key: string) =>
  `CONT_AWD_READBACK_${key.toUpperCase().replaceAll('-', '_')}_9700_-NONE-_-NONE-`;

let db: Db;
let app: App;
let client: Injector;
let doc: OpenApiDoc;
let validator: DocValidator;

before(async () => {
  ({ db, app, client } = await openSeededApp());
  const admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
  const awards = [...UNLISTED, ...LISTED, ...RENAMED, UNKNOWN].map((c, i) => ({
    contract_award_unique_key: idOf(c.key),
    award_id_piid: `READBACK${i}`,
    recipient_name: c.name,
    awarding_agency_name: AGENCY,
    current_total_value_of_award: 90_000_000,
    award_base_action_date: c.date,
    prime_award_base_transaction_description: 'AIRCRAFT SUSTAINMENT AND LOGISTICS SUPPORT',
  }));
  const res = await admin.inject({ method: 'POST', url: '/api/v1/admin/ingest', payload: { awards } });
  assert.equal(res.statusCode, 200, res.body);
  const counts = res.json<IngestCounts>();
  assert.deepEqual([counts.rejected, counts.matched], [[], LISTED.length + RENAMED.length]);
  doc = (await getJson<OpenApiDoc>(client, '/api/v1/openapi.json')).body;
  validator = new DocValidator(doc);
});
after(() => closeApp(app, db));

async function read(key: string): Promise<{ status: number; body: Bundle & Envelope }> {
  const { status, body } = await getJson<Bundle & Envelope>(client, `/api/v1/contracts/${idOf(key)}`);
  const schema = doc.paths['/api/v1/contracts/{id}']?.get?.responses[String(status)]?.content?.[
    'application/json'
  ]?.schema as Json | undefined;
  assert.ok(schema, `status ${status} is documented`);
  assert.equal(validator.check(schema, body), '', `${key}: the answer matches the document`);
  return { status, body };
}

describe('GET /api/v1/contracts/{id} of an award whose owner had no listed stock', () => {
  for (const c of [...UNLISTED, ...LISTED, ...RENAMED]) {
    test(`${c.name} on ${c.date} reads back as ${c.expect.slice(0, 3).join(' / ')}`, async () => {
      const { status, body } = await read(c.key);
      assert.equal(status, 200);
      const got = body.contract;
      assert.deepEqual(
        [got.ticker, got.owner_name, got.resolution.no_ticker_reason, got.entity?.id],
        c.expect,
      );
      assert.equal(got.resolution.as_of, c.date);
      assert.notEqual(got.match_method, 'none', 'says how the recipient was identified');
      if (got.ticker === null) {
        assert.deepEqual([got.series_ticker, body.signal, body.weekly_prices], [null, null, []]);
      }
      if (got.resolution.no_ticker_reason !== 'joint_venture')
        assert.deepEqual(got.resolution.venture_parents, []);
    });
  }

  test('a joint venture names both parents with their shares and tickers then', async () => {
    const parents = async (key: string) =>
      (await read(key)).body.contract.resolution.venture_parents
        .map((p) => [p.entity_id, p.name, p.share, p.ticker])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(await parents('bell-boeing'), [
      ['bell', BELL, 0.5, 'TXT'],
      ['boeing', 'The Boeing Company', 0.5, 'BA'],
    ]);
    assert.deepEqual(await parents('ula'), [
      ['boeing', 'The Boeing Company', 0.5, 'BA'],
      ['lockheed_martin', 'Lockheed Martin Corporation', 0.5, 'LMT'],
    ]);
  });

  test('it has no score: GET and POST …/score answer 404', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const res = await client.inject({ method, url: `/api/v1/contracts/${idOf('booz-carlyle')}/score` });
      assert.equal(res.statusCode, 404, `${method} ${res.body}`);
      assert.equal(res.json<Envelope>().error.code, 'not_found');
    }
  });

  test('a recipient no entity was found for is still not a contract', async () => {
    const { status, body } = await read(UNKNOWN.key);
    assert.equal(status, 404);
    assert.equal(body.error.message, `contract not found: ${idOf(UNKNOWN.key)}`);
  });

  test('hostile ids answer 404 or 400 with the error envelope, never 5xx', async () => {
    const ids = [
      "CONT_AWD_READBACK' OR '1'='1",
      '%00',
      '..%2F..%2Fetc%2Fpasswd',
      encodeURIComponent('CONT_AWD_<script>alert(1)</script>'),
      encodeURIComponent('ＣＯＮＴ＿ＡＷＤ＿ü\u202e'),
      encodeURIComponent(`${idOf('booz-carlyle')} `),
      'A'.repeat(201),
    ];
    for (const id of ids) {
      const res = await client.inject({ method: 'GET', url: `/api/v1/contracts/${id}` });
      assert.ok([400, 404].includes(res.statusCode), `${id}: ${res.statusCode}`);
      assert.equal(res.json<Envelope>().error.status, res.statusCode, id);
    }
  });
});

describe('the lists never show a contract without a ticker', () => {
  const ours = (ids: readonly string[]) => ids.filter((id) => id.startsWith('CONT_AWD_READBACK_')).sort();
  const listedIds = [...LISTED, ...RENAMED].map((c) => idOf(c.key)).sort();
  const agency = `agency=${encodeURIComponent(AGENCY)}`;

  test('/events, /contracts and their export hold exactly the awards with a ticker', async () => {
    for (const path of ['/api/v1/events', '/api/v1/contracts']) {
      const { status, body } = await getJson<{ data: { contract: Served & { id: string } }[] }>(
        client,
        `${path}?${agency}&limit=200`,
      );
      assert.equal(status, 200);
      assert.deepEqual(ours(body.data.map((i) => i.contract.id)), listedIds, path);
      assert.ok(
        body.data.every((i) => i.contract.ticker !== null && i.contract.resolution.no_ticker_reason === null),
      );
    }
    const res = await client.inject({ url: `/api/v1/events/export?${agency}&format=ndjson` });
    assert.equal(res.statusCode, 200, res.body);
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { contract: { id: string } });
    assert.deepEqual(ours(lines.map((l) => l.contract.id)), listedIds);
    const csv = await client.inject({ url: `/api/v1/events/export?${agency}` });
    const unlisted = UNLISTED.map((c) => idOf(c.key));
    assert.ok(
      unlisted.every((id) => !csv.body.includes(id)),
      'not in the CSV export',
    );
  });

  test('?ticker= is the ticker of the award’s date: RTX does not list United Technologies’ awards, UTX does', async () => {
    const ids = async (ticker: string) =>
      ours(
        (
          await getJson<{ data: { contract: { id: string } }[] }>(
            client,
            `/api/v1/events?${agency}&ticker=${ticker}&limit=200`,
          )
        ).body.data.map((i) => i.contract.id),
      );
    assert.deepEqual(await ids('RTX'), [idOf('rtx')]);
    assert.deepEqual(await ids('UTX'), [idOf('utc')]);
  });

  test('/signals, its export and the parents’ company pages do not hold them', async () => {
    const unlisted = new Set(UNLISTED.map((c) => idOf(c.key)));
    for (const url of [
      '/api/v1/signals?limit=200&ticker=BA',
      '/api/v1/signals?limit=200&ticker=LMT',
      '/api/v1/signals/export?format=ndjson&ticker=TXT',
      '/api/v1/companies/BA',
      '/api/v1/companies/TXT',
      '/api/v1/companies/LMT',
      '/api/v1/companies/BAH',
      '/api/v1/companies/LDOS',
    ]) {
      const res = await client.inject({ url });
      assert.ok([200, 404].includes(res.statusCode), `${url}: ${res.statusCode}`);
      const found = [...unlisted].filter((id) => res.body.includes(id));
      assert.deepEqual(found, [], url);
    }
    const [scored] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM signals WHERE contract_id = ANY($1::text[])',
      [[...unlisted]],
    );
    assert.equal(scored?.n, 0, 'never scored');
  });
});
