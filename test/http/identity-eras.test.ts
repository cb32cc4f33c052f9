/**
 * Point-in-time identity through the API: for every dated ownership edge of the shipped identity data,
 * an award to the child on the day before the edge and one on its first day go in through the admin
 * ingest route and are read back: each names the owner of its own date.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type IdentityData, IdentityModel, inSpan } from '../../src/domain/identity.ts';
import type { App } from '../../src/http/types.ts';
import type { IngestCounts } from '../../src/pipeline/ingest.ts';
import { loadIdentityFiles } from '../../src/sources/identity.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, getJson, type Injector, makeKey, openSeededApp, withKey } from '../support/app.ts';

interface Case {
  id: string;
  name: string;
  date: string;
  edge: string;
  ticker: string | null;
  owner: string;
  reason: string | null;
}

interface ContractBody {
  contract: {
    ticker: string | null;
    entity: { id: string; name: string } | null;
    owner_name: string | null;
    series_ticker: string | null;
    resolution: {
      as_of: string;
      basis: string;
      resolver_version: string | null;
      no_ticker_reason: string | null;
      venture_parents: unknown[];
    };
  };
}

const DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));
let db: Db;
let app: App;
let client: Injector;
let admin: Injector;
let data: IdentityData;
let cases: Case[];

const dayBefore = (date: string) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

function caseFor(model: IdentityModel, child: string, date: string, edge: string, n: number): Case {
  const row = model.data.names.find((r) => r.entityId === child && inSpan(date, r.from, r.to));
  assert.ok(row, `${child} has a recipient name valid on ${date}`);
  const owner = model.ownerAt(child, date);
  assert.ok(owner);
  return {
    id: `CONT_AWD_IDENTITY${n}_9700_-NONE-_-NONE-`,
    name: `${row.name} INC`,
    date,
    edge,
    ticker: owner.ticker,
    owner: owner.owner.name,
    reason: owner.reason,
  };
}

before(async () => {
  ({ db, app, client } = await openSeededApp());
  admin = withKey(app, (await makeKey(db, { admin: true, scopes: ['admin'] })).raw);
  data = await loadIdentityFiles(DATA_DIR);
  const model = new IdentityModel(data);
  cases = [];
  for (const edge of data.edges) {
    if (edge.from === null || edge.share !== null) continue;
    const label = `${edge.child} ${edge.relation} ${edge.parent} ${edge.from}`;
    cases.push(caseFor(model, edge.child, dayBefore(edge.from), label, cases.length));
    cases.push(caseFor(model, edge.child, edge.from, label, cases.length));
  }
  const awards = cases.map((c) => ({
    contract_award_unique_key: c.id,
    award_id_piid: `IDENTITY${c.id.length}`,
    recipient_name: c.name,
    awarding_agency_name: 'Department of Defense',
    current_total_value_of_award: 75_000_000,
    award_base_action_date: c.date,
    prime_award_base_transaction_description: 'ENGINEERING AND LOGISTICS SUPPORT',
  }));
  const res = await admin.inject({ method: 'POST', url: '/api/v1/admin/ingest', payload: { awards } });
  assert.equal(res.statusCode, 200, res.body);
  const counts = res.json<IngestCounts>();
  assert.deepEqual(counts.rejected, []);
  assert.equal(counts.matched, cases.filter((c) => c.ticker !== null).length);
});
after(() => closeApp(app, db));

describe('an award resolves to the owner of its own date (every ownership edge, through the API)', () => {
  test('the day before and the first day of each edge name different owners', () => {
    assert.ok(cases.length >= 100, `${cases.length} cases`);
    for (let i = 0; i < cases.length; i += 2) {
      const [before, on] = [cases[i], cases[i + 1]];
      assert.notDeepEqual([before?.ticker, before?.owner], [on?.ticker, on?.owner], before?.edge);
    }
  });

  test('each award read back carries the ticker (or why none), entity and owner of its date, and the date basis', async () => {
    const wrong: string[] = [];
    assert.ok(
      cases.filter((c) => c.ticker === null).length >= 20,
      'owners without a ticker are among the cases',
    );
    for (const c of cases) {
      const { status, body } = await getJson<ContractBody>(client, `/api/v1/contracts/${c.id}`);
      if (status !== 200) {
        wrong.push(`${c.edge} ${c.date}: ${status}`);
        continue;
      }
      const got = body.contract;
      const served = [got.ticker, got.owner_name, got.resolution.no_ticker_reason];
      if (JSON.stringify(served) !== JSON.stringify([c.ticker, c.owner, c.reason])) {
        wrong.push(`${c.edge} ${c.date}: ${served.join('/')}, expected ${c.ticker}/${c.owner}/${c.reason}`);
      }
      assert.deepEqual([got.resolution.as_of, got.resolution.basis], [c.date, 'award_date']);
      assert.match(got.resolution.resolver_version ?? '', /^pit-2-/);
      assert.ok(got.entity, `${c.edge}: entity`);
    }
    assert.deepEqual(wrong, []);
  });

  test('well-known eras read back as their tickers then', async () => {
    const tickerOf = async (entity: string, date: string) => {
      const c = cases.find((x) => x.id && x.date === date && x.edge.startsWith(`${entity} `));
      assert.ok(c, `${entity} ${date}`);
      return (await getJson<ContractBody>(client, `/api/v1/contracts/${c.id}`)).body.contract?.ticker ?? null;
    };
    assert.equal(await tickerOf('mcdonnell_douglas', '1997-07-31'), 'MD');
    assert.equal(await tickerOf('mcdonnell_douglas', '1997-08-01'), 'BA');
    assert.equal(await tickerOf('sikorsky', '2015-11-05'), 'UTX');
    assert.equal(await tickerOf('sikorsky', '2015-11-06'), 'LMT');
    assert.equal(await tickerOf('l3', '2019-06-28'), 'LLL');
    assert.equal(await tickerOf('l3', '2019-06-29'), 'LHX');
  });

  test('a registrant keeps its series across a rename; a delisted owner has none', async () => {
    const series = async (date: string) => {
      const c = cases.find((x) => x.edge.startsWith('sikorsky ') && x.date === date);
      return (await getJson<ContractBody>(client, `/api/v1/contracts/${c?.id}`)).body.contract.series_ticker;
    };
    assert.equal(await series('2015-11-05'), 'RTX');
    const rtn = cases.find((x) => x.edge.startsWith('raytheon_co ') && x.ticker === 'RTN');
    const body = (await getJson<ContractBody>(client, `/api/v1/contracts/${rtn?.id}`)).body;
    assert.equal(body.contract.series_ticker, null);
  });
});

interface HistoryEvent {
  entity_id: string;
  relation: string;
  from: string | null;
}
interface CompanyBody {
  company: { ticker: string; name: string; cik: string | null; contract_count: number };
  recent_contracts: { ticker: string }[];
  history: {
    entity_id: string;
    listings: { ticker: string; from: string | null; to: string | null; series_ticker: string | null }[];
    acquisitions: HistoryEvent[];
    owners: HistoryEvent[];
  } | null;
}

describe('GET /api/v1/companies/{ticker} shows the history', () => {
  test('a registrant: listing eras across its rename, acquisitions with dates', async () => {
    const { status, body } = await getJson<CompanyBody>(client, '/api/v1/companies/LHX');
    assert.equal(status, 200);
    assert.deepEqual(
      body.history?.listings.map((l) => [l.ticker, l.from, l.to, l.series_ticker]),
      [
        ['HRS', null, '2019-06-29', 'LHX'],
        ['LHX', '2019-06-29', null, 'LHX'],
      ],
    );
    const acquired = body.history?.acquisitions.map((a) => [a.entity_id, a.relation, a.from]);
    assert.deepEqual(acquired, [
      ['exelis', 'acquired', '2015-05-29'],
      ['l3', 'merged', '2019-06-29'],
      ['aerojet_rocketdyne', 'acquired', '2023-07-28'],
    ]);
  });

  test('a delisted ticker the identity data knows answers with its record, successor and contracts', async () => {
    const { status, body } = await getJson<CompanyBody>(client, '/api/v1/companies/rtn');
    assert.equal(status, 200);
    assert.deepEqual(
      [body.company.ticker, body.company.name, body.company.cik],
      ['RTN', 'Raytheon Company', '0001047122'],
    );
    assert.deepEqual(
      body.history?.owners.map((o) => [o.entity_id, o.relation, o.from]),
      [['rtx', 'merged', '2020-04-03']],
    );
    assert.ok(body.company.contract_count > 0);
    assert.ok(body.recent_contracts.length > 0 && body.recent_contracts.every((c) => c.ticker === 'RTN'));
  });

  test('a listed company is not given the history of a delisted one that once used its ticker', async () => {
    const { status, body } = await getJson<CompanyBody>(client, '/api/v1/companies/GM');
    assert.equal(status, 200);
    assert.equal(body.history, null, 'today’s GM is not the General Motors of 1908–2009');
  });

  test('a ticker neither the companies nor the identity data know is still 404', async () => {
    const { status } = await getJson(client, '/api/v1/companies/QQQQZ');
    assert.equal(status, 404);
  });
});
