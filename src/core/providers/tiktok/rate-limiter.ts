/** The clock and sleep the limiter uses; tests pass fakes. */
export interface LimiterClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: LimiterClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * TikTok's documented per-token limits, requests per sliding minute (contract 3). Each init endpoint
 * (video, inbox video, photo content) has its own 6. Cancel's limit is undocumented: it is held to
 * status's 30, which a best-effort call made once per publish never approaches. The Display API's
 * video query has its own 600 (contract 3, 8.1).
 */
export const TIKTOK_RATE_LIMITS = Object.freeze({
  userInfo: 600,
  videoQuery: 600,
  creatorInfo: 20,
  publishInit: 6,
  publishStatus: 30,
  publishCancel: 30,
});

/** Who is calling: a person's or agent's request (which must not wait long), or background work. */
export type TikTokCaller = 'request' | 'background';

/** The longest a request waits for a slot before it is answered `rate_limited` instead. */
export const REQUEST_MAX_WAIT_MS = 2_000;

/** Requests leave this share of each limit (rounded up) to background work, above all publishing. */
const BACKGROUND_SHARE = 0.25;

/** Thrown when a request would have to wait longer than REQUEST_MAX_WAIT_MS for a slot. */
export class LimiterFull extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`no slot for ${Math.ceil(retryAfterMs / 1000)} s`);
  }
}

/**
 * A client-side sliding-window limiter per key (endpoint plus access token), so Postdeck waits
 * rather than spends a request on a certain 429. Background work may use the whole limit and waits
 * for a slot; requests may use only the part background work leaves them, and are refused with
 * `LimiterFull` rather than made to wait more than a couple of seconds. Process-local: several
 * replicas can still exceed the limit together, which the retry on 429 covers.
 */
export class TokenRateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly clock: LimiterClock = realClock,
  ) {}

  /** Waits until one more call under `key` stays within its share of `limit` per window, then records it. */
  async acquire(key: string, limit: number, caller: TikTokCaller = 'background'): Promise<void> {
    const allowed = caller === 'request' ? limit - Math.ceil(limit * BACKGROUND_SHARE) : limit;
    for (;;) {
      const now = this.clock.now();
      const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
      if (recent.length < allowed) {
        recent.push(now);
        this.hits.set(key, recent);
        return;
      }
      this.hits.set(key, recent);
      // The slot frees when enough of the oldest calls leave the window to bring the count under `allowed`.
      const waitMs = (recent[recent.length - allowed] ?? now) + this.windowMs - now + 1;
      if (caller === 'request' && waitMs > REQUEST_MAX_WAIT_MS) throw new LimiterFull(waitMs);
      await this.clock.sleep(waitMs);
    }
  }
}
