/** How outbound webhooks behave in this process (from the configuration; tests shorten the backoff). */
export interface WebhookSettings {
  /** WEBHOOKS_ALLOW_PRIVATE: endpoints may resolve to loopback, private, link-local and other special addresses. */
  readonly allowPrivate: boolean;
  /** The wait after the first failed attempt; each further failure doubles it (up to MAX_RETRY_DELAY_MS). */
  readonly retryBaseMs: number;
}

/** Production's: 5 s, 10 s, 20 s, … doubling to at most two hours, for 24 hours. */
export const DEFAULT_RETRY_BASE_MS = 5_000;
