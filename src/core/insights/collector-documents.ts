// Stored documents of the collection job (src/core/insights/collect.ts): small, found by `_id`.

/**
 * One connected account's collection state, `_id` = the platform's id: whether a run is queued, the backoff
 * after TikTok refused it, and when its totals were last taken. The planner reads all of them at once (one
 * document per account, so a scan is a hundred documents, not a thousand posts).
 */
export interface InsightCollectorDoc {
  _id: string;
  /** When the run now queued or running was queued; null when none is. A stale one (a lost task) is replaced. */
  queuedAt: Date | null;
  /** No run before this (TikTok answered 429 or failed); null when none is owed. */
  backoffUntil: Date | null;
  /** Failed runs in a row: the backoff doubles with each. */
  failures: number;
  /** When the account's totals were last taken; null before the first. */
  totalsAt: Date | null;
}

/**
 * A post TikTok left out of an answer, `_id` = the post's id: the first absence is only noted (and the post
 * asked again later), the second makes it `unavailable`. Deleted once TikTok returns the post again.
 */
export interface InsightMissDoc {
  _id: string;
  workspaceId: string;
  firstMissedAt: Date;
  misses: number;
}
