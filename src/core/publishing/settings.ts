/** The upload chunk size asked for by default, 10 MiB (a provider fits it to its own limits). */
export const DEFAULT_UPLOAD_CHUNK_BYTES = 10 * 1024 * 1024;

/**
 * Every time limit and size of the publishing engine. Process-wide settings (not job data), so tests and benchmarks
 * shorten them with `tunePublishing` in the process that runs the worker; production keeps the defaults.
 */
export interface PublishingSettings {
  /** A `posts.publish` job runs when the post's dueAt is at most this far ahead (clock skew between processes). */
  dueSlackMs: number;
  /** How long an attempt's lease lasts without renewal; the holder renews it while it works. */
  attemptLeaseMs: number;
  /** Attempts per post, counting the first; only attempts that certainly created nothing are retried. */
  maxAttempts: number;
  /** Delay before attempt #2; doubles per attempt up to retryMaxDelayMs. */
  retryFirstDelayMs: number;
  retryMaxDelayMs: number;
  /** The least wait after a 429: TikTok's windows are sliding minutes and it sends no Retry-After (contract 3). */
  rateLimitedDelayMs: number;
  /** First status poll after the init (or the upload); doubles per poll up to pollMaxDelayMs. */
  pollFirstDelayMs: number;
  pollMaxDelayMs: number;
  /** No PUBLISH_COMPLETE or FAILED within this from the claim → ERROR "outcome unconfirmed". */
  terminalWithinMs: number;
  /** After PUBLISH_COMPLETE without a post id: keep asking for the id this long, backing off up to idPollMaxDelayMs. */
  idSearchWithinMs: number;
  idPollMaxDelayMs: number;
  /** The sweeper re-enqueues a QUEUE post whose dueAt passed this long ago (its job was lost). */
  lostJobAfterMs: number;
  /** The FILE_UPLOAD chunk size asked for (5–64 MiB; chunk-plan adjusts it to the file). */
  uploadChunkBytes: number;
}

export const DEFAULT_PUBLISHING_SETTINGS: Readonly<PublishingSettings> = Object.freeze({
  dueSlackMs: 2_000,
  attemptLeaseMs: 2 * 60_000,
  maxAttempts: 5,
  retryFirstDelayMs: 30_000,
  retryMaxDelayMs: 8 * 60_000,
  rateLimitedDelayMs: 60_000,
  pollFirstDelayMs: 10_000,
  pollMaxDelayMs: 60_000,
  terminalWithinMs: 2 * 60 * 60_000,
  idSearchWithinMs: 24 * 60 * 60_000,
  idPollMaxDelayMs: 15 * 60_000,
  lostJobAfterMs: 60_000,
  uploadChunkBytes: DEFAULT_UPLOAD_CHUNK_BYTES,
});

/** The settings in force (read at each use). */
export const publishingSettings: PublishingSettings = { ...DEFAULT_PUBLISHING_SETTINGS };

/** Overrides some settings for this process; returns a function that restores the previous ones. */
export function tunePublishing(overrides: Partial<PublishingSettings>): () => void {
  const previous = { ...publishingSettings };
  Object.assign(publishingSettings, overrides);
  return () => {
    Object.assign(publishingSettings, previous);
  };
}

/** The wait before attempt `nextN` (2, 3, …): 30 s, 60 s, 120 s, … capped. */
export function retryDelayMs(nextN: number): number {
  const t = publishingSettings;
  return Math.min(t.retryFirstDelayMs * 2 ** Math.max(0, nextN - 2), t.retryMaxDelayMs);
}

/** The wait before status poll `polls + 1`: 3 s, 6 s, 12 s, … capped at `maxMs`. */
export function pollDelayMs(polls: number, maxMs: number): number {
  return Math.min(publishingSettings.pollFirstDelayMs * 2 ** Math.min(polls, 30), maxMs);
}
