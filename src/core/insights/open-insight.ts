import type { CoreDeps } from '../context.js';
import { isDuplicateKeyError } from '../errors.js';
import type { PostDoc } from '../posts/documents.js';
import type { HookDoc, PostInsightDoc } from './documents.js';
import { addMember } from './members.js';
import { slotDueAt } from './schedule.js';
import { notCountedReason } from './unavailable-reasons.js';

/**
 * Starts a published root post's insights: a member of its account (how the collector finds it, by `_id`),
 * then its record, due for the first snapshot a few minutes on (schedule.ts). A post TikTok never counts (not
 * public) gets its record `unavailable` with the reason at once, and no member: nothing is collected. Idempotent: nothing is added once the record is there
 * (its `_id` is the post's), and a crash between the two leaves a member without a record, which a run
 * passes; the `post.published` event's consumer, which a crash cannot lose (the event is stored with the
 * change and relayed at least once), adds both again.
 */
export async function openPostInsight(deps: CoreDeps, post: PostDoc, publishedAt: Date): Promise<void> {
  if (post.parentPostId !== null) return;
  if (await deps.db.postInsights.findOne({ _id: post._id }, { projection: { _id: 1 } })) return;
  const now = deps.now();
  const notCounted = notCountedReason(post.settings.privacy_level);
  const doc: PostInsightDoc = {
    _id: post._id,
    workspaceId: post.workspaceId,
    platformId: post.platformId,
    releaseId: post.releaseId,
    publishedAt,
    status: notCounted ? 'unavailable' : 'collecting',
    unavailableReason: notCounted,
    nextSlot: notCounted ? null : 0,
    nextDueAt: notCounted ? null : slotDueAt(publishedAt, 0),
    latest: null,
    rankingViews: null,
    snapshotCount: 0,
    hook: await hookOf(deps, post),
    createdAt: now,
    updatedAt: now,
  };
  if (!notCounted) await addMember(deps, post.platformId, post._id);
  try {
    await deps.db.postInsights.insertOne(doc);
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}

/**
 * A carousel's hook: the caption baked on its first image, the one viewers see first, when that image
 * is a composite made here (POST /slides/composite or a generation job store it); usually slide 0's,
 * but the post's order counts. A video, or images composited elsewhere, have none.
 */
async function hookOf(deps: CoreDeps, post: PostDoc): Promise<HookDoc | null> {
  const firstId = post.mediaIds[0];
  if (firstId === undefined) return null;
  const media = await deps.db.media.findOne({ _id: firstId, workspaceId: post.workspaceId });
  const caption = media?.mediaType === 'image' ? media.caption : undefined;
  if (!caption) return null;
  return { text: caption.text, textStyleId: caption.textStyleId, language: caption.language };
}

/**
 * Gives a record TikTok's post id once it is released after moderation (recordLateRelease's follow-up), after
 * adding a member to its account, so the planner's next pass queues a run for it. Safe beside a run: while
 * `releaseId` is null a run writes the record only to copy the same id from the post, which also heals a crash
 * between the two writes here; lost before the member, the run's look at withheld records finds it at its next slot.
 */
export async function recordInsightRelease(deps: CoreDeps, postId: string, releaseId: string): Promise<void> {
  const record = await deps.db.postInsights.findOne({ _id: postId }, { projection: { platformId: 1, releaseId: 1 } });
  if (!record || record.releaseId !== null) return;
  await addMember(deps, record.platformId, postId);
  await deps.db.postInsights.updateOne(
    { _id: postId, releaseId: null },
    { $set: { releaseId, updatedAt: deps.now() } },
  );
}
