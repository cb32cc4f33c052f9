/**
 * Page iteration rules on scripted answers: `pagination.next_cursor` wins over offsets when present
 * (sent back as `cursor`, offset dropped), a null cursor ends the walk, a list without offsets has one
 * page, and `Link` targets are followed as given on the base URL's origin, refused on any other.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CrossOriginLinkError, MarketIntel, MarketIntelError } from '../../sdk/src/index.ts';
import { nextLink } from '../../sdk/src/pagination.ts';

function scripted(pages: { body: unknown; link?: string }[]) {
  const urls: URL[] = [];
  const fetchFn: typeof fetch = async (input) => {
    urls.push(new URL(String(input)));
    const page = pages.shift();
    assert.ok(page, `unexpected request ${String(input)}`);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (page.link) headers.link = page.link;
    return new Response(JSON.stringify(page.body), { status: 200, headers });
  };
  return {
    urls,
    client: new MarketIntel({ apiKey: 'iv_test_x', baseUrl: 'http://sdk.test', fetch: fetchFn }),
  };
}

const item = (id: string) => ({ contract: { id }, signal: null });

describe('iterating pages', () => {
  test('follows next_cursor, drops offset, keeps the filters, and stops at a null cursor', async () => {
    const { urls, client } = scripted([
      {
        body: {
          data: [item('a'), item('b')],
          pagination: { limit: 2, offset: 4, count: 2, next_cursor: 'c2' },
        },
      },
      {
        body: {
          data: [item('c'), item('d')],
          pagination: { limit: 2, offset: 0, count: 2, next_cursor: 'c3' },
        },
      },
      { body: { data: [item('e')], pagination: { limit: 2, offset: 0, count: 1, next_cursor: null } } },
    ]);
    const ids = [];
    for await (const event of client.events.iterate({ ticker: 'LMT', limit: 2, offset: 4 }))
      ids.push(event.contract.id);
    assert.deepEqual(ids, ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(
      urls.map((u) => u.search),
      ['?ticker=LMT&limit=2&offset=4', '?ticker=LMT&limit=2&cursor=c2', '?ticker=LMT&limit=2&cursor=c3'],
    );
  });

  test('a full page whose cursor is null is the last, even though count equals limit', async () => {
    const { urls, client } = scripted([
      { body: { data: [item('a')], pagination: { limit: 1, offset: 0, count: 1, next_cursor: null } } },
    ]);
    const ids = [];
    for await (const event of client.events.iterate({ limit: 1 })) ids.push(event.contract.id);
    assert.deepEqual(ids, ['a']);
    assert.equal(urls.length, 1);
  });

  test('without a cursor or an offset parameter (regimes) the first page is the only one', async () => {
    const { urls, client } = scripted([
      { body: { data: [{ contract_id: 'x' }], pagination: { limit: 1, offset: 0, count: 1 } } },
    ]);
    const rows = [];
    for await (const row of client.regimes.iterate({ limit: 1 })) rows.push(row);
    assert.equal(rows.length, 1);
    assert.equal(urls.length, 1);
  });

  test('Link targets are resolved against the base URL and followed as given', async () => {
    const { urls, client } = scripted([
      {
        body: [{ date: '2024-01-02' }],
        link: '</api/v1/benchmarks?ticker=SPY&from=2024-01-03&limit=1>; rel="next"',
      },
      { body: [{ date: '2024-01-03' }] },
    ]);
    const dates = [];
    for await (const bar of client.benchmarks.iterate({ ticker: 'SPY', limit: 1 })) dates.push(bar.date);
    assert.deepEqual(dates, ['2024-01-02', '2024-01-03']);
    assert.equal(urls[1]?.toString(), 'http://sdk.test/api/v1/benchmarks?ticker=SPY&from=2024-01-03&limit=1');
  });

  test('nextLink picks rel="next" among several links and ignores the others', () => {
    assert.equal(nextLink('</a?x=1>; rel="prev", </b?y=2>; rel="next"'), '/b?y=2');
    assert.equal(nextLink('</b>; rel="last next"'), '/b');
    assert.equal(nextLink('</a>; rel="prev"'), null);
    assert.equal(nextLink(null), null);
  });
});

describe('a next-page Link to another origin', () => {
  const hostile = [
    'http://attacker.example/api/v1/benchmarks?ticker=SPY&to=2024-01-01&limit=1',
    '//attacker.example/api/v1/benchmarks?limit=1',
    'https://sdk.test/api/v1/benchmarks?limit=1',
    'http://sdk.test:8443/api/v1/benchmarks?limit=1',
    'javascript:alert(1)',
  ];
  for (const target of hostile) {
    test(`is refused with CrossOriginLinkError, never fetched: ${target}`, async () => {
      const { urls, client } = scripted([
        { body: [{ date: '2024-01-02' }], link: `<${target}>; rel="next"` },
        { body: [{ date: '2024-01-01' }] },
      ]);
      const dates: string[] = [];
      const iterating = (async () => {
        for await (const bar of client.benchmarks.iterate({ ticker: 'SPY', limit: 1 })) dates.push(bar.date);
      })();
      const error = await iterating.then(
        () => assert.fail('iteration should have stopped'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof CrossOriginLinkError, String(error));
      assert.ok(error instanceof MarketIntelError);
      assert.equal(error.code, 'cross_origin_link');
      assert.equal(error.status, 0);
      assert.equal(error.link, target);
      assert.deepEqual(dates, ['2024-01-02'], 'the first page was yielded before the refusal');
      assert.deepEqual(
        urls.map((u) => u.origin),
        ['http://sdk.test'],
        'no request left for the other origin',
      );
    });
  }

  test('a same-origin absolute Link is followed', async () => {
    const { urls, client } = scripted([
      {
        body: [{ date: '2024-01-02' }],
        link: '<http://sdk.test/api/v1/benchmarks?limit=1&to=2024-01-01>; rel="next"',
      },
      { body: [{ date: '2024-01-01' }] },
    ]);
    const dates: string[] = [];
    for await (const bar of client.benchmarks.iterate({ ticker: 'SPY', limit: 1 })) dates.push(bar.date);
    assert.deepEqual(dates, ['2024-01-02', '2024-01-01']);
    assert.equal(urls.length, 2);
  });
});
