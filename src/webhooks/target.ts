import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may reach. Checked when a webhook is registered and again at
 * every connection, against the address actually connected to, so a name that later resolves to a
 * private address (DNS rebinding) is refused at delivery.
 */

export type Family = 4 | 6;
export interface ResolvedAddress {
  address: string;
  family: Family;
}
/** Every address a host name resolves to; injected in tests. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
}

interface Range {
  cidr: string;
  what: string;
}

const V4_RANGES: Range[] = [
  { cidr: '255.255.255.255/32', what: 'the broadcast address' },
  { cidr: '0.0.0.0/8', what: 'an unspecified ("this network") address' },
  { cidr: '10.0.0.0/8', what: 'a private (RFC 1918) address' },
  { cidr: '100.64.0.0/10', what: 'a carrier-grade NAT (RFC 6598) address' },
  { cidr: '127.0.0.0/8', what: 'a loopback address' },
  { cidr: '169.254.0.0/16', what: 'a link-local address' },
  { cidr: '172.16.0.0/12', what: 'a private (RFC 1918) address' },
  { cidr: '192.0.0.0/24', what: 'a reserved (IETF protocol assignments) address' },
  { cidr: '192.0.2.0/24', what: 'a documentation (TEST-NET-1) address' },
  { cidr: '192.88.99.0/24', what: 'a reserved (6to4 relay anycast) address' },
  { cidr: '192.168.0.0/16', what: 'a private (RFC 1918) address' },
  { cidr: '198.18.0.0/15', what: 'a benchmarking (RFC 2544) address' },
  { cidr: '198.51.100.0/24', what: 'a documentation (TEST-NET-2) address' },
  { cidr: '203.0.113.0/24', what: 'a documentation (TEST-NET-3) address' },
  { cidr: '224.0.0.0/4', what: 'a multicast address' },
  { cidr: '240.0.0.0/4', what: 'a reserved (240/4) address' },
];

const V6_RANGES: Range[] = [
  { cidr: '::/128', what: 'the unspecified address' },
  { cidr: '::1/128', what: 'a loopback address' },
  { cidr: '64:ff9b:1::/48', what: 'a local-use NAT64 (RFC 8215) address' },
  { cidr: '100::/64', what: 'a discard-only (RFC 6666) address' },
  { cidr: '2001:db8::/32', what: 'a documentation address' },
  { cidr: '2001::/23', what: 'a reserved (IETF protocol assignments, incl. Teredo) address' },
  { cidr: '3fff::/20', what: 'a documentation address' },
  { cidr: '5f00::/16', what: 'a reserved (SRv6 SID) address' },
  { cidr: 'fc00::/7', what: 'a unique-local (fc00::/7) address' },
  { cidr: 'fe80::/10', what: 'a link-local address' },
  { cidr: 'fec0::/10', what: 'a site-local (deprecated) address' },
  { cidr: 'ff00::/8', what: 'a multicast address' },
];

const GLOBAL_UNICAST_V6 = blockOf([{ cidr: '2000::/3', what: '' }], 'ipv6');

/** IPv6 forms that carry an IPv4 address: judged by the IPv4 address they carry. */
const EMBEDDED_V4: { prefix: string; bits: number; offset: number; form: string }[] = [
  { prefix: '::ffff:0:0', bits: 96, offset: 12, form: 'an IPv4-mapped form' },
  { prefix: '64:ff9b::', bits: 96, offset: 12, form: 'a NAT64 (64:ff9b::/96) form' },
  { prefix: '2002::', bits: 16, offset: 2, form: 'a 6to4 (2002::/16) form' },
  { prefix: '::', bits: 96, offset: 12, form: 'an IPv4-compatible form' },
];

function blockOf(ranges: Range[], type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [net, bits] = range.cidr.split('/');
    list.addSubnet(net ?? '', Number(bits), type);
  }
  return list;
}

const V4_RULES = V4_RANGES.map((range) => ({ ...range, list: blockOf([range], 'ipv4') }));
const V6_RULES = V6_RANGES.map((range) => ({ ...range, list: blockOf([range], 'ipv6') }));

/** The 16 bytes of an IPv6 address (zone id dropped), or null when it is not one. */
export function ipv6Bytes(address: string): Uint8Array | null {
  const plain = address.replace(/%.*$/, '');
  if (isIP(plain) !== 6) return null;
  let text = plain;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (tail) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, -tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function prefixMatches(bytes: Uint8Array, prefix: string, bits: number): boolean {
  const want = ipv6Bytes(prefix);
  if (!want) return false;
  for (let bit = 0; bit < bits; bit++) {
    const mask = 0x80 >> (bit % 8);
    if (((bytes[bit >> 3] ?? 0) & mask) !== ((want[bit >> 3] ?? 0) & mask)) return false;
  }
  return true;
}

/** Why an address must not be reached, or null when it is a public unicast address. */
export function addressProblem(address: string): string | null {
  const plain = address.replace(/%.*$/, '');
  const family = isIP(plain);
  if (family === 4) return V4_RULES.find((rule) => rule.list.check(plain, 'ipv4'))?.what ?? null;
  const bytes = ipv6Bytes(plain);
  if (family !== 6 || !bytes) return 'not an IP address';
  const fixed = V6_RULES.slice(0, 2).find((rule) => rule.list.check(plain, 'ipv6'));
  if (fixed) return fixed.what;
  for (const form of EMBEDDED_V4) {
    if (!prefixMatches(bytes, form.prefix, form.bits)) continue;
    const v4 = Array.from(bytes.slice(form.offset, form.offset + 4)).join('.');
    const inner = addressProblem(v4);
    // Any of these forms of a public IPv4 address reaches that public address.
    return inner ? `${form.form} of ${v4}, ${inner}` : null;
  }
  const rule = V6_RULES.find((candidate) => candidate.list.check(plain, 'ipv6'));
  if (rule) return rule.what;
  return GLOBAL_UNICAST_V6.check(plain, 'ipv6') ? null : 'a reserved (not global unicast) address';
}

/** The rules in force: the built-in ranges, minus WEBHOOK_ALLOW_CIDRS. */
export class TargetPolicy {
  private readonly allowed = new BlockList();

  constructor(allowCidrs: readonly string[] = []) {
    for (const cidr of allowCidrs) {
      const [net = '', bits] = cidr.split('/');
      this.allowed.addSubnet(net, Number(bits), isIP(net) === 6 ? 'ipv6' : 'ipv4');
    }
  }

  /** Why connecting to this address is refused, or null. */
  refusal(address: string): string | null {
    const plain = address.replace(/%.*$/, '');
    const family = isIP(plain);
    if (family === 0) return `${address} is not an IP address`;
    if (this.allowed.check(plain, family === 6 ? 'ipv6' : 'ipv4')) return null;
    const problem = addressProblem(plain);
    return problem ? `${plain}, ${problem}` : null;
  }
}

/** The URL rules that need no DNS: https, a host, no credentials. Returns the parsed URL. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError(`"${raw}" is not a valid URL`);
  }
  if (url.protocol !== 'https:')
    throw new TargetRefusedError(`only https URLs are accepted, got ${url.protocol}`);
  if (url.username || url.password) throw new TargetRefusedError('URLs with credentials are not accepted');
  if (!url.hostname) throw new TargetRefusedError('the URL has no host');
  return url;
}

/** The URL's host as a bare IP address when it is one (IPv6 brackets removed), else null. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) ? bare : null;
}

/**
 * Resolves a host and checks every address it resolves to; a single refused address refuses the host,
 * so a mixed answer cannot steer the connection. Returns the addresses, all allowed.
 */
export async function vetHost(
  hostname: string,
  policy: TargetPolicy,
  resolve: HostResolver,
): Promise<ResolvedAddress[]> {
  const literal = literalAddress(hostname);
  if (literal) {
    const refusal = policy.refusal(literal);
    if (refusal) throw new TargetRefusedError(`target address is ${refusal}`);
    return [{ address: literal, family: isIP(literal) === 6 ? 6 : 4 }];
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new TargetRefusedError(`${hostname} does not resolve (${code})`);
  }
  if (addresses.length === 0) throw new TargetRefusedError(`${hostname} does not resolve`);
  for (const { address } of addresses) {
    const refusal = policy.refusal(address);
    if (refusal) throw new TargetRefusedError(`${hostname} resolves to ${refusal}`);
  }
  return addresses;
}

/** Registration check: the URL rules, then the addresses its host resolves to now. */
export async function vetTargetUrl(raw: string, policy: TargetPolicy, resolve: HostResolver): Promise<URL> {
  const url = parseTargetUrl(raw);
  await vetHost(url.hostname, policy, resolve);
  return url;
}
