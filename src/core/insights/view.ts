import type { z } from 'zod';
import type { PostCountsDoc, PostInsightDoc } from './documents.js';
import type { PostMetricsSummarySchema } from './schema.js';

export type PostMetricsSummary = z.infer<typeof PostMetricsSummarySchema>;

/** A record as callers read it at `now`. */
export function toSummary(doc: PostInsightDoc, now: Date): PostMetricsSummary {
  return {
    postId: doc._id,
    platformId: doc.platformId,
    releaseId: doc.releaseId,
    publishedAt: doc.publishedAt.toISOString(),
    status: doc.status,
    unavailableReason: doc.unavailableReason,
    metrics: doc.latest ? countsOf(doc.latest) : null,
    engagementRate: engagementRate(doc.latest),
    viewsAt48h: doc.rankingViews,
    nextSnapshotAt: doc.nextDueAt ? nextSnapshotAt(doc.nextDueAt, now).toISOString() : null,
    hook: doc.hook,
  };
}

export function countsOf(counts: PostCountsDoc): NonNullable<PostMetricsSummary['metrics']> {
  return {
    views: counts.views,
    likes: counts.likes,
    comments: counts.comments,
    shares: counts.shares,
    takenAt: counts.takenAt.toISOString(),
  };
}

/** (likes + comments + shares) / views, to four places; null without views to divide by. */
export function engagementRate(counts: PostCountsDoc | null): number | null {
  if (!counts || counts.views === 0) return null;
  return Math.round(((counts.likes + counts.comments + counts.shares) / counts.views) * 10_000) / 10_000;
}

/**
 * When the next snapshot is taken, as a caller reads it: its due time, or `now` once that has passed (it is
 * pending: the collector takes it on its next pass), so the answer is never a time already gone.
 */
export function nextSnapshotAt(dueAt: Date, now: Date): Date {
  return dueAt.getTime() < now.getTime() ? now : dueAt;
}
