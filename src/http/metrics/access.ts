import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Headers a reverse proxy adds: a request carrying one came from elsewhere, whatever its socket says. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/**
 * Who may read `/metrics`: `ok`, or why not: `unauthorized` (METRICS_TOKEN is set and the request
 * lacks it as its bearer) or `forbidden` (no token is set and the caller is not on this machine).
 * Without a token a request counts as loopback only when its connection comes from a loopback
 * address and no proxy forwarded it: a proxy on the same host connects from loopback for anyone.
 * The socket's address decides, never ctx.ip, which TRUST_PROXY lets a header choose.
 */
export function metricsAccess(
  token: string | undefined,
  request: { headers: IncomingHttpHeaders; remoteAddress: string | undefined },
): 'ok' | 'unauthorized' | 'forbidden' {
  if (token !== undefined) {
    const match = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '');
    return match?.[1] !== undefined && sameSecret(match[1], token) ? 'ok' : 'unauthorized';
  }
  if (FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined)) return 'forbidden';
  return isLoopback(request.remoteAddress) ? 'ok' : 'forbidden';
}

/** Constant time whatever the lengths: both sides are hashed to the same size first. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
