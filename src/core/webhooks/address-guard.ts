import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must not reach unless private endpoints are allowed (SSRF): this host, the private
 * networks, link-local (cloud metadata at 169.254.169.254), shared and reserved ranges, documentation,
 * benchmarking, multicast and broadcast (IANA special-purpose registries).
 */
const SPECIAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  SPECIAL.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // the unspecified address, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64],
  ['2001::', 23], // includes Teredo 2001::/32
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4, whatever address it embeds
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  SPECIAL.addSubnet(net, prefix, 'ipv6');
}

/**
 * True when `address` (an IPv4 or IPv6 literal) is in a special-purpose range. An IPv6 address that
 * carries an IPv4 address in its last 32 bits, as IPv4-mapped (::ffff:a.b.c.d) or ISATAP (…:0:5efe:a.b.c.d
 * or …:200:5efe:a.b.c.d) addresses do, counts as that IPv4 address too; the other embedding forms are
 * refused whole above. The URL parser has already turned decimal, octal and hex IPv4 forms into dotted ones.
 */
export function isSpecialAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return SPECIAL.check(address, 'ipv4');
  if (SPECIAL.check(address, 'ipv6')) return true;
  const embedded = embeddedIPv4(address);
  return embedded !== null && SPECIAL.check(embedded, 'ipv4');
}

/** The IPv4 address in the last 32 bits of an IPv4-mapped or ISATAP IPv6 address, or null. */
function embeddedIPv4(address: string): string | null {
  const groups = ipv6Groups(address);
  const mapped = groups.slice(0, 6).join(':') === '0:0:0:0:0:ffff';
  const isatap = (groups[4] === 0 || groups[4] === 0x200) && groups[5] === 0x5efe;
  if (!mapped && !isatap) return null;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 literal (a dotted IPv4 tail counts as two groups). */
function ipv6Groups(address: string): number[] {
  const withoutZone = address.split('%')[0]!;
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(withoutZone);
  const hex = tail
    ? withoutZone.slice(0, tail.index) +
      `${((Number(tail[1]) << 8) | Number(tail[2])).toString(16)}:${((Number(tail[3]) << 8) | Number(tail[4])).toString(16)}`
    : withoutZone;
  const [head = '', rest] = hex.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16));
}

/** Where a webhook URL's host resolved to, checked. */
export type ResolvedTarget =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; reason: string; failure: 'dns_failure' | 'address_refused' };

/**
 * Resolves the URL's host and checks every address it resolves to; the caller connects to the one
 * returned, so a DNS answer that changes between the check and the connection cannot slip past.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<ResolvedTarget> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'lookup failed';
    return { ok: false, reason: `the host ${host} does not resolve (${code})`, failure: 'dns_failure' };
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${host} does not resolve`, failure: 'dns_failure' };
  const special = addresses.find((entry) => isSpecialAddress(entry.address));
  if (special && !allowPrivate) {
    return {
      ok: false,
      reason: `the host ${host} resolves to ${special.address}, a loopback, private, link-local or reserved address (a server that should reach such addresses sets WEBHOOKS_ALLOW_PRIVATE=true)`,
      failure: 'address_refused',
    };
  }
  const first = addresses[0]!;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
