/**
 * The Explorer's dashboard API: the signals list answers what /api/v1/signals answers a key of the same
 * plan (tiers, rationale), its extra filters, hostile query values (400 in the envelope, never 5xx), the
 * signal stream's notification on a new signal, and the evidence stored per engine version.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSession, SESSION_COOKIE } from '../../src/dashboard/sessions.ts';
import { getEngine } from '../../src/domain/engines/index.ts';
import type { Plan } from '../../src/domain/plans.ts';
import { studyEngineVersion } from '../../src/evaluation/evidence.ts';
import type { App } from '../../src/http/types.ts';
import { scoreContract } from '../../src/pipeline/score.ts';
import type { Db } from '../../src/store/db.ts';
import { closeApp, type Envelope, makeKey, testApp } from '../support/app.ts';
import { cli } from '../support/cli.ts';
import { seededDb } from '../support/db.ts';
import { URL_VALUES } from '../support/hostile.ts';

let db: Db;
let app: App;
const users: Partial<Record<Plan, { cookie: string; key: string }>> = {};

before(async () => {
  db = await seededDb();
  app = await testApp(db);
  for (const plan of ['free', 'developer', 'institutional'] as const) {
    const { raw, userId } = await makeKey(db, { plan, mode: 'test', scopes: ['read'] });
    const { token } = await openSession(db, userId, new Date());
    users[plan] = { cookie: `${SESSION_COOKIE}=${token}`, key: raw };
  }
});
after(() => closeApp(app, db));

function as(plan: Plan) {
  const user = users[plan];
  assert.ok(user);
  return user;
}
const dashboard = (plan: Plan, url: string) =>
  app.inject({ url: `/dashboard/api${url}`, headers: { cookie: as(plan).cookie } });
const keyed = (plan: Plan, url: string) =>
  app.inject({ url: `/api/v1${url}`, headers: { 'x-api-key': as(plan).key } });

interface Item {
  signal: { id: string; signal_score: number; computed_at: string; rationale?: unknown[] };
  contract: { id: string; ticker: string; nlp_classification: string; award_date: string };
}
interface Page {
  engine: string;
  version: string;
  engines: { name: string; reachable: boolean }[];
  data: Item[];
}

describe('dashboard signals: the API’s tiers for the signed-in plan', () => {
  for (const plan of ['free', 'developer', 'institutional'] as const) {
    test(`${plan}: the same items as /api/v1/signals for a key of that plan`, async () => {
      const query = '?min_score=60&limit=20&offset=5';
      const mine = await dashboard(plan, `/signals${query}`);
      const theirs = await keyed(plan, `/signals${query}`);
      assert.equal(mine.statusCode, 200, mine.body);
      assert.equal(theirs.statusCode, 200, theirs.body);
      const page = mine.json() as Page;
      assert.deepEqual(page.data, (theirs.json() as { data: Item[] }).data);
      assert.equal(page.data.length, 20);
      assert.equal(
        page.data.every((item) => item.signal.rationale !== undefined),
        plan === 'institutional',
        'rationale on the intelligence tier only',
      );
    });
  }

  test('an engine above the plan’s tier is the API’s 403 tier_required', async () => {
    for (const plan of ['free', 'developer'] as const) {
      const res = await dashboard(plan, '/signals?engine=regime-aware');
      assert.equal(res.statusCode, 403);
      const api = await keyed(plan, '/signals?engine=regime-aware');
      assert.equal(api.statusCode, 403);
      assert.equal((res.json() as Envelope).error.code, 'tier_required');
      assert.equal((res.json() as Envelope).error.message, (api.json() as Envelope).error.message);
    }
    const page = (await dashboard('institutional', '/signals?engine=regime-aware&limit=3')).json() as Page;
    assert.equal(page.engine, 'regime-aware');
    assert.equal(page.data.length, 3);
    const free = (await dashboard('free', '/signals?limit=1')).json() as Page;
    assert.deepEqual(
      free.engines.map((e) => [e.name, e.reachable]),
      [
        ['materiality', true],
        ['regime-aware', false],
        ['announcement-size', true],
        ['announcement-dv', true],
      ],
    );
  });

  test('without a session: 401', async () => {
    assert.equal((await app.inject({ url: '/dashboard/api/signals' })).statusCode, 401);
    assert.equal((await app.inject({ url: '/dashboard/api/evidence' })).statusCode, 401);
    assert.equal((await app.inject({ url: '/dashboard/api/signal-stream' })).statusCode, 401);
  });
});

describe('dashboard signals: filters', () => {
  test('ticker, minimum score, classification and award dates each narrow the list to matching rows', async () => {
    const [probe] = await db.query<{ nlp_classification: string; n: number }>(
      `SELECT c.nlp_classification, count(*)::int AS n FROM signals s JOIN contracts c ON c.id = s.contract_id
       WHERE s.engine_name = 'materiality' AND c.ticker = 'LMT' AND c.award_date BETWEEN '2022-01-01' AND '2023-12-31'
         AND s.signal_score >= 50
       GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    );
    assert.ok(probe && probe.n > 0, 'the demo data has such signals');
    const res = await dashboard(
      'developer',
      `/signals?ticker=lmt&min_score=50&classification=${probe.nlp_classification}&from=2022-01-01&to=2023-12-31&limit=200`,
    );
    assert.equal(res.statusCode, 200, res.body);
    const { data } = res.json() as Page;
    assert.equal(data.length, Math.min(200, probe.n));
    for (const { signal, contract } of data) {
      assert.equal(contract.ticker, 'LMT');
      assert.ok(signal.signal_score >= 50);
      assert.equal(contract.nlp_classification, probe.nlp_classification);
      assert.ok(contract.award_date >= '2022-01-01' && contract.award_date <= '2023-12-31');
    }
  });

  test('since: only signals computed from then on', async () => {
    const later = new Date(Date.now() + 60_000).toISOString();
    const none = (await dashboard('developer', `/signals?since=${later}`)).json() as Page;
    assert.equal(none.data.length, 0);
  });

  test('from after to is a 400 naming the parameter', async () => {
    const res = await dashboard('developer', '/signals?from=2024-02-01&to=2024-01-01');
    assert.equal(res.statusCode, 400);
    assert.match((res.json() as Envelope).error.message, /"from"/);
  });
});

describe('hostile query values: 400 in the envelope, never 5xx', () => {
  const params: Record<string, string[]> = {
    '/signals': ['engine', 'min_score', 'ticker', 'classification', 'from', 'to', 'since', 'limit', 'offset'],
    '/evidence': ['engine'],
  };
  for (const [url, names] of Object.entries(params)) {
    test(url, async () => {
      let refused = 0;
      for (const name of [...names, 'unknown_param']) {
        for (const value of URL_VALUES) {
          const res = await dashboard('institutional', `${url}?${name}=${value.encoded}`);
          assert.ok(res.statusCode < 500, `${url} ${name}=${value.label}: ${res.statusCode} ${res.body}`);
          if (res.statusCode >= 400) {
            const body = res.json() as Envelope;
            assert.equal(body.error.status, res.statusCode, `${name}=${value.label}`);
            refused += 1;
          }
        }
        const repeated = await dashboard('institutional', `${url}?${name}=1&${name}=2`);
        assert.equal(repeated.statusCode, 400, `${name} repeated`);
      }
      assert.ok(refused > names.length * 5, `only ${refused} refusals`);
    });
  }
  test('typed values out of range are refused by name', async () => {
    for (const bad of [
      'min_score=101',
      'min_score=-1',
      'limit=0',
      'limit=201',
      'from=2024-02-30',
      'since=yesterday',
    ]) {
      const res = await dashboard('developer', `/signals?${bad}`);
      assert.equal(res.statusCode, 400, bad);
      assert.equal((res.json() as Envelope).error.code, 'invalid_parameter', bad);
    }
    assert.equal((await dashboard('developer', '/signals?classification=nope')).statusCode, 400);
    assert.equal((await dashboard('developer', '/signals?engine=nope')).statusCode, 400);
  });
});

describe('signal stream', () => {
  test('a new signal is announced on the stream; the list then has it', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    assert.ok(address && typeof address === 'object');
    // node:http, not fetch: an aborted fetch leaves a fresh idle connection behind that holds up close.
    const res = await new Promise<IncomingMessage>((resolve, reject) =>
      get(
        `http://127.0.0.1:${address.port}/dashboard/api/signal-stream`,
        { headers: { cookie: as('developer').cookie } },
        resolve,
      ).on('error', reject),
    );
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] ?? '', /^text\/event-stream/);
    assert.equal(res.headers['cache-control'], 'no-store');
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
    });
    const until = async (pattern: RegExp) => {
      const deadline = Date.now() + 10_000;
      while (!pattern.test(text)) {
        assert.ok(Date.now() < deadline, `no ${pattern} in ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    await until(/event: ready\ndata: \{"live":true,"at":"[^"]+"\}\n\n/);
    assert.doesNotMatch(text, /event: signals/);

    const [contract] = await db.query<{ id: string }>("SELECT id FROM contracts WHERE ticker = 'GD' LIMIT 1");
    assert.ok(contract);
    await db.query("DELETE FROM signals WHERE contract_id = $1 AND engine_name = 'materiality'", [
      contract.id,
    ]);
    const engine = getEngine('materiality');
    assert.ok(engine);
    const before = new Date();
    await scoreContract(db, contract.id, engine, new Date(), 75);
    await until(/event: signals\n/);
    res.destroy();
    const page = (
      await dashboard('developer', `/signals?ticker=GD&since=${before.toISOString()}`)
    ).json() as Page;
    assert.deepEqual(
      page.data.map((item) => item.contract.id),
      [contract.id],
    );
  });
});

describe('evidence', () => {
  test('computed on the first request, stored, and equal to the study run directly', async () => {
    await db.query('DELETE FROM event_studies');
    const res = await dashboard('developer', '/evidence');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as {
      engine: string;
      version: string;
      contracts: number;
      contracts_now: number;
      study: Awaited<ReturnType<typeof studyEngineVersion>>['summary'];
    };
    assert.equal(body.engine, 'materiality');
    const direct = await studyEngineVersion(db, 'materiality', body.version);
    assert.equal(body.contracts, direct.contracts);
    assert.equal(body.contracts_now, direct.contracts);
    assert.deepEqual(body.study, JSON.parse(JSON.stringify(direct.summary)));
    assert.deepEqual(body.study.benchmarks, ['ITA', 'SPY', 'XLI']);
    assert.deepEqual(body.study.horizons, [1, 5, 20]);
    const panel = body.study.panels.find((p) => p.benchmark === 'ITA' && p.horizon === 20);
    assert.ok(panel);
    assert.ok(panel.priced > 1000, 'the demo data prices most contracts');
    for (const bucket of panel.buckets) {
      assert.ok(bucket.n > 1 && bucket.mean !== null && bucket.se !== null);
      assert.ok(Math.abs(bucket.mean - 1.96 * bucket.se - (bucket.ciLow ?? Number.NaN)) < 1e-12);
    }
    assert.equal(panel.topMinusBottom?.significant, Math.abs(panel.topMinusBottom?.t ?? 0) >= 1.96);
    // The top − bottom contrast beside 38 shifted-date placebos, and the verdict in words.
    const placebo = body.study.placebo;
    assert.ok(placebo);
    assert.deepEqual([placebo.benchmark, placebo.horizon], ['SPY', 5]);
    assert.equal(placebo.placebos.length, 38);
    assert.ok(placebo.real.n > 100 && placebo.placebos.every((p) => p.diff !== null));
    const beaten = placebo.placebos.filter((p) => (p.diff ?? 0) < (placebo.real.diff ?? 0)).length;
    assert.equal(placebo.percentile, beaten / 38);
    assert.equal(placebo.evidence, (placebo.percentile ?? 0) >= 0.95 && (placebo.real.t ?? 0) >= 2.5);
    assert.match(placebo.verdict, placebo.evidence ? /^Evidence:/ : /^No evidence:/);
    const stored = await db.query<{ computed_at: string }>('SELECT computed_at FROM event_studies');
    assert.equal(stored.length, 1);
    // Read back, not redone: the same moment.
    const again = (await dashboard('free', '/evidence')).json() as { computed_at: string };
    assert.equal(again.computed_at, stored[0]?.computed_at);
  });

  test('a study stored before placebos were part of it is redone on the next request', async () => {
    const version = getEngine('materiality')?.version ?? '';
    await db.query(
      `UPDATE event_studies SET summary = (summary::jsonb - 'placebo')::text, computed_at = '2000-01-01T00:00:00Z'
       WHERE engine_name = 'materiality' AND engine_version = $1`,
      [version],
    );
    const body = (await dashboard('developer', '/evidence')).json() as {
      computed_at: string;
      study: { placebo: unknown };
    };
    assert.notEqual(body.computed_at, '2000-01-01T00:00:00.000Z');
    assert.ok(body.study.placebo);
  });

  test('an engine above the plan’s tier: 403 tier_required; on the intelligence tier, its study', async () => {
    const res = await dashboard('developer', '/evidence?engine=regime-aware');
    assert.equal(res.statusCode, 403);
    assert.equal((res.json() as Envelope).error.code, 'tier_required');
    const ok = await dashboard('institutional', '/evidence?engine=regime-aware');
    assert.equal(ok.statusCode, 200);
    assert.equal((ok.json() as { engine: string }).engine, 'regime-aware');
  });
});

describe('prediction track record', () => {
  test('intelligence tier: the newest predictions oldest first and the API’s model block; below it 403', async () => {
    const refused = await dashboard('developer', '/predictions');
    assert.equal(refused.statusCode, 403);
    assert.equal((refused.json() as Envelope).error.code, 'tier_required');
    const res = await dashboard('institutional', '/predictions');
    assert.equal(res.statusCode, 200);
    const body = res.json() as { data: { made_at: string; contract_id: string }[]; model: unknown };
    const api = (await keyed('institutional', '/predictions?limit=200')).json() as {
      data: { contract_id: string }[];
      model: unknown;
    };
    assert.deepEqual(body.model, api.model);
    assert.ok(body.data.length >= api.data.length);
    assert.deepEqual(
      body.data.slice(-api.data.length).map((p) => p.contract_id),
      api.data.map((p) => p.contract_id).reverse(),
    );
  });
});

describe('evaluate stores the study the Evidence page reads', () => {
  test('`market-intel evaluate` replaces the stored summary with its own run', async () => {
    const version = getEngine('materiality')?.version ?? '';
    await db.query(
      `INSERT INTO event_studies (engine_name, engine_version, computed_at, contracts, summary)
       VALUES ('materiality', $1, '2000-01-01T00:00:00Z', 0, '{}')
       ON CONFLICT (engine_name, engine_version) DO UPDATE SET computed_at = EXCLUDED.computed_at,
         contracts = 0, summary = '{}'`,
      [version],
    );
    const out = await mkdtemp(path.join(tmpdir(), 'mi-evidence-'));
    try {
      const run = await cli(['evaluate', '--out', out], { DATABASE_URL: db.url ?? '', DATA_DIR: out });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /stored the study for the dashboard's Evidence page/);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
    const res = await dashboard('developer', '/evidence');
    const body = res.json() as { computed_at: string; contracts: number; study: unknown };
    assert.notEqual(body.computed_at, '2000-01-01T00:00:00.000Z');
    const direct = await studyEngineVersion(db, 'materiality', version);
    assert.equal(body.contracts, direct.contracts);
    assert.deepEqual(body.study, JSON.parse(JSON.stringify(direct.summary)));
  });
});
