import { setTimeout as sleep } from 'node:timers/promises';

/** One HTTP exchange through the proxy, as the client saw it. */
export interface Exchange {
  route: string;
  /** The HTTP status, or 0 when no answer came (the connection failed). */
  status: number;
  ms: number;
  /** When it ended (Date.now()). */
  at: number;
  /** A 5xx that is not Postdeck's (its error bodies are JSON): nginx answered it for a missing upstream. */
  fromProxy: boolean;
  /** A repeat of a request that got a proxy 5xx or no answer. */
  retry: boolean;
  /**
   * A repeat answered 409: its Idempotency-Key is still held by the attempt of a process that died
   * (released when that attempt's claim lapses, 60 s), so it is sent again a little later.
   */
  heldKey: boolean;
}

/** A time a process was gone: from its signal until its replacement answered /readyz. */
export interface Outage {
  process: string;
  signal: NodeJS.Signals;
  from: number;
  to: number;
}

/** How many times a request is sent at most: a proxy 5xx or a failed connection is retried. */
const ATTEMPTS = 4;
/** How long a keyed request is repeated while its key is held by a dead process's attempt. */
const HELD_KEY_PATIENCE_MS = 150_000;

/**
 * Every exchange of one phase. `fetch` sends a request through the proxy and records it, repeating it
 * (after a short pause) when nginx answered 5xx for a missing upstream or the connection failed, as a
 * client behind a load balancer does; the repeats are counted.
 */
export class Traffic {
  readonly exchanges: Exchange[] = [];
  readonly outages: Outage[] = [];

  async fetch(route: string, url: string | URL, init: RequestInit = {}): Promise<Response> {
    const first = Date.now();
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const retry = attempt > 1;
      const record = (status: number, fromProxy: boolean, heldKey: boolean) =>
        this.exchanges.push({
          route,
          status,
          ms: performance.now() - started,
          at: Date.now(),
          fromProxy,
          retry,
          heldKey,
        });
      let response: Response;
      try {
        response = await fetch(url, init);
      } catch (error) {
        record(0, false, false);
        if (attempt >= ATTEMPTS) throw error;
        await sleep(200);
        continue;
      }
      const fromProxy = response.status >= 500 && !(response.headers.get('content-type') ?? '').includes('json');
      const heldKey = retry && response.status === 409 && Date.now() - first < HELD_KEY_PATIENCE_MS;
      if ((fromProxy && attempt < ATTEMPTS) || heldKey) {
        await response.body?.cancel();
        record(response.status, fromProxy, heldKey);
        await sleep(heldKey ? 5_000 : 200);
        continue;
      }
      // The body is part of the answer's time.
      const body = await response.arrayBuffer();
      record(response.status, fromProxy, false);
      return new Response(body, { status: response.status, headers: response.headers });
    }
  }

  /**
   * Sends something whose answer only gives a status (a chat emulator's signed delivery), recorded under
   * `route` and repeated like `fetch` on a 502/504 (nginx's codes for a missing upstream; Postdeck
   * answers 500 or 503) or a failed connection, as a person clicks again. True when it got a 2xx.
   */
  async timed(route: string, send: () => Promise<number>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const status = await send().catch(() => 0);
      const fromProxy = status === 502 || status === 504;
      const ms = performance.now() - started;
      const entry = { route, status, ms, at: Date.now(), fromProxy, retry: attempt > 1, heldKey: false };
      this.exchanges.push(entry);
      if ((status === 0 || fromProxy) && attempt < ATTEMPTS) {
        await sleep(200);
        continue;
      }
      return status >= 200 && status < 300;
    }
  }

  /** Whether `at` falls while a process was gone, or within `slackMs` after (nginx keeps a failed server out 2 s). */
  duringOutage(at: number, slackMs = 5_000): boolean {
    return this.outages.some((outage) => at >= outage.from && at <= outage.to + slackMs);
  }
}
