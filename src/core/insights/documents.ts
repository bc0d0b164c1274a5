// Stored documents of insights: what each published post and each connected account did on TikTok.

import type { DomainEvent } from '../events/documents.js';

/** Where a post's collection is: still on its schedule, done after day 30, or given up (see the reason). */
export type InsightStatus = 'collecting' | 'final' | 'unavailable';

/** A post's counts as TikTok reported them at `takenAt`. */
export interface PostCountsDoc {
  views: number;
  likes: number;
  comments: number;
  shares: number;
  takenAt: Date;
}

/**
 * The first slide's caption of a carousel (its hook), from the composite the post's first image is:
 * made by POST /slides/composite or by a generation job, which store the caption on the media.
 */
export interface HookDoc {
  text: string;
  textStyleId: string;
  language: string;
}

/**
 * One published root post's insights, `_id` = the post's id, made when the post becomes PUBLISHED
 * (src/core/insights/open-insight.ts), after its account's member (`insight_members`, how the collector
 * finds it by `_id`). Small on purpose: the series is in `post_snapshots`. Written by one actor at a time:
 * the collector (snapshots, unavailable) only moves it once `releaseId` is set, and until then the late
 * release and the collector only set `releaseId` to the post's, so FerretDB's whole-document rewrites never race.
 */
export interface PostInsightDoc {
  _id: string;
  workspaceId: string;
  /** The connected TikTok account (platform) the post was published to. */
  platformId: string;
  /** TikTok's post id (the post's releaseId); null while TikTok withholds it after moderation. */
  releaseId: string | null;
  publishedAt: Date;
  status: InsightStatus;
  /** Why it is `unavailable`, in words a person can act on; null otherwise. */
  unavailableReason: string | null;
  /** The schedule slot the next snapshot fills (src/core/insights/schedule.ts); null once collection ended. */
  nextSlot: number | null;
  /** When that slot falls due; null once collection ended. */
  nextDueAt: Date | null;
  /** The newest counts; null before the first snapshot. */
  latest: PostCountsDoc | null;
  /** Views at the ranking age (48 hours), the fair measure hooks are ranked by; null until the post is that old. */
  rankingViews: number | null;
  snapshotCount: number;
  hook: HookDoc | null;
  /** Its milestone events (24 hours, 7 days), written with the snapshot that reached each (src/core/events). */
  events?: DomainEvent[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * One snapshot of a post, `_id` = `<postId>#<slot>`: a second write for the same slot (a retried or
 * resumed collection) is refused by the `_id`, so the series never holds a duplicate.
 */
export interface PostSnapshotDoc {
  _id: string;
  postId: string;
  workspaceId: string;
  slot: number;
  views: number;
  likes: number;
  comments: number;
  shares: number;
  takenAt: Date;
}

/** One snapshot of an account's totals, `_id` = `<platformId>#<hour since the epoch>`: at most one an hour. */
export interface AccountSnapshotDoc {
  _id: string;
  workspaceId: string;
  platformId: string;
  followers: number;
  following: number;
  /** Null where the network gives no account-wide likes (Instagram). */
  likes: number | null;
  videos: number;
  takenAt: Date;
}
