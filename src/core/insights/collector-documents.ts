// Stored documents of the collection job (src/core/insights/collect.ts): small, found by `_id`.

/**
 * One connected account's collection state, `_id` = the platform's id: whether a run is queued, the backoff
 * after TikTok refused it, when its totals were last taken, and where its posts' member walk stands. The
 * planner reads all of them at once (one document per account, so a read of a hundred documents, not of every
 * post). Written by `requestCollection` only while no run is queued and by the run only while one is.
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
  /** The first member (`insight_members`) a run walks from: every one before it is done. Absent before a run. */
  walkFrom?: number;
  /** The first member the last run found missing: one there now was added since, and asks for a run. */
  walkedTo?: number;
  /** When the account's next post falls due, as the last run left its posts; null when none is collecting. */
  dueAt?: Date | null;
}

/**
 * One of an account's published posts, `_id` = `<platformId>#<n>`, n from 0 with no gap (insert-once at the
 * first free n): how the collector finds an account's posts by `_id` lookups, never by a scan of
 * `post_insights` (FerretDB pushes down only `_id` equality). Written once, before the post's record, so a
 * crash between the two leaves a member without a record, which a run skips. A post may have more than one
 * (a late release adds one to ask for a run); a run takes each post once.
 */
export interface InsightMemberDoc {
  _id: string;
  postId: string;
  createdAt: Date;
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
