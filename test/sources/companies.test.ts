import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadDemoCompanies, mergeCompanies, parseAliasesCsv } from '../../src/sources/companies.ts';

const dataDir = fileURLToPath(new URL('../../data', import.meta.url));

test('mergeCompanies: sectors by ticker (BRK.B → BRK-B) or CIK, ETFs added, tickers unique', () => {
  const sec = [
    'cik,ticker,exchange,name',
    '0000936468,LMT,NYSE,LOCKHEED MARTIN CORP',
    '0001067983,BRK-B,NYSE,BERKSHIRE HATHAWAY INC',
    '0001415404,SATS,Nasdaq,EchoStar CORP',
    '0000884394,SPY,NYSE,SPDR S&P 500 ETF TRUST',
    '0000936468,LMT,NYSE,DUPLICATE ROW',
    '0000000001,ZZZ,,NO EXCHANGE',
  ].join('\n');
  const sp = [
    'Symbol,Security,GICS Sector,GICS Sub-Industry,Headquarters Location,Date added,CIK,Founded',
    'LMT,Lockheed Martin,Industrials,Aerospace & Defense,"Bethesda, Maryland",1957-03-04,936468,1995',
    'BRK.B,Berkshire Hathaway,Financials,Multi-Sector Holdings,"Omaha, Nebraska",2010-02-16,1067983,1839',
    'ECHO,EchoStar,Communication Services,Wireless Telecommunication Services,"Englewood, Colorado",2026-03-23,1415404,2008',
    'NEW,Not In Sec,Utilities,Electric Utilities,"X, Y",2026-01-01,123,2000',
  ].join('\n');
  const rows = mergeCompanies(sec, sp);
  const by = new Map(rows.map((r) => [r.ticker, r]));
  assert.equal(rows.length, new Set(rows.map((r) => r.ticker)).size);
  assert.deepEqual(by.get('LMT'), {
    ticker: 'LMT',
    name: 'LOCKHEED MARTIN CORP',
    cik: '0000936468',
    exchange: 'NYSE',
    sector: 'Industrials',
    industry: 'Aerospace & Defense',
  });
  assert.equal(by.get('BRK-B')?.sector, 'Financials');
  assert.equal(by.get('SATS')?.industry, 'Wireless Telecommunication Services');
  assert.equal(by.has('ECHO'), false);
  assert.deepEqual(by.get('NEW'), {
    ticker: 'NEW',
    name: 'Not In Sec',
    cik: '0000000123',
    exchange: null,
    sector: 'Utilities',
    industry: 'Electric Utilities',
  });
  assert.equal(by.get('ZZZ')?.exchange, null);
  assert.deepEqual(
    ['SPY', 'XLI', 'ITA'].map((t) => [by.get(t)?.exchange, by.get(t)?.sector, by.get(t)?.cik ?? null]),
    [
      ['NYSE Arca', null, '0000884394'],
      ['NYSE Arca', null, null],
      ['NYSE Arca', null, null],
    ],
  );
  assert.match(by.get('XLI')?.name ?? '', /ETF/);
});

test('parseAliasesCsv trims and normalizes tickers', () => {
  assert.deepEqual(parseAliasesCsv('alias,ticker,source\n" ACME, INC. ",brk.b,curated\n,LMT,x\n'), [
    { alias: 'ACME, INC.', ticker: 'BRK-B', source: 'curated' },
  ]);
});

test('loadDemoCompanies: SEC universe + S&P sectors + ETFs; aliases point at known tickers', async () => {
  const { companies, aliases } = await loadDemoCompanies(dataDir);
  assert.equal(companies.length, 10365 + 2); // SEC rows + XLI + ITA (SPY is in the SEC list)
  assert.equal(new Set(companies.map((c) => c.ticker)).size, companies.length);
  const by = new Map(companies.map((c) => [c.ticker, c]));
  assert.equal(by.get('LMT')?.sector, 'Industrials');
  assert.equal(by.get('LMT')?.industry, 'Aerospace & Defense');
  assert.equal(by.get('LDOS')?.industry, 'Diversified Support Services');
  assert.equal(by.get('SAIC')?.sector, null); // not in the S&P 500
  assert.equal(by.get('SAIC')?.cik, '0001571123');
  for (const t of ['SPY', 'XLI', 'ITA']) assert.equal(by.get(t)?.exchange, 'NYSE Arca');
  assert.equal(companies.filter((c) => c.sector !== null).length, 503);

  const tickers = new Set(companies.map((c) => c.ticker));
  assert.ok(aliases.length >= 150);
  for (const a of aliases) assert.ok(tickers.has(a.ticker), `${a.alias} → ${a.ticker}`);
  assert.ok(aliases.every((a) => a.source === 'curated' || a.source === 'recipient_map_fy2024'));
  const alias = new Map(aliases.map((a) => [a.alias, a.ticker]));
  assert.equal(new Set(aliases.map((a) => a.alias)).size, aliases.length);
  // Decisions documented in data/SOURCES.md.
  assert.equal(alias.get('AEROJET ROCKETDYNE OF DE, INC'), 'LHX');
  assert.equal(alias.get('MOOG INC'), 'MOG-A');
  assert.equal(alias.has('ROLLS-ROYCE CORPORATION'), false);
  assert.equal(alias.get('BELL BOEING JOINT PROJECT OFFICE'), 'BA');
  assert.equal(alias.has('RAYTHEON/LOCKHEED MARTIN JAVELIN JV'), false);
  assert.equal(alias.get('SIKORSKY AIRCRAFT CORPORATION'), 'LMT');
  assert.equal(alias.get('RAYTHEON COMPANY'), 'RTX');
  assert.equal(alias.get('ELECTRIC BOAT CORPORATION'), 'GD');
  assert.equal(alias.get('CAE USA INC.'), 'CAE');
  assert.equal(alias.get('HUNTINGTON INGALLS INCORPORATED'), 'HII');
});
