/**
 * Cursor paging on every list: following `next_cursor` to the end yields the rows of one big offset
 * listing, pages stay exact while awards are ingested between them, and a cursor is refused (400) by
 * another list, other filters or beside an offset.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { defaultEngine } from '../../src/domain/engines/index.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { createWebhook } from '../../src/webhooks/service.ts';
import { TargetPolicy } from '../../src/webhooks/target.ts';
import { closeApp, type Envelope, type Injector, makeKey, testApp, withKey } from '../support/app.ts';
import { seededDb } from '../support/db.ts';
import { recordedBulkRecords } from '../support/fake-usaspending.ts';
import { enqueue } from '../webhooks/helpers.ts';

interface Page<T = Record<string, unknown>> {
  data: T[];
  pagination: { limit: number; offset: number; count: number; next_cursor: string | null };
}

let db: Db;
let app: App;
let client: Injector;
let userId: string;
let webhookId: string;
let deliveryId: string;

before(async () => {
  db = await seededDb();
  app = await testApp(db);
  const caller = await makeKey(db, { scopes: ['read', 'write', 'admin'], admin: true });
  client = withKey(app, caller.raw);
  userId = caller.userId;
  const ctx = {
    db,
    secretKey: null,
    policy: new TargetPolicy(),
    resolve: async () => [{ address: '93.184.216.34', family: 4 as const }],
    now: () => new Date(),
    secretOverlapMs: 0,
  };
  for (let i = 0; i < 11; i += 1) {
    const { webhook } = await createWebhook(ctx, { userId, url: `https://hooks.example.com/${i}` });
    webhookId = webhook.id;
  }
  // Ties in the first sort column: the id alone orders them.
  await db.query(`UPDATE webhooks SET created_at = '2024-03-01T00:00:00.123456Z' WHERE user_id = $1`, [
    userId,
  ]);
  const deliveries = await enqueue(
    db,
    webhookId,
    Array.from({ length: 13 }, (_, i) => ({ i })),
  );
  deliveryId = deliveries[0]?.id ?? '';
  for (const [series, attempt] of [
    [1, 1],
    [1, 2],
    [1, 3],
    [2, 1],
    [2, 2],
    [3, 1],
    [3, 2],
  ]) {
    await db.query(
      `INSERT INTO webhook_attempts (id, delivery_id, series, attempt_no, started_at) VALUES ($1, $2, $3, $4, now())`,
      [randomUUID(), deliveryId, series, attempt],
    );
  }
});
after(() => closeApp(app, db));

async function get<T = Record<string, unknown>>(url: string) {
  const res = await client.inject(url);
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return { page: res.json<Page<T>>(), link: res.headers.link as string | undefined };
}

const join = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

/** Follows `next_cursor` from the first page to the last (or until `enough` rows), checking each Link header. */
async function walk<T>(
  url: string,
  limit: number,
  options: { enough?: number; between?: (page: Page<T>) => Promise<void> } = {},
): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const next: string = join(url, `limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    const { page, link } = await get<T>(next);
    pages += 1;
    rows.push(...page.data);
    assert.ok(page.data.length <= limit);
    cursor = page.pagination.next_cursor;
    if (cursor === null) assert.equal(link, undefined, 'no Link on the last page');
    else {
      assert.equal(page.data.length, limit, 'only a full page has a next one');
      assert.match(link ?? '', new RegExp(`^<[^>]*[?&]cursor=${cursor}(&|>)[^>]*>?; rel="next"$`));
    }
    if (options.enough !== undefined && rows.length >= options.enough) break;
    await options.between?.(page);
  } while (cursor !== null);
  return { rows, pages };
}

/** A cursor walk in small pages gives the rows, in order, of one big offset listing. */
async function sameAsOneListing(url: string, id: (row: never) => string, small: number, big: number) {
  const { page: one } = await get(join(url, `limit=${big}`));
  const walked = await walk(url, small, { enough: one.data.length });
  const ids = (rows: unknown[]) => rows.map((row) => id(row as never));
  assert.ok(one.data.length > small, `${url}: enough rows for several pages (${one.data.length})`);
  assert.ok(walked.pages > 1);
  if (one.pagination.next_cursor === null) {
    assert.deepEqual(ids(walked.rows), ids(one.data), `${url}: every row, once, in order`);
  } else {
    assert.deepEqual(ids(walked.rows).slice(0, one.data.length), ids(one.data), url);
  }
}

type Row = Record<string, Record<string, string>> & Record<string, string>;

describe('following next_cursor yields the rows of one offset listing', () => {
  const contractId = (row: Row) => row.contract?.id ?? '';
  const cases: [string, (row: Row) => string, number, number][] = [
    ['/api/v1/events?ticker=LMT', contractId, 7, 200],
    ['/api/v1/events', contractId, 23, 200],
    ['/api/v1/contracts?classification=aircraft', contractId, 9, 200],
    ['/api/v1/signals?ticker=LMT', (row) => row.signal?.id ?? '', 7, 200],
    ['/api/v1/signals?min_score=0', (row) => row.signal?.id ?? '', 19, 200],
    ['/api/v1/regimes', (row) => row.contract_id ?? '', 13, 200],
    ['/api/v1/admin/unmatched-recipients', (row) => row.name_norm ?? '', 7, 1000],
  ];
  for (const [url, id, small, big] of cases) {
    test(url, () => sameAsOneListing(url, id, small, big));
  }

  const byId = (row: Row) => row.id ?? '';
  test('/api/v1/webhooks and the admin list of a user’s webhooks (tied created_at)', async () => {
    await sameAsOneListing('/api/v1/webhooks', byId, 3, 200);
    await sameAsOneListing(`/api/v1/admin/users/${userId}/webhooks`, byId, 4, 200);
  });

  test('/api/v1/admin/users, all and searched (tied created_at)', async () => {
    const made = [];
    for (let i = 0; i < 9; i += 1) made.push((await makeKey(db)).userId);
    await db.query(`UPDATE users SET created_at = '2024-03-01T00:00:00.123456Z' WHERE id = ANY($1)`, [made]);
    await sameAsOneListing('/api/v1/admin/users', byId, 3, 200);
    await sameAsOneListing('/api/v1/admin/users?q=%40example.test', byId, 2, 200);
  });

  test('a webhook’s deliveries and a delivery’s attempts, for the owner and for an admin', async () => {
    await sameAsOneListing(`/api/v1/webhooks/${webhookId}/deliveries`, byId, 4, 200);
    await sameAsOneListing(`/api/v1/admin/webhooks/${webhookId}/deliveries`, byId, 5, 200);
    await sameAsOneListing(`/api/v1/webhooks/deliveries/${deliveryId}/attempts`, byId, 2, 1000);
    await sameAsOneListing(`/api/v1/admin/deliveries/${deliveryId}/attempts`, byId, 3, 1000);
  });
});

describe('a cursor is refused where it does not belong', () => {
  const refusal = async (url: string) => {
    const res = await client.inject(url);
    assert.equal(res.statusCode, 400, res.body);
    const { error } = res.json<Envelope>();
    assert.equal(error.code, 'invalid_parameter');
    assert.match(error.message, /"cursor"/);
    return error.message;
  };

  test('beside a non-zero offset (offset=0 is fine)', async () => {
    const { page } = await get('/api/v1/events?limit=5');
    const cursor = page.pagination.next_cursor;
    assert.ok(cursor);
    assert.match(await refusal(`/api/v1/events?limit=5&offset=5&cursor=${cursor}`), /offset/);
    const { page: second } = await get(`/api/v1/events?limit=5&offset=0&cursor=${cursor}`);
    assert.equal(second.pagination.offset, 0);
  });

  test('on another list, or with other filters; /contracts takes a cursor of /events', async () => {
    const { page } = await get('/api/v1/events?ticker=LMT&limit=5');
    const cursor = page.pagination.next_cursor;
    assert.ok(cursor);
    assert.match(await refusal(`/api/v1/signals?ticker=LMT&cursor=${cursor}`), /another list/);
    assert.match(await refusal(`/api/v1/events?ticker=BA&limit=5&cursor=${cursor}`), /other filters/);
    assert.match(await refusal(`/api/v1/events?limit=5&cursor=${cursor}`), /other filters/);
    const { page: alias } = await get(`/api/v1/contracts?ticker=LMT&limit=5&cursor=${cursor}`);
    const { page: events } = await get(`/api/v1/events?ticker=LMT&limit=5&cursor=${cursor}`);
    assert.deepEqual(alias, events);
    const { page: deliveries } = await get(`/api/v1/webhooks/${webhookId}/deliveries?limit=2`);
    const other = randomUUID();
    const res = await client.inject(
      `/api/v1/admin/webhooks/${other}/deliveries?limit=2&cursor=${deliveries.pagination.next_cursor}`,
    );
    assert.equal(res.statusCode, 400, 'a cursor of one webhook’s deliveries is not another’s');
  });

  test('a page that ends the list exactly has no next cursor; one row short of it has', async () => {
    const [{ n } = { n: 0 }] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contracts WHERE ticker = 'LMT' AND award_date >= '2024-01-01'`,
    );
    assert.ok(n > 1 && n <= 200, `LMT events since 2024: ${n}`);
    const whole = await get(`/api/v1/events?ticker=LMT&from=2024-01-01&limit=${n}`);
    assert.equal(whole.page.pagination.count, n);
    assert.equal(whole.page.pagination.next_cursor, null);
    assert.equal(whole.link, undefined);
    const short = await get(`/api/v1/events?ticker=LMT&from=2024-01-01&limit=${n - 1}`);
    const cursor = short.page.pagination.next_cursor;
    assert.ok(cursor);
    const rest = await get(`/api/v1/events?ticker=LMT&from=2024-01-01&limit=${n}&cursor=${cursor}`);
    assert.equal(rest.page.data.length, 1);
    assert.equal(rest.page.pagination.next_cursor, null);
  });
});

/** Awards of Lockheed Martin from the recorded bulk records, with new ids and the given dates. */
function lmtAwards(tag: string, dates: string[]): Record<string, unknown>[] {
  const base = recordedBulkRecords().find((r) => /^LOCKHEED MARTIN/.test(String(r.recipient_name)));
  assert.ok(base);
  return dates.map((date, i) => ({
    ...base,
    contract_award_unique_key: `CONT_AWD_CUR${tag}${i}_9700_-NONE-_-NONE-`,
    award_id_piid: `CUR${tag}${i}`,
    award_base_action_date: date,
    // Distinct values: awards alike but for their id would be taken for one award reported twice.
    current_total_value_of_award: 1_000_000 + batch * 1000 + i,
  }));
}

let batch = 0;
async function ingest(dates: string[]): Promise<void> {
  batch += 1;
  const res = await client.inject({
    method: 'POST',
    url: '/api/v1/admin/ingest',
    payload: { awards: lmtAwards(`${process.pid}X${batch}X`, dates) },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json<{ inserted: number }>().inserted, dates.length, res.body);
}

describe('cursor pages and the response cache', () => {
  test('a cursor page is served from the cache until a write, then recomputed', async () => {
    const { page: first } = await get<Row>('/api/v1/events?limit=50');
    const from = first.data.at(-1)?.contract?.award_date ?? '';
    const url = `/api/v1/events?limit=50&cursor=${first.pagination.next_cursor}`;
    const a = await client.inject(url);
    const hits = app.caches.responses?.hits ?? 0;
    const b = await client.inject(url);
    assert.equal(b.headers.etag, a.headers.etag);
    assert.equal(b.headers.link, a.headers.link, 'the Link header is kept with the body');
    assert.equal(app.caches.responses?.hits, hits + 1, 'the second answer came from the cache');
    // A day strictly inside the second page's range: an award of that day belongs on it.
    const days = a.json<Page<Row>>().data.map((row) => row.contract?.award_date ?? '');
    const day = days.find((d) => d < from && d > (days.at(-1) ?? ''));
    assert.ok(day, `a day inside ${days.join(', ')}`);
    await ingest([day]);
    const c = await client.inject(url);
    assert.notEqual(c.headers.etag, a.headers.etag);
    const ids = c.json<Page<Row>>().data.map((row) => row.contract?.id ?? '');
    assert.ok(
      ids.some((id) => id.startsWith(`CONT_AWD_CUR${process.pid}X${batch}X`)),
      'the award ingested into the page’s range is on it',
    );
  });
});

describe('cursor pages stay exact while awards are ingested between them', () => {
  test('/api/v1/events: every event there at the start is seen exactly once', async () => {
    const start = await db.query<{ id: string }>(`SELECT id FROM contracts WHERE ticker = 'LMT'`);
    let newer = 0;
    const { rows, pages } = await walk<Row>('/api/v1/events?ticker=LMT', 10, {
      between: async (page) => {
        const last = page.data.at(-1)?.contract?.award_date;
        assert.ok(last);
        newer += 1;
        // Newer than all, older than all, and on the last row's own day (ids either side of it).
        const day = new Date(Date.UTC(2026, 0, 1) + newer * 86_400_000).toISOString().slice(0, 10);
        await ingest([day, '2001-01-02', last, last]);
      },
    });
    assert.ok(pages > 3, `several pages (${pages})`);
    assertExactlyOnce(
      rows.map((row) => row.contract?.id ?? ''),
      start.map((r) => r.id),
    );
  });

  test('/api/v1/signals: every signal there at the start is seen exactly once', async () => {
    const engine = defaultEngine();
    const start = await db.query<{ id: string }>(
      `SELECT id FROM signals WHERE ticker = 'LMT' AND engine_name = $1 AND engine_version = $2`,
      [engine.name, engine.version],
    );
    const { rows, pages } = await walk<Row>('/api/v1/signals?ticker=LMT', 10, {
      between: async (page) => {
        const last = page.data.at(-1)?.contract?.award_date;
        assert.ok(last);
        await ingest(['2026-05-01', '2001-01-03', last]);
      },
    });
    assert.ok(pages > 3, `several pages (${pages})`);
    assertExactlyOnce(
      rows.map((row) => row.signal?.id ?? ''),
      start.map((r) => r.id),
    );
  });
});

function assertExactlyOnce(seen: string[], existing: string[]): void {
  const counts = new Map<string, number>();
  for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
  assert.deepEqual(
    [...counts].filter(([, n]) => n > 1),
    [],
    'no row twice',
  );
  const missed = existing.filter((id) => !counts.has(id));
  assert.deepEqual(missed, [], 'no row that existed at the start is missed');
}
