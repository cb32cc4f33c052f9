import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildDatedResolver, type DatedResolver } from '../../src/domain/dated-resolver.ts';
import { type IdentityData, IdentityModel } from '../../src/domain/identity.ts';
import { checkIdentity } from '../../src/domain/identity-check.ts';
import { buildResolver } from '../../src/domain/resolver.ts';
import { loadIdentityFiles, readIdentityFiles } from '../../src/sources/identity.ts';

const DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));

let data: IdentityData;
let dated: DatedResolver;
before(async () => {
  data = await readIdentityFiles(DATA_DIR);
  const base = buildResolver(
    [
      { aliasNorm: 'LOCKHEED MARTIN', ticker: 'LMT', source: 'test' },
      { aliasNorm: 'BOOZ ALLEN HAMILTON', ticker: 'BAH', source: 'test' },
      { aliasNorm: 'GENERAL DYNAMICS', ticker: 'GD', source: 'test' },
      { aliasNorm: 'PALANTIR', ticker: 'PLTR', source: 'test' },
      { aliasNorm: 'GENERAL MOTORS', ticker: 'GM', source: 'test' },
      { aliasNorm: 'PEDIATRIX MEDICAL GROUP', ticker: 'MD', source: 'test' },
    ],
    [],
  );
  dated = buildDatedResolver(base, new IdentityModel(data));
});

const at = (name: string, date: string, parentName: string | null = null) =>
  dated.resolveAt({ recipientName: name, parentName, date, basis: 'award_date' });

describe('the shipped identity data', () => {
  test('every row has its shape and no two rows contradict each other', async () => {
    assert.deepEqual(checkIdentity(data), []);
    assert.deepEqual(await loadIdentityFiles(DATA_DIR), data, 'the checked loader accepts it');
    assert.ok(data.edges.length >= 60, `${data.edges.length} ownership edges`);
  });

  test('the check finds overlapping owners, overlapping eras, bad dates and loops', () => {
    const broken: IdentityData = {
      ...data,
      edges: [
        ...data.edges,
        {
          child: 'sikorsky',
          parent: 'boeing',
          relation: 'acquired',
          from: '2016-01-01',
          to: null,
          share: null,
          source: 'https://example.org/x',
        },
        {
          child: 'boeing',
          parent: 'mcdonnell_douglas',
          relation: 'acquired',
          from: '2000-02-30',
          to: null,
          share: null,
          source: 'https://example.org/x',
        },
      ],
      listings: [
        ...data.listings,
        {
          entityId: 'rtx',
          ticker: 'RTX',
          exchange: 'NYSE',
          from: '2019-01-01',
          to: '2020-05-01',
          series: null,
          source: 'https://example.org/x',
        },
      ],
    };
    const problems = checkIdentity(broken);
    assert.ok(
      problems.some((p) => p.includes('invalid date 2000-02-30')),
      problems.join('\n'),
    );
    const fixedDate = checkIdentity({
      ...broken,
      edges: broken.edges.map((e) => (e.from === '2000-02-30' ? { ...e, from: '1999-01-01' } : e)),
    });
    assert.ok(
      fixedDate.some((p) => p.includes('sikorsky has two owners at once')),
      fixedDate.join('\n'),
    );
    assert.ok(
      fixedDate.some((p) => p.includes('listings of rtx overlap')),
      fixedDate.join('\n'),
    );
    assert.ok(
      fixedDate.some((p) => p.includes('loops')),
      fixedDate.join('\n'),
    );
  });

  test('every ownership edge moves the owner on its date: the day before and the day itself differ', () => {
    const model = new IdentityModel(data);
    for (const edge of data.edges) {
      if (edge.from === null || edge.share !== null) continue;
      const dayBefore = new Date(Date.parse(`${edge.from}T00:00:00Z`) - 86_400_000)
        .toISOString()
        .slice(0, 10);
      const then = model.ownerAt(edge.child, edge.from);
      const before = model.ownerAt(edge.child, dayBefore);
      assert.ok(then && before, edge.child);
      assert.notDeepEqual(
        [before.owner.id, before.ticker],
        [then.owner.id, then.ticker],
        `${edge.child} ${edge.relation} ${edge.from}`,
      );
    }
  });
});

describe('resolution on a date', () => {
  test('the same recipient name resolves to the owner of each date', () => {
    const cases: [string, string, string | null][] = [
      ['SIKORSKY AIRCRAFT CORPORATION', '2010-05-01', 'UTX'],
      ['SIKORSKY AIRCRAFT CORPORATION', '2015-11-06', 'LMT'],
      ['MCDONNELL DOUGLAS CORPORATION', '1997-07-31', 'MD'],
      ['MCDONNELL DOUGLAS HELICOPTER SYSTEMS', '2002-03-01', 'BA'],
      ['ROCKWELL COLLINS, INC.', '2017-06-01', 'COL'],
      ['ROCKWELL COLLINS, INC.', '2021-06-01', 'RTX'],
      ['ROCKWELL COLLINS, INC.', '2019-01-15', 'UTX'],
      ['RAYTHEON COMPANY', '2010-01-04', 'RTN'],
      ['RAYTHEON COMPANY', '2021-01-04', 'RTX'],
      ['L-3 COMMUNICATIONS CORPORATION', '2012-01-04', 'LLL'],
      ['L3 TECHNOLOGIES, INC.', '2020-01-04', 'LHX'],
      ['HARRIS CORPORATION', '2018-01-04', 'HRS'],
      ['THE TITAN CORPORATION', '2003-02-01', 'TTN'],
      ['THE TITAN CORPORATION', '2006-02-01', 'LLL'],
      ['LITTON SYSTEMS INC', '2000-06-01', 'LIT'],
      ['INGALLS SHIPBUILDING INC', '2005-06-01', 'NOC'],
      ['INGALLS SHIPBUILDING INC', '2012-06-01', 'HII'],
      ['ALLIANT TECHSYSTEMS INC', '2003-01-10', 'ATK'],
      ['ORBITAL ATK, INC.', '2017-03-01', 'OA'],
      ['ORBITAL ATK, INC.', '2019-03-01', 'NOC'],
      ['SCIENCE APPLICATIONS INTERNATIONAL CORPORATION', '2010-03-01', 'SAI'],
      ['SCIENCE APPLICATIONS INTERNATIONAL CORPORATION', '2016-03-01', 'SAIC'],
      ['DYNCORP INTERNATIONAL LLC', '2008-03-01', 'DCP'],
      ['CSRA LLC', '2017-03-01', 'CSRA'],
      ['CSRA LLC', '2019-03-01', 'GD'],
      ['LOCKHEED MARTIN CORPORATION', '2010-03-01', 'LMT'],
      ['PALANTIR USG INC', '2023-03-01', 'PLTR'],
    ];
    const wrong = cases
      .map(([name, date, want]) => ({ name, date, want, got: at(name, date).ticker }))
      .filter((c) => c.got !== c.want);
    assert.deepEqual(wrong, []);
  });

  test('no ticker, with the reason, when the owner was private, not yet public or a joint venture', () => {
    assert.deepEqual(
      [
        at('DYNCORP INTERNATIONAL LLC', '2012-03-01').ticker,
        at('DYNCORP INTERNATIONAL LLC', '2012-03-01').reason,
      ],
      [null, 'private'],
    );
    assert.equal(at('BOOZ ALLEN HAMILTON INC', '2005-03-01').reason, 'not_yet_public');
    assert.equal(at('BOOZ ALLEN HAMILTON INC', '2012-03-01').ticker, 'BAH');
    assert.equal(at('SCIENCE APPLICATIONS INTERNATIONAL CORP', '2003-03-01').reason, 'not_yet_public');
    assert.equal(at('DRS SUSTAINMENT SYSTEMS INC', '2015-03-01').reason, 'foreign');
    const osprey = at('BELL BOEING JOINT PROJECT OFFICE', '2012-03-01');
    assert.equal(osprey.ticker, null);
    assert.equal(osprey.reason, 'joint_venture');
    assert.deepEqual(osprey.parents.map((p) => [p.entity_id, p.share, p.ticker]).sort(), [
      ['bell', 0.5, 'TXT'],
      ['boeing', 0.5, 'BA'],
    ]);
  });

  test('a registrant keeps its price series across renames; a delisted owner has none', () => {
    assert.equal(at('UNITED TECHNOLOGIES CORP', '2012-03-01').series, 'RTX');
    assert.equal(at('HARRIS CORPORATION', '2012-03-01').series, 'LHX');
    assert.equal(at('RAYTHEON COMPANY', '2012-03-01').series, null);
    assert.equal(at('RAYTHEON COMPANY', '2012-03-01').owner?.id, 'raytheon_co');
  });

  test('a name that holds a second company or a venture word is not taken for the first', () => {
    assert.equal(at('RAYTHEON LOCKHEED MARTIN JAVELIN JV', '2012-03-01').reason, 'joint_venture');
    assert.equal(at('SIKORSKY LOCKHEED MARTIN TEAM', '2012-03-01').entity?.id ?? null, null);
  });

  test('the resolver version changes with the identity data', () => {
    const other = buildDatedResolver(
      buildResolver([], []),
      new IdentityModel({ ...data, edges: data.edges.slice(1) }),
    );
    assert.notEqual(other.version, dated.version);
    assert.match(dated.version, /^pit-2-[0-9a-f]{12}$/);
  });
});

describe('names as announcements write them', () => {
  test('a subsidiary named with its parent, a location or a venture', () => {
    assert.equal(
      at(
        'Sikorsky Aircraft Corp., a subsidiary of United Technologies Corp., Stratford, Connecticut',
        '2010-06-01',
      ).ticker,
      'UTX',
    );
    assert.equal(
      at(
        'McDonnell Douglas Corp., a wholly owned subsidiary of The Boeing Co., St. Louis, Missouri',
        '2002-06-01',
      ).ticker,
      'BA',
    );
    assert.equal(at('Raytheon Co., Tucson, Arizona', '2003-06-01').ticker, 'RTN');
    assert.equal(at('DynCorp, Reston, Virginia', '2002-06-01').reason, 'private');
    assert.equal(at('DynCorp, Reston, Virginia', '2004-06-01').ticker, 'CSC');
    assert.equal(at('Gulfstream Aerospace Corp., Savannah, Georgia', '1998-06-01').ticker, 'GAC');
  });
});

test('a unit named with its parent of that day is one company, not a venture', () => {
  assert.equal(
    at(
      'United Technologies Corp., Pratt & Whitney Military Engines, East Hartford, Connecticut',
      '2016-06-01',
    ).ticker,
    'UTX',
  );
  assert.equal(at('Pratt & Whitney Rocketdyne, a United Technologies company', '2010-06-01').ticker, 'UTX');
  assert.equal(at('Raytheon Lockheed Martin Javelin JV', '2016-06-01').reason, 'joint_venture');
  assert.equal(at('Health Net Federal Services LLC', '2015-06-01').ticker, 'HNT');
  assert.equal(at('Health Net Federal Services LLC', '2017-06-01').ticker, 'CNC');
});

test("a ticker whose era in the identity data has ended is someone else's today: the undated match stands", () => {
  assert.equal(at('GENERAL MOTORS LLC', '2024-06-01').ticker, 'GM');
  assert.equal(at('PEDIATRIX MEDICAL GROUP INC', '2024-06-01').ticker, 'MD');
  assert.equal(at('PEDIATRIX MEDICAL GROUP INC', '2024-06-01').entity, null);
});
