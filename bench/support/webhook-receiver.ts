// Shared by the webhook tests and bench:scale: a receiver that checks signatures with the standardwebhooks package.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got, and whether the Standard Webhooks library accepted its signature. */
export interface Received {
  path: string;
  id: string;
  body: string;
  headers: Record<string, string>;
  /** The payload as the library verified it; null when it refused the signature. */
  verified: { type: string; timestamp: string; data: Record<string, string> } | null;
}

/**
 * A webhook receiver on loopback. Each path has the signing secret of the endpoint registered there, and
 * how many first requests of each webhook-id it answers 500 (then 200). Every request is verified with
 * the `standardwebhooks` package, not with Postdeck's code.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const paths = new Map<string, { secret: string; failFirst: number }>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(',') : (value ?? ''),
        ]),
      );
      const path = request.url ?? '/';
      const setup = paths.get(path);
      let verified: Received['verified'] = null;
      try {
        verified = setup ? (new Webhook(setup.secret).verify(body, headers) as Received['verified']) : null;
      } catch {
        verified = null;
      }
      const id = headers['webhook-id'] ?? '';
      const seen = received.filter((entry) => entry.path === path && entry.id === id).length;
      received.push({ path, id, body, headers, verified });
      response.statusCode = setup && seen < setup.failFirst ? 500 : 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** Says which secret signs deliveries to `path`, and how many first attempts of each message fail. */
    expect(path: string, secret: string, failFirst = 0): void {
      paths.set(path, { secret, failFirst });
    },
    at(path: string): Received[] {
      return received.filter((entry) => entry.path === path);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Waits until `condition` holds, checking every 50 ms for up to a minute (the machine may be busy). */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
