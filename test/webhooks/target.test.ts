import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addressProblem,
  type HostResolver,
  TargetPolicy,
  vetHost,
  vetTargetUrl,
} from '../../src/webhooks/target.ts';

const REFUSED: [string, RegExp][] = [
  ['10.0.0.5', /private \(RFC 1918\)/],
  ['172.16.0.1', /private \(RFC 1918\)/],
  ['172.31.255.255', /private \(RFC 1918\)/],
  ['192.168.1.1', /private \(RFC 1918\)/],
  ['127.0.0.1', /loopback/],
  ['127.255.0.9', /loopback/],
  ['169.254.169.254', /link-local/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['100.127.255.254', /carrier-grade NAT/],
  ['0.0.0.0', /unspecified/],
  ['0.1.2.3', /unspecified/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.250', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['240.0.0.1', /reserved/],
  ['192.0.0.8', /reserved/],
  ['192.0.2.10', /documentation/],
  ['198.51.100.7', /documentation/],
  ['203.0.113.200', /documentation/],
  ['198.18.0.1', /benchmarking/],
  ['198.19.255.1', /benchmarking/],
  ['192.88.99.1', /6to4 relay/],
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['fc00::1', /unique-local/],
  ['fd12:3456:789a::1', /unique-local/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['febf::1', /link-local/],
  ['fec0::1', /site-local/],
  ['ff02::1', /multicast/],
  ['ff0e::1', /multicast/],
  ['2001:db8::1', /documentation/],
  ['3fff::1', /documentation/],
  ['2001:0:4136:e378::1', /Teredo/],
  ['100::1', /discard-only/],
  ['64:ff9b:1::a00:5', /local-use NAT64/],
  ['4000::1', /not global unicast/],
  ['::ffff:10.0.0.5', /IPv4-mapped form of 10\.0\.0\.5, a private/],
  ['::ffff:7f00:1', /IPv4-mapped form of 127\.0\.0\.1, a loopback/],
  ['::ffff:169.254.169.254', /IPv4-mapped form of 169\.254\.169\.254, a link-local/],
  ['0:0:0:0:0:ffff:c0a8:0101', /IPv4-mapped form of 192\.168\.1\.1/],
  ['::10.0.0.5', /IPv4-compatible form of 10\.0\.0\.5/],
  ['::127.0.0.1', /IPv4-compatible form of 127\.0\.0\.1, a loopback/],
  ['64:ff9b::10.0.0.5', /NAT64 .* of 10\.0\.0\.5, a private/],
  ['64:ff9b::7f00:1', /NAT64 .* of 127\.0\.0\.1, a loopback/],
  ['2002:c0a8:0101::1', /6to4 .* of 192\.168\.1\.1, a private/],
  ['2002:7f00:1::', /6to4 .* of 127\.0\.0\.1/],
];

const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '172.15.255.255',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '192.169.0.1',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
];

const resolverOf =
  (table: Record<string, string[]>): HostResolver =>
  async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('webhook target addresses', () => {
  test('refuses every non-public range, IPv4 and IPv6, naming the range', () => {
    for (const [address, reason] of REFUSED) {
      const problem = addressProblem(address);
      assert.ok(problem, `${address} must be refused`);
      assert.match(problem, reason, address);
    }
  });

  test('admits public unicast addresses, and mapped/NAT64/6to4 forms of public IPv4', () => {
    for (const address of PUBLIC) assert.equal(addressProblem(address), null, address);
  });

  test('WEBHOOK_ALLOW_CIDRS admits exactly the listed blocks', () => {
    const policy = new TargetPolicy(['127.0.0.1/32', 'fd00:1::/64']);
    assert.equal(policy.refusal('127.0.0.1'), null);
    assert.equal(policy.refusal('fd00:1::5'), null);
    assert.match(policy.refusal('127.0.0.2') ?? '', /^127\.0\.0\.2, a loopback address$/);
    assert.match(policy.refusal('fd00:2::5') ?? '', /unique-local/);
    assert.equal(new TargetPolicy().refusal('8.8.8.8'), null);
  });
});

describe('webhook target URLs', () => {
  const policy = new TargetPolicy();
  const resolve = resolverOf({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.216.34', '192.168.0.10'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
  });

  test('accepts an https URL whose host resolves only to public addresses', async () => {
    const url = await vetTargetUrl('https://hooks.example.com/in?x=1', policy, resolve);
    assert.equal(url.href, 'https://hooks.example.com/in?x=1');
  });

  test('refuses with a clear reason: scheme, credentials, bad URL, private answers, unresolvable', async () => {
    const cases: [string, RegExp][] = [
      ['http://hooks.example.com/', /only https URLs are accepted, got http:/],
      ['ftp://hooks.example.com/', /only https/],
      ['not a url', /is not a valid URL/],
      ['https://user:pw@hooks.example.com/', /credentials/],
      [
        'https://internal.example.com/',
        /^internal\.example\.com resolves to 10\.0\.0\.5, a private \(RFC 1918\) address$/,
      ],
      ['https://mixed.example.com/', /resolves to 192\.168\.0\.10, a private/],
      ['https://mapped.example.com/', /IPv4-mapped form of 127\.0\.0\.1, a loopback/],
      ['https://nowhere.example.com/', /does not resolve \(ENOTFOUND\)/],
      ['https://127.0.0.1/', /target address is 127\.0\.0\.1, a loopback/],
      ['https://[::1]:8443/', /target address is ::1, a loopback/],
      ['https://[::ffff:a00:5]/', /IPv4-mapped form of 10\.0\.0\.5/],
      ['https://0x7f.1/', /127\.0\.0\.1, a loopback/],
      ['https://2130706433/', /127\.0\.0\.1, a loopback/],
      ['https://169.254.169.254/latest/meta-data', /link-local/],
    ];
    for (const [raw, reason] of cases) {
      await assert.rejects(vetTargetUrl(raw, policy, resolve), (error: Error) => {
        assert.equal(error.name, 'TargetRefusedError', raw);
        assert.match(error.message, reason, raw);
        return true;
      });
    }
  });

  test('DNS rebinding: a name public at registration but private at delivery is refused at delivery', async () => {
    let answer = '93.184.216.34';
    const rebinding: HostResolver = async () => [{ address: answer, family: 4 }];
    await vetTargetUrl('https://rebind.example.com/hook', policy, rebinding);
    answer = '10.0.0.5';
    await assert.rejects(
      vetHost('rebind.example.com', policy, rebinding),
      /resolves to 10\.0\.0\.5, a private/,
    );
  });
});
