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
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  SPECIAL.addSubnet(net, prefix, 'ipv6');
}

/** True when `address` (an IPv4 or IPv6 literal) is in a special-purpose range; IPv4-mapped IPv6 counts as its IPv4. */
export function isSpecialAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return SPECIAL.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return SPECIAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
      reason: `the host ${host} resolves to ${special.address}, a loopback, private, link-local or reserved address`,
      failure: 'address_refused',
    };
  }
  const first = addresses[0]!;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
