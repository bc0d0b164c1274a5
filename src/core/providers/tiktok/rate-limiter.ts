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
 * status's 30, which a best-effort call made once per publish never approaches.
 */
export const TIKTOK_RATE_LIMITS = Object.freeze({
  userInfo: 600,
  creatorInfo: 20,
  publishInit: 6,
  publishStatus: 30,
  publishCancel: 30,
});

/**
 * A client-side sliding-window limiter per key (endpoint plus access token), so Postdeck waits
 * rather than spends a request on a certain 429. Process-local: several replicas can still exceed
 * the limit together, which the retry on 429 covers.
 */
export class TokenRateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly clock: LimiterClock = realClock,
  ) {}

  /** Waits until one more request under `key` stays within `limit` per window, then records it. */
  async acquire(key: string, limit: number): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
      if (recent.length < limit) {
        recent.push(now);
        this.hits.set(key, recent);
        return;
      }
      this.hits.set(key, recent);
      await this.clock.sleep((recent[0] ?? now) + this.windowMs - now + 1);
    }
  }
}
