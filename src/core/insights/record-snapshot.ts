import type { CoreDeps } from '../context.js';
import { isDuplicateKeyError } from '../errors.js';
import { relayEvents } from '../events/relay.js';
import type { PostCountsDoc, PostInsightDoc, PostSnapshotDoc } from './documents.js';
import { milestoneReached } from './milestones.js';
import { nextAfter, RANKING_AGE_MS, slotAt } from './schedule.js';

/** A post's counts as the collector read them from TikTok: plain numbers. */
export interface PostCounts {
  views: number;
  likes: number;
  comments: number;
  shares: number;
}

/** What recording a snapshot did: `stored` false when its slot already had one or collection had ended. */
export interface SnapshotOutcome {
  stored: boolean;
  slot: number | null;
  status: PostInsightDoc['status'] | null;
}

/**
 * Records a post's counts taken at `takenAt` in the slot then current (src/core/insights/schedule.ts)
 * and moves its schedule on. Idempotent: the snapshot's `_id` is `<post>#<slot>`, so the same slot
 * written twice (a retry, a worker resumed after SIGKILL between the two writes) keeps one document,
 * and the record's move is conditional on the slot it expects, so it happens once. One collector
 * per account at a time is the collection job's to ensure; a second one only ever loses a move.
 * The first snapshot at or past 24 hours or 7 days writes a `post.metrics_24h` / `post.metrics_7d` event
 * with that move.
 */
export async function recordPostSnapshot(
  deps: CoreDeps,
  postId: string,
  counts: PostCounts,
  takenAt: Date,
): Promise<SnapshotOutcome> {
  requireCounts(counts);
  const record = await deps.db.postInsights.findOne({ _id: postId });
  if (!record || record.status !== 'collecting' || record.nextSlot === null) {
    return { stored: false, slot: null, status: record?.status ?? null };
  }
  const slot = slotAt(record.publishedAt, takenAt);
  if (slot < record.nextSlot) return { stored: false, slot, status: record.status };
  const snapshot: PostSnapshotDoc = {
    _id: `${postId}#${slot}`,
    postId,
    workspaceId: record.workspaceId,
    slot,
    ...pick(counts),
    takenAt,
  };
  let stored = true;
  try {
    await deps.db.postSnapshots.insertOne(snapshot);
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    stored = false;
  }
  // A slot stored by an earlier run whose record move was cut short: the record follows what is stored.
  const kept = stored ? snapshot : ((await deps.db.postSnapshots.findOne({ _id: snapshot._id })) ?? snapshot);
  const next = nextAfter(record.publishedAt, slot);
  const latest: PostCountsDoc = { ...pick(kept), takenAt: kept.takenAt };
  const newer = record.latest === null || record.latest.takenAt.getTime() <= latest.takenAt.getTime();
  // The first snapshot at or past 24 hours or 7 days tells the post's chat cards, with this very write.
  const now = deps.now();
  const milestone = newer ? milestoneReached(record, latest, now) : null;
  const moved = await deps.db.postInsights.updateOne(
    { _id: postId, status: 'collecting', nextSlot: record.nextSlot },
    {
      $set: {
        status: next ? 'collecting' : 'final',
        nextSlot: next?.slot ?? null,
        nextDueAt: next?.dueAt ?? null,
        ...(newer ? { latest } : {}),
        rankingViews: record.rankingViews ?? rankingViewsOf(record, latest),
        updatedAt: now,
      },
      $inc: { snapshotCount: 1 },
      ...(milestone ? { $push: { events: milestone } } : {}),
    },
  );
  if (milestone && moved.modifiedCount > 0) void relayEvents(deps, [milestone]);
  return { stored: stored && moved.modifiedCount > 0, slot, status: next ? 'collecting' : 'final' };
}

/**
 * Ends a post's collection because TikTok returns nothing for it (made private, removed, or never
 * released): its status says so with `reason`, and the counts it had stay readable.
 */
export async function markUnavailable(deps: CoreDeps, postId: string, reason: string): Promise<boolean> {
  const result = await deps.db.postInsights.updateOne(
    { _id: postId, status: 'collecting' },
    {
      $set: {
        status: 'unavailable',
        unavailableReason: reason,
        nextSlot: null,
        nextDueAt: null,
        updatedAt: deps.now(),
      },
    },
  );
  return result.modifiedCount > 0;
}

/**
 * Views at the ranking age, once a snapshot reaches it: read between the last snapshot before it and
 * this one (straight line), so a collector a few hours late still ranks the post at 48 hours.
 */
function rankingViewsOf(record: PostInsightDoc, latest: PostCountsDoc): number | null {
  const rankingAt = record.publishedAt.getTime() + RANKING_AGE_MS;
  const at = latest.takenAt.getTime();
  if (at < rankingAt) return null;
  const before = record.latest;
  if (!before || before.takenAt.getTime() >= rankingAt || at === rankingAt) return latest.views;
  const share = (rankingAt - before.takenAt.getTime()) / (at - before.takenAt.getTime());
  return Math.round(before.views + (latest.views - before.views) * share);
}

function pick(counts: PostCounts): PostCounts {
  return { views: counts.views, likes: counts.likes, comments: counts.comments, shares: counts.shares };
}

/** Counts are TikTok's non-negative integers; anything else is a bug in the caller, not data to store. */
function requireCounts(counts: PostCounts): void {
  for (const [name, value] of Object.entries(counts)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  }
}
