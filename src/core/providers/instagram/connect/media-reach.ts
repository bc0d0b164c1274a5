/** Host names and addresses no outside service can reach: loopback, private ranges, `.local` and `.localhost`. */
function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  if (host === '::1' || host === '0.0.0.0') return true;
  // IPv6 unique local (fc00::/7) and link-local (fe80::/10) addresses.
  if (host.includes(':')) return /^(?:f[cd]|fe[89ab])/.test(host);
  const octets = host.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o))) return false;
  const [a, b] = octets as [number, number];
  return (
    a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31) || (a === 169 && b === 254)
  );
}

/**
 * Instagram fetches every image and video from Postdeck's public media URLs (contract 2.1): when those point at a
 * local address, real posts cannot work. The warning people read at connect time and on the accounts page, or null.
 */
export function localMediaWarning(publicBaseUrl: string, emulated: boolean): string | null {
  let hostname: string;
  try {
    hostname = new URL(publicBaseUrl).hostname;
  } catch {
    return null;
  }
  if (!isLocalHost(hostname)) return null;
  const what =
    `Instagram fetches every image and video from Postdeck's public media address, ${publicBaseUrl}, which is ` +
    'a local address Instagram cannot reach, so posts to real Instagram accounts would fail. Set PUBLIC_URL ' +
    '(or PUBLIC_BASE_URL) to an https address reachable from the internet.';
  return emulated ? `${what} The built-in Instagram emulator runs beside Postdeck and can reach it.` : what;
}
